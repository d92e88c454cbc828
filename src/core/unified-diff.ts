// Reads a unified diff (GitHub's `.diff` format, or the one src/github/patch-reads.ts assembles from file
// pages) into its files: path, status, counts, and optionally each side's lines with numbers.

export interface DiffLine {
  line: number;
  text: string;
}

export interface DiffFile {
  path: string;
  oldPath: string;
  status: 'added' | 'removed' | 'modified' | 'renamed';
  additions: number;
  deletions: number;
  binary: boolean;
  /** Context and added lines with their line numbers in the head file (when `keepLines`). */
  newSide: DiffLine[];
  /** Removed lines with their line numbers in the base file (when `keepLines`). */
  removed: DiffLine[];
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

const unquote = (p: string): string => (p.startsWith('"') && p.endsWith('"') ? p.slice(1, -1) : p);

/** `a/x` or `b/x` → `x`; `/dev/null` → null. */
const stripSide = (p: string): string | null => {
  const bare = unquote(p.trim().replace(/\t.*$/, ''));
  if (bare === '/dev/null') return null;
  return bare.replace(/^[ab]\//, '');
};

/** Paths from `diff --git a/X b/Y` when both sides are the same (the only unambiguous case). */
const pathsFromGitLine = (rest: string): { oldPath: string; path: string } => {
  const bare = rest.trim();
  const half = (bare.length - 1) / 2;
  if (Number.isInteger(half)) {
    const a = bare.slice(0, half);
    const b = bare.slice(half + 1);
    if (a.startsWith('a/') && b.startsWith('b/') && a.slice(2) === b.slice(2))
      return { oldPath: a.slice(2), path: b.slice(2) };
  }
  const m = /^"?a\/(.+?)"? "?b\/(.+?)"?$/.exec(bare);
  return m ? { oldPath: m[1], path: m[2] } : { oldPath: bare, path: bare };
};

/**
 * Files of a unified diff, in order. Linear in the text. With `keepLines` each file also holds
 * its new-side and removed lines (used to verify citations); without, only counts are kept.
 */
export function parseUnifiedDiff(text: string, opts: { keepLines?: boolean } = {}): DiffFile[] {
  const keep = opts.keepLines === true;
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;

  const start = (oldPath: string, path: string): DiffFile => {
    const f: DiffFile = {
      path,
      oldPath,
      status: 'modified',
      additions: 0,
      deletions: 0,
      binary: false,
      newSide: [],
      removed: [],
    };
    files.push(f);
    inHunk = false;
    return f;
  };

  let from = 0;
  while (from <= text.length) {
    let to = text.indexOf('\n', from);
    if (to < 0) to = text.length;
    const line = text.slice(from, to);
    from = to + 1;

    if (line.startsWith('diff --git ')) {
      const p = pathsFromGitLine(line.slice('diff --git '.length));
      file = start(p.oldPath, p.path);
      if (p.oldPath !== p.path) file.status = 'renamed';
      continue;
    }
    if (file === null) {
      // A diff without git headers (plain `--- / +++`) still starts a file.
      if (line.startsWith('--- ')) file = start('', '');
      else continue;
    }
    const f: DiffFile = file;
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      inHunk = true;
      continue;
    }
    if (inHunk) {
      const tag = line[0];
      if (tag === '+') {
        if (keep) f.newSide.push({ line: newLine, text: line.slice(1) });
        f.additions++;
        newLine++;
        continue;
      }
      if (tag === '-') {
        if (keep) f.removed.push({ line: oldLine, text: line.slice(1) });
        f.deletions++;
        oldLine++;
        continue;
      }
      if (tag === ' ' || line === '') {
        if (keep && tag === ' ') f.newSide.push({ line: newLine, text: line.slice(1) });
        oldLine++;
        newLine++;
        continue;
      }
      if (tag === '\\') continue;
      inHunk = false;
    }
    if (line.startsWith('--- ')) {
      const p = stripSide(line.slice(4));
      if (p === null) f.status = 'added';
      else if (f.oldPath === '') f.oldPath = p;
    } else if (line.startsWith('+++ ')) {
      const p = stripSide(line.slice(4));
      if (p === null) {
        f.status = 'removed';
        if (f.path === '') f.path = f.oldPath;
      } else f.path = p;
    } else if (line.startsWith('new file mode')) f.status = 'added';
    else if (line.startsWith('deleted file mode')) f.status = 'removed';
    else if (line.startsWith('rename from ')) {
      f.oldPath = line.slice('rename from '.length);
      f.status = 'renamed';
    } else if (line.startsWith('rename to ')) {
      f.path = line.slice('rename to '.length);
      f.status = 'renamed';
    } else if (line.startsWith('Binary files ') || line === 'GIT binary patch') f.binary = true;
  }
  return files;
}
