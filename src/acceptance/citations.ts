// Verifies a model's citation against the material THIS candidate's model call received: the
// quote must occur verbatim (whitespace-normalised) in a sent file or the patch, and mean something.
import { isProsePath, KIND, quoteParts, textKinds } from './comments.ts';
import { parseUnifiedDiff } from '../core/unified-diff.ts';
import { isLoneKeywordOrLiteral, isTrivialQuote, selfDescribes } from './quote-rules.ts';

export interface CitationMaterial {
  /** The files the model received, with the text it received (already cut and redacted). */
  files: { path: string; text: string; truncated?: boolean }[];
  /** The patch text the model received. */
  patch: string;
}

export type CitationFailure =
  | 'missing'
  | 'trivial'
  | 'not-specific'
  | 'path-not-sent'
  | 'not-found'
  | 'past-cut'
  | 'in-comment'
  | 'prose-file'
  | 'restates-criterion'
  | 'removed-line-still-present';

export type CitationCheck =
  { ok: true; line: number; side: 'head' | 'removed' } | { ok: false; reason: CitationFailure };

/** Arbiter's wording for a failed citation, for check runs. */
export const CITATION_FAILURE_WORDING: Record<CitationFailure, string> = {
  missing: 'met without a path and a quote',
  trivial: 'the quote is too generic to show anything (a brace, a keyword, a literal)',
  'not-specific': 'the quote occurs more than 3 times in the material, so it does not point at the work',
  'path-not-sent': 'the cited file was not in the material',
  'not-found': 'the quote does not occur in the cited file or patch',
  'past-cut':
    'the quoted part was cut: the cited file was longer than Arbiter sends to the model, so only its start was read, and the quote is not in it',
  'in-comment': 'the quote is only in a comment: text about the work is not the work',
  'prose-file': 'the quote is only in a documentation file (README, *.md…): text about the work is not the work',
  'restates-criterion':
    "the quote's text restates the criterion (a message, log line, constant or test name) instead of code doing it",
  'removed-line-still-present': 'the removed line is still present in the head',
};

/** Collapses every run of whitespace to one space and trims. */
export const normaliseWhitespace = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** A quote may occur at most this many times in the material and still point at the work. */
export const MAX_OCCURRENCES = 3;
/** A whole line with at least this many non-whitespace characters that occurs once is specific. */
export const WHOLE_LINE_CHARS = 8;

/** How a citation is judged: what the criterion asks, and what the model said about it. */
export interface CitationOptions {
  /** The model classified the criterion as a removal AND its text asks for one: a removed line may verify it. */
  allowRemoved?: boolean;
  /** The criterion is about documentation: comments and prose files may verify it. */
  allowProse?: boolean;
  /** The criterion's text: a quote restating it does not verify it. */
  criterion?: string;
}

/**
 * The context-free half of the rule: a quote that is not trivial (see isTrivialQuote). Whether a
 * quote verifies also depends on the material: it must occur there at most MAX_OCCURRENCES
 * times, or be a whole line of at least WHOLE_LINE_CHARS characters that occurs once.
 */
export const isMeaningfulQuote = (quote: string): boolean => !isTrivialQuote(normaliseWhitespace(quote));

/**
 * Whitespace-normalised text with, for each character, the 1-based line it came from, its KIND
 * (code, comment, text…; separating spaces count as comment, so only real characters decide
 * whether a quote lies in a comment), and whether it starts or ends its line's content (to tell a
 * whole line from a fragment).
 */
interface NormText {
  text: string;
  lineAt: Int32Array;
  kind: Uint8Array;
  lineStart: Uint8Array;
  lineEnd: Uint8Array;
  prose: boolean;
}

const HUNK_GAP = '\u0000';

