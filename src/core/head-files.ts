// The head tree's files as a read of GitHub answers them (src/github/head-reads.ts), and the bound
// on one read that the acceptance context's selection plans within (src/acceptance/gather.ts).

export interface HeadFile {
  /** Null for binary files (GitHub gives no text). */
  text: string | null;
  byteSize: number;
  isBinary: boolean;
  isTruncated: boolean;
}

export interface HeadRead {
  /** Files found, in the order asked; a path that does not exist (or is a folder) is absent. */
  files: Map<string, HeadFile>;
  /** Blob paths under the listed folders (to expand globs). */
  tree: string[];
}

/** At most this many lookups (files plus folders) go into one query. */
export const MAX_LOOKUPS_PER_QUERY = 250;
