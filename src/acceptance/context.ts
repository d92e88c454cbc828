// Chooses and builds what an acceptance call reads: the patch first, then the full text of the
// relevant head files, within `acceptance.maxFiles` files and `acceptance.maxBytes` bytes. Pure.
import picomatch from 'picomatch';
import type { ArbiterConfig } from '../config/schema.ts';
import { redactSecrets } from '../llm/redact.ts';
import type { PatchRow } from '../store/types.ts';
import { cutAtLineWithinBytes } from '../core/render/byte-limit.ts';
import type { HeadFile } from '../core/head-files.ts';
import { findReferences } from './references.ts';

export type AcceptanceConfig = ArbiterConfig['acceptance'];

export interface SentFile {
  path: string;
  /** The text the model received (cut and redacted): citations are verified against it. */
  text: string;
  truncated: boolean;
}

export interface AcceptanceContext {
  /** Patch, files, and the named-but-not-sent lists, in that order; at most maxBytes bytes. */
  material: string;
  sent: SentFile[];
  /** The patch text the model received (cut and redacted). */
  patchText: string;
  /** The patch or a sent file was cut, or a relevant file was left out for the limits. */
  truncated: boolean;
  /** Binary files, named in the material, never sent. */
  binary: string[];
  /** Relevant text files left out for maxFiles or maxBytes. */
  omitted: string[];
}

/** Below this many bytes of room a file is left out rather than sent as a stub. */
const MIN_FILE_BYTES = 256;
/** Names listed in the not-sent sections (the rest is counted). */
const MAX_LISTED_NAMES = 50;
/** Extra characters redacted past a cut, so a secret straddling it is never left half-visible. */
const REDACTION_MARGIN = 512;
/** Bytes kept for each not-sent list (a few names; the rest are counted). */
const LIST_RESERVE = 512;
const CUT_MARK = '\n[… truncated by Arbiter]\n';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
/** Bytes a file's section adds besides its text: title line, cut mark, separators. */
const fileOverhead = (path: string): number => bytes(path) + 96 + CUT_MARK.length;

/** Cuts to at most `max` bytes at a line end and redacts, without ever copying more than max + margin. */
const cutAndRedact = (text: string, max: number): { text: string; truncated: boolean } => {
  const whole = text.length <= max && bytes(text) <= max;
  const window = whole ? text : text.slice(0, max + REDACTION_MARGIN);
  const redacted = redactSecrets(window).text;
  if (whole && bytes(redacted) <= max) return { text: redacted, truncated: false };
  return { text: cutAtLineWithinBytes(redacted, max), truncated: true };
};

/** The literal folder a glob starts at (`public/**\/*.html` → `public`), '' for the root. */
const globBase = (glob: string): string => picomatch.scan(glob).base;
const isGlob = (glob: string): boolean => picomatch.scan(glob).isGlob;

/** Changed paths that have head text worth reading: not removed, not binary. */
const changedTextPaths = (patch: PatchRow): string[] =>
  patch.files.filter((f) => f.status !== 'removed' && f.binary !== true).map((f) => f.path);

export interface FirstRead {
  /** Changed files (at most maxFiles) then literal `alwaysInclude` entries. */
  paths: string[];
  /** Folders to list so `alwaysInclude` globs can be expanded. */
  dirs: string[];
}

/** Step 1: what to read first. Bounded by maxFiles whatever the size of the PR. */
export function selectContextFiles(input: { patch: PatchRow; config: AcceptanceConfig }): FirstRead {
  const { patch, config } = input;
  const changed = changedTextPaths(patch).slice(0, config.maxFiles);
  const literal = config.alwaysInclude.filter((g) => !isGlob(g));
  const dirs = [...new Set(config.alwaysInclude.filter(isGlob).map(globBase))];
  return { paths: [...new Set([...changed, ...literal])], dirs };
}

/**
 * Step 2: after the first read, the paths still to read: `alwaysInclude` glob matches (from the
 * folder listings), then every candidate path of each reference found in the files read so far.
 * Returns the paths to ask for and, per reference, its candidates in order (to pick the first
 * that exists).
 */
export function selectSecondRead(input: {
  first: Map<string, HeadFile>;
  tree: string[];
  patch: PatchRow;
  config: AcceptanceConfig;
  maxLookups: number;
}): { paths: string[]; globMatches: string[]; references: string[][] } {
  const { first, tree, patch, config } = input;
  const have = new Set(first.keys());
  const globs = config.alwaysInclude.filter(isGlob);
  const universe = [...new Set([...changedTextPaths(patch), ...tree])];
  const globMatches: string[] = [];
  for (const g of globs) {
    const match = picomatch(g, { dot: true });
    for (const p of universe) if (match(p) && !have.has(p) && !globMatches.includes(p)) globMatches.push(p);
  }
  const references: string[][] = [];
  for (const [path, file] of first) {
    if (file.text === null || file.isBinary) continue;
    for (const candidates of findReferences(path, file.text)) {
      if (candidates.some((c) => have.has(c))) continue;
      references.push(candidates);
    }
  }
  const paths: string[] = [];
  const room = (): boolean => paths.length < input.maxLookups;
  for (const p of globMatches) if (room()) paths.push(p);
  for (const cands of references) for (const c of cands) if (room() && !paths.includes(c)) paths.push(c);
  return { paths, globMatches, references };
}

