// Reads the head files an acceptance call needs, in at most two GraphQL queries: the changed
// files and entry points (with folder listings for globs), then glob matches and references.
import type { PatchRow } from '../store/types.ts';
import { selectContextFiles, selectSecondRead, type AcceptanceConfig } from './context.ts';
import { MAX_LOOKUPS_PER_QUERY, type HeadFile, type HeadRead } from './read-files.ts';

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
  const read1 = await read({ sha: input.sha, paths: first.paths, dirs: first.dirs });
  const out = new Map(read1.files);
  if (out.size >= config.maxFiles) return out;

  const second = selectSecondRead({
    first: read1.files,
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