const normalise = (path: string, lines: { line: number; text: string }[]): NormText => {
  const joined = lines.map((l) => l.text).join('\n');
  const kinds = textKinds(path, joined);
  const total = joined.length + lines.length + 1;
  const lineAt = new Int32Array(total);
  const kind = new Uint8Array(total);
  const lineStart = new Uint8Array(total);
  const lineEnd = new Uint8Array(total);
  const parts: string[] = [];
  let len = 0;
  let offset = 0;
  let prevLine = -1;
  for (const l of lines) {
    // A gap between non-adjacent lines (separate hunks) must not let a quote span it.
    if (prevLine >= 0 && l.line !== prevLine + 1) {
      parts.push(HUNK_GAP);
      lineAt[len++] = l.line;
    }
    prevLine = l.line;
    let first = true;
    for (let i = 0; i < l.text.length; i++) {
      const ch = l.text[i];
      if (/\s/.test(ch)) continue;
      const prev = i > 0 && /\s/.test(l.text[i - 1]);
      if (len > 0 && parts[len - 1] !== HUNK_GAP && (first || prev)) {
        parts.push(' ');
        kind[len] = KIND.comment;
        lineAt[len++] = l.line;
      }
      if (first) lineStart[len] = 1;
      first = false;
      parts.push(ch);
      kind[len] = kinds[offset + i];
      lineAt[len++] = l.line;
    }
    if (!first) lineEnd[len - 1] = 1;
    offset += l.text.length + 1;
  }
  return { text: parts.join(''), lineAt, kind, lineStart, lineEnd, prose: isProsePath(path) };
};

const textLines = (text: string): { line: number; text: string }[] =>
  text.split('\n').map((t, i) => ({ line: i + 1, text: t }));

interface Prepared {
  files: Map<string, NormText>;
  newSide: Map<string, NormText>;
  removed: Map<string, NormText>;
}

const cache = new WeakMap<CitationMaterial, Prepared>();

const prepare = (material: CitationMaterial): Prepared => {
  const hit = cache.get(material);
  if (hit) return hit;
  const files = new Map<string, NormText>();
  for (const f of material.files) files.set(f.path, normalise(f.path, textLines(f.text)));
  const newSide = new Map<string, NormText>();
  const removed = new Map<string, NormText>();
  for (const d of parseUnifiedDiff(material.patch, { keepLines: true })) {
    if (d.newSide.length > 0) newSide.set(d.path, normalise(d.path, d.newSide));
    const oldPath = d.status === 'removed' ? d.path : d.oldPath || d.path;
    if (d.removed.length > 0) removed.set(oldPath, normalise(oldPath, d.removed));
  }
  const prepared = { files, newSide, removed };
  cache.set(material, prepared);
  return prepared;
};

/** The model may quote patch lines with their `+`/`-` markers: drop them when every line has one. */
const stripDiffMarkers = (quote: string): string => {
  const lines = quote.split('\n').filter((l) => l.trim().length > 0);
  if (lines.length === 0 || !lines.every((l) => /^[+-]/.test(l))) return quote;
  return lines.map((l) => l.slice(1)).join('\n');
};

