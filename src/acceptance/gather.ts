// Reads the head files an acceptance call needs, in at most two GraphQL queries: the changed
// files and entry points (with folder listings for globs), then glob matches and references.
import type { PatchRow } from '../store/types.ts';
import { selectContextFiles, selectSecondRead, type AcceptanceConfig } from './context.ts';
import { MAX_LOOKUPS_PER_QUERY, type HeadFile, type HeadRead } from '../core/head-files.ts';

/** Reads files and folder listings of the head tree in one query (the GitHub port's `readHead`). */
export type HeadReader = (input: { sha: string; paths: string[]; dirs?: string[] }) => Promise<HeadRead>;

/**
 * The head files in priority order: changed files, literal entry points, glob-matched entry
 * points, then referenced files (the first existing candidate of each reference). References
 * are followed one level, from the files of the first read (so not from glob-matched entry
 * points, which are only known after it).
 */
export async function gatherHeadFiles(
  read: HeadReader,
  input: { sha: string; patch: PatchRow; config: AcceptanceConfig },
): Promise<Map<string, HeadFile>> {
  const { patch, config } = input;
  const first = selectContextFiles({ patch, config });
  // A file the patch adds is in the patch whole: it needs no read (agents mostly add files).
  const known = new Map<string, HeadFile>();
  for (const path of first.paths) {
    const text = addedFileText(patch, path);
    if (text !== null)
      known.set(path, { text, byteSize: Buffer.byteLength(text), isBinary: false, isTruncated: false });
  }
  const rest = first.paths.filter((p) => !known.has(p));
  const read1: HeadRead =
    rest.length === 0 && first.dirs.length === 0
      ? { files: new Map(), tree: [] }
      : await read({ sha: input.sha, paths: rest, dirs: first.dirs });
  // In the order asked for, as the read answers.
  const out = new Map<string, HeadFile>();
  for (const p of first.paths) {
    const f = known.get(p) ?? read1.files.get(p);
    if (f) out.set(p, f);
  }
  for (const [p, f] of read1.files) if (!out.has(p)) out.set(p, f);
  if (out.size >= config.maxFiles) return out;

  const second = selectSecondRead({
    first: out,
    tree: read1.tree,
    patch,
    config,
    maxLookups: MAX_LOOKUPS_PER_QUERY,
  });
  if (second.paths.length === 0) return out;
  const read2 = await read({ sha: input.sha, paths: second.paths });
  for (const p of second.globMatches) {
    const f = read2.files.get(p);
    if (f) out.set(p, f);
  }
  for (const candidates of second.references) {
    const hit = candidates.find((c) => read2.files.has(c) || out.has(c));
    const f = hit === undefined ? undefined : read2.files.get(hit);
    if (hit !== undefined && f !== undefined && !out.has(hit)) out.set(hit, f);
  }
  return out;
}

/**
 * The whole text of a file the patch adds, when the patch holds all of it: a text file with one
 * hunk from line 1 whose added lines are all there (the patch was not cut), else null.
 */
export function addedFileText(patch: PatchRow, path: string): string | null {
  if (patch.truncated) return null;
  const entry = patch.files.find((f) => f.path === path);
  if (!entry || entry.status !== 'added' || entry.binary === true || entry.additions === 0) return null;
  const header = `diff --git a/${path} b/${path}\n`;
  const at = patch.patch.startsWith(header) ? -1 : patch.patch.indexOf(`\n${header}`);
  if (at < 0 && !patch.patch.startsWith(header)) return null;
  const start = at + 1;
  const next = patch.patch.indexOf('\ndiff --git ', start + header.length);
  const section = patch.patch.slice(start, next < 0 ? undefined : next + 1).split('\n');
  const hunk = section.findIndex((l) => l.startsWith('@@ '));
  const m = hunk < 0 ? null : /^@@ -0,0 \+1(?:,(\d+))? @@/.exec(section[hunk] ?? '');
  if (!m) return null;
  const count = m[1] === undefined ? 1 : Number(m[1]);
  const lines: string[] = [];
  let newline = true;
  for (const l of section.slice(hunk + 1)) {
    if (l.startsWith('+')) lines.push(l.slice(1));
    else if (l.startsWith('\\')) newline = false;
    else if (l === '') continue;
    else return null; // a second hunk or anything else: not the whole file
  }
  if (lines.length !== count || lines.length !== entry.additions) return null;
  return lines.join('\n') + (newline ? '\n' : '');
}