const cleanName = (p: string): string => p.replace(/[\u0000-\u001f]/g, '?');
const section = (title: string, body: string): string =>
  `===== ${cleanName(title)} =====\n${body}${body.endsWith('\n') ? '' : '\n'}`;

/** A list of names within `room` bytes; names that do not fit are counted instead. */
const listSection = (title: string, names: string[], room: number): string => {
  const lines: string[] = [];
  let size = title.length + 16;
  for (const n of names.slice(0, MAX_LISTED_NAMES)) {
    const line = `- ${n.slice(0, 300)}`;
    if (size + bytes(line) + 1 + 40 > room) break;
    lines.push(line);
    size += bytes(line) + 1;
  }
  if (names.length > lines.length) lines.push(`- … and ${names.length - lines.length} more`);
  return section(title, lines.join('\n'));
};

/**
 * Step 3: the material. `headFiles` is in priority order (changed files first, then entry
 * points, then referenced files, as gatherHeadFiles returns it); changed files are put first
 * regardless. The patch gets all the room it needs when everything fits, else at least half of
 * maxBytes (or all of it when no file is sent); files then fill the rest in order.
 */
export function buildAcceptanceContext(input: {
  patch: PatchRow;
  headFiles: Map<string, HeadFile>;
  config: AcceptanceConfig;
}): AcceptanceContext {
  const { patch, headFiles, config } = input;
  const changed = new Set(patch.files.map((f) => f.path));
  const ordered = [...headFiles.entries()].sort(([a], [b]) => Number(!changed.has(a)) - Number(!changed.has(b)));

  const binary: string[] = patch.files.filter((f) => f.binary === true).map((f) => f.path);
  const textFiles: [string, string, HeadFile][] = [];
  for (const [path, file] of ordered) {
    if (file.isBinary || file.text === null) {
      if (!binary.includes(path)) binary.push(path);
    } else textFiles.push([path, file.text, file]);
  }
  const candidates = textFiles.slice(0, config.maxFiles);
  const omitted = textFiles.slice(config.maxFiles).map(([p]) => p);

  // A little room is kept for the lists of files named but not sent.
  const reserve = binary.length > 0 || omitted.length > 0 ? LIST_RESERVE : 0;
  const budget = Math.max(0, config.maxBytes - reserve - LIST_RESERVE);
  const wanted = candidates.reduce((n, [path, text]) => n + bytes(text) + fileOverhead(path), 0);
  const patchBytes = bytes(patch.patch);
  const patchBudget = Math.max(0, budget - fileOverhead(''));
  const patchRoom =
    candidates.length === 0
      ? patchBudget
      : Math.min(patchBytes, Math.max(patchBudget - wanted, Math.floor(patchBudget / 2)));

  const parts: string[] = [];
  let used = 0;
  const cutPatch = cutAndRedact(patch.patch, patchRoom);
  const patchTruncated = patch.truncated || cutPatch.truncated;
  const patchTitle = patchTruncated ? `PATCH (truncated: ${patchBytes} bytes in full)` : 'PATCH';
  const patchText = cutPatch.text + (patchTruncated ? CUT_MARK : '');
  parts.push(section(patchTitle, patchText));
  used += bytes(parts[0]) + 1;

  const sent: SentFile[] = [];
  let truncated = patchTruncated;
  for (const [path, text, file] of candidates) {
    const room = budget - used - fileOverhead(path);
    if (room < MIN_FILE_BYTES && (room <= 0 || bytes(text) > room)) {
      omitted.push(path);
      continue;
    }
    const cut = cutAndRedact(text, room);
    const fileTruncated = cut.truncated || file.isTruncated;
    const title = fileTruncated
      ? `FILE ${path} (truncated: ${file.byteSize} bytes in full)`
      : `FILE ${path} (${file.byteSize} bytes)`;
    const body = cut.text + (fileTruncated ? CUT_MARK : '');
    const part = section(title, body);
    parts.push(part);
    used += bytes(part) + 1;
    sent.push({ path, text: cut.text, truncated: fileTruncated });
    truncated ||= fileTruncated;
  }
  // The lists share what is left; each gets at least LIST_RESERVE bytes (kept aside above).
  if (binary.length > 0) {
    const part = listSection(
      'BINARY FILES (named, not sent)',
      binary,
      Math.max(LIST_RESERVE, (config.maxBytes - used) / 2),
    );
    parts.push(part);
    used += bytes(part) + 1;
  }
  if (omitted.length > 0) {
    truncated = true;
    parts.push(listSection('FILES NOT SENT (limits)', omitted, Math.max(LIST_RESERVE, config.maxBytes - used - 2)));
  }
  return { material: parts.join('\n'), sent, patchText: cutPatch.text, truncated, binary, omitted };
}