const bare = (path: string): string => path.trim().replace(/^\.\//, '').replace(/^\/+/, '');

const lookup = <T>(map: Map<string, T>, path: string): T | undefined =>
  map.get(bare(path)) ?? map.get(bare(path).replace(/^[ab]\//, ''));

const WORD_CHAR = /[A-Za-z0-9_$]/;

/** Start offsets of the occurrences of `needle` in `hay` that do not cut a word at either end. */
const occurrences = (hay: NormText | undefined, needle: string): number[] => {
  if (!hay || needle.length === 0) return [];
  const out: number[] = [];
  const wordStart = WORD_CHAR.test(needle[0]);
  const wordEnd = WORD_CHAR.test(needle[needle.length - 1]);
  for (let at = hay.text.indexOf(needle); at >= 0; at = hay.text.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if (wordStart && at > 0 && WORD_CHAR.test(hay.text[at - 1])) continue;
    if (wordEnd && end < hay.text.length && WORD_CHAR.test(hay.text[end])) continue;
    out.push(at);
  }
  return out;
};

/** Text about the work: the whole occurrence lies in a comment, or the file is prose. */
const aboutTheWork = (hay: NormText, at: number, length: number): boolean => {
  if (hay.prose) return true;
  for (let i = at; i < at + length; i++) if (hay.kind[i] !== KIND.comment) return false;
  return true;
};

const isWholeLine = (hay: NormText, at: number, length: number): boolean =>
  hay.lineStart[at] === 1 && hay.lineEnd[at + length - 1] === 1;

/** Every place of the head side of the material: sent files, and the patch's new side of files not sent. */
const headSources = (p: Prepared): NormText[] => [
  ...p.files.values(),
  ...[...p.newSide].filter(([path]) => !p.files.has(path)).map(([, t]) => t),
];

/** How often a quote occurs in `sources`: anywhere, and as a whole line. */
const countIn = (sources: NormText[], quote: string): { any: number; wholeLines: number } => {
  let any = 0;
  let wholeLines = 0;
  for (const t of sources) {
    for (const at of occurrences(t, quote)) {
      any += 1;
      if (isWholeLine(t, at, quote.length)) wholeLines += 1;
    }
  }
  return { any, wholeLines };
};

/**
 * Specific: a whole line of at least WHOLE_LINE_CHARS non-whitespace characters that occurs
 * once as a line (unless it is a lone keyword or literal such as `undefined` or `continue;`),
 * or a quote that is not trivial and occurs at most MAX_OCCURRENCES times.
 */
const specific = (
  quote: string,
  count: { any: number; wholeLines: number },
  wholeLine: boolean,
): CitationFailure | null => {
  if (
    wholeLine &&
    count.wholeLines === 1 &&
    quote.replace(/\s+/g, '').length >= WHOLE_LINE_CHARS &&
    !isLoneKeywordOrLiteral(quote)
  )
    return null;
  if (isTrivialQuote(quote)) return 'trivial';
  return count.any > MAX_OCCURRENCES ? 'not-specific' : null;
};

/**
 * Checks one citation against the material this candidate's call received. The quote must
 * occur verbatim (whitespace-normalised, not cutting a word) in the cited head file as sent, or
 * in the new side (added and context lines) of the cited file in the patch; and be specific
 * (see `specific`). For a criterion about behaviour it must occur there outside comments and
 * outside documentation files, and must not describe the work instead of doing it (its string or
 * markup text restating the criterion with no code sharing the criterion's words: selfDescribes). Only with `allowRemoved`, a quote
 * of a removed line of the cited file verifies when no head file or new-side line still holds it.
 * Paths must match; a quote found only in another file does not count.
 */
export function verifyCitation(
  citation: { path?: string | null; quote?: string | null },
  material: CitationMaterial,
  opts: CitationOptions = {},
): CitationCheck {
  if (!citation.path || !citation.quote) return { ok: false, reason: 'missing' };
  const quote = normaliseWhitespace(stripDiffMarkers(citation.quote));
  if (quote.length === 0) return { ok: false, reason: 'missing' };
  const p = prepare(material);
  const file = lookup(p.files, citation.path);
  const inPatch = lookup(p.newSide, citation.path);
  const inRemoved = lookup(p.removed, citation.path);
  if (!file && !inPatch && !inRemoved) return { ok: false, reason: 'path-not-sent' };

  const hay = [file, inPatch].find((h) => occurrences(h, quote).length > 0);
  if (hay) {
    const hits = occurrences(hay, quote);
    const unspecific = specific(
      quote,
      countIn(headSources(p), quote),
      hits.some((at) => isWholeLine(hay, at, quote.length)),
    );
    if (unspecific) return { ok: false, reason: unspecific };
    const work = opts.allowProse ? hits : hits.filter((at) => !aboutTheWork(hay, at, quote.length));
    if (work.length === 0) return { ok: false, reason: hay.prose ? 'prose-file' : 'in-comment' };
    if (
      !opts.allowProse &&
      opts.criterion &&
      selfDescribes(quoteParts(hay.text, hay.kind, work[0], work[0] + quote.length), opts.criterion)
    )
      return { ok: false, reason: 'restates-criterion' };
    return { ok: true, line: hay.lineAt[work[0]], side: 'head' };
  }

  if (opts.allowRemoved && inRemoved) {
    const hits = occurrences(inRemoved, quote);
    if (hits.length > 0) {
      if (countIn(headSources(p), quote).any > 0) return { ok: false, reason: 'removed-line-still-present' };
      const unspecific = specific(
        quote,
        countIn([...p.removed.values()], quote),
        hits.some((at) => isWholeLine(inRemoved, at, quote.length)),
      );
      if (unspecific) return { ok: false, reason: unspecific };
      return { ok: true, line: inRemoved.lineAt[hits[0]], side: 'removed' };
    }
  }
  // A file sent cut: the quote may lie in the part the model never received (and only saw quoted back).
  const cited = citation.path;
  if (material.files.some((f) => f.truncated === true && lookup(new Map([[f.path, f]]), cited)))
    return { ok: false, reason: 'past-cut' };
  return { ok: false, reason: 'not-found' };
}
