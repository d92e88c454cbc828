// Verifies a model's citation against the material THIS candidate's model call received: the
// quote must occur verbatim (whitespace-normalised) in a sent file or the patch, and mean something.
import { parseUnifiedDiff } from './diff.ts';

export interface CitationMaterial {
  /** The files the model received, with the text it received (already cut and redacted). */
  files: { path: string; text: string }[];
  /** The patch text the model received. */
  patch: string;
}

export type CitationFailure =
  | 'missing'
  | 'too-short'
  | 'path-not-sent'
  | 'not-found'
  | 'removed-line-still-present';

export type CitationCheck = { ok: true; line: number; side: 'head' | 'removed' } | { ok: false; reason: CitationFailure };

/** Arbiter's wording for a failed citation, for check runs. */
export const CITATION_FAILURE_WORDING: Record<CitationFailure, string> = {
  missing: 'met without a path and a quote',
  'too-short': 'the quote is too short to mean anything',
  'path-not-sent': 'the cited file was not in the material',
  'not-found': 'the quote does not occur in the cited file or patch',
  'removed-line-still-present': 'the removed line is still present in the head',
};

/** Collapses every run of whitespace to one space and trims. */
export const normaliseWhitespace = (text: string): string => text.replace(/\s+/g, ' ').trim();

const MIN_NON_WHITESPACE = 12;
const MIN_DISTINCT_TOKENS = 2;
const DISTINCTIVE_IDENTIFIER = 10;
const WORDISH = /[A-Za-z_$][A-Za-z0-9_$]*|\d{2,}/g;

/**
 * The rule for a quote that means something: at least 12 non-whitespace characters, AND
 * either two distinct word-ish tokens of at least 2 characters (identifiers, words, numbers
 * of 2+ digits) or one identifier of at least 10 characters. So `}`, `return`, `</div></div>`
 * and `return x;` fail; `return value;`, `renderCalendar()` and `Each day has a list` pass.
 */
export function isMeaningfulQuote(quote: string): boolean {
  const nonWs = quote.replace(/\s+/g, '');
  if (nonWs.length < MIN_NON_WHITESPACE) return false;
  const tokens = new Set((quote.match(WORDISH) ?? []).filter((t) => t.length >= 2));
  if (tokens.size >= MIN_DISTINCT_TOKENS) return true;
  return [...tokens].some((t) => t.length >= DISTINCTIVE_IDENTIFIER);
}

const REMOVAL_WORDS = /\b(remove[sd]?|removing|removal|delete[sd]?|deleting|deletion|drop(?:s|ped|ping)?|get rid of|no longer|eliminate[sd]?|strip(?:s|ped)?( out)?|deprecate[sd]?)\b/i;

/** A criterion that asks for something to go away; only such a criterion may cite a removed line. */
export const looksLikeRemoval = (criterionText: string): boolean => REMOVAL_WORDS.test(criterionText);

/** Whitespace-normalised text with, for each character, the 1-based line it came from. */
interface NormText {
  text: string;
  lineAt: Int32Array;
}

const normalise = (lines: { line: number; text: string }[]): NormText => {
  let total = 0;
  for (const l of lines) total += l.text.length + 1;
  const lineAt = new Int32Array(total);
  const parts: string[] = [];
  let len = 0;
  let pendingSpace = false;
  let prevLine = -1;
  for (const l of lines) {
    // A gap between non-adjacent lines (separate hunks) must not let a quote span it.
    if (prevLine >= 0 && l.line !== prevLine + 1) {
      parts.push('\u0000');
      lineAt[len++] = l.line;
      pendingSpace = false;
    }
    prevLine = l.line;
    for (let i = 0; i < l.text.length; i++) {
      const ch = l.text[i];
      if (/\s/.test(ch)) {
        pendingSpace = len > 0;
        continue;
      }
      if (pendingSpace) {
        parts.push(' ');
        lineAt[len++] = l.line;
        pendingSpace = false;
      }
      parts.push(ch);
      lineAt[len++] = l.line;
    }
    pendingSpace = len > 0;
  }
  return { text: parts.join(''), lineAt };
};

const textLines = (text: string): { line: number; text: string }[] => text.split('\n').map((t, i) => ({ line: i + 1, text: t }));

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
  for (const f of material.files) files.set(f.path, normalise(textLines(f.text)));
  const newSide = new Map<string, NormText>();
  const removed = new Map<string, NormText>();
  for (const d of parseUnifiedDiff(material.patch, { keepLines: true })) {
    if (d.newSide.length > 0) newSide.set(d.path, normalise(d.newSide));
    if (d.removed.length > 0) removed.set(d.status === 'removed' ? d.path : d.oldPath || d.path, normalise(d.removed));
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

const lookup = <T>(map: Map<string, T>, path: string): T | undefined => {
  const bare = path.trim().replace(/^\.\//, '').replace(/^\/+/, '');
  return map.get(bare) ?? map.get(bare.replace(/^[ab]\//, ''));
};

const find = (hay: NormText | undefined, needle: string): number | null => {
  if (!hay) return null;
  const at = hay.text.indexOf(needle);
  return at < 0 ? null : hay.lineAt[at];
};

/**
 * Checks one citation. Order: the cited head file as sent; the new side (added and context
 * lines) of the cited file in the patch; then, only with `allowRemoved` (a removal criterion),
 * the removed lines of the cited file, provided no sent file and no new-side patch line still
 * holds the quote. Paths must match; a quote found only in another file does not count.
 */
export function verifyCitation(
  citation: { path?: string | null; quote?: string | null },
  material: CitationMaterial,
  opts: { allowRemoved?: boolean } = {},
): CitationCheck {
  if (!citation.path || !citation.quote) return { ok: false, reason: 'missing' };
  const quote = normaliseWhitespace(stripDiffMarkers(citation.quote));
  if (!isMeaningfulQuote(quote)) return { ok: false, reason: 'too-short' };
  const p = prepare(material);
  const file = lookup(p.files, citation.path);
  const inPatch = lookup(p.newSide, citation.path);
  const inRemoved = lookup(p.removed, citation.path);
  if (!file && !inPatch && !inRemoved) return { ok: false, reason: 'path-not-sent' };

  const headLine = find(file, quote) ?? find(inPatch, quote);
  if (headLine !== null) return { ok: true, line: headLine, side: 'head' };

  if (opts.allowRemoved) {
    const removedLine = find(inRemoved, quote);
    if (removedLine !== null) {
      const stillThere =
        [...p.files.values()].some((f) => f.text.includes(quote)) || [...p.newSide.values()].some((f) => f.text.includes(quote));
      if (stillThere) return { ok: false, reason: 'removed-line-still-present' };
      return { ok: true, line: removedLine, side: 'removed' };
    }
  }
  return { ok: false, reason: 'not-found' };
}
