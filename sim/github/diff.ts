// Line diffs between two trees, as GitHub shows them: per-file status, counts and unified patches.
export interface FileDiff {
  filename: string;
  status: 'added' | 'removed' | 'modified' | 'renamed';
  /** A renamed file's old path. */
  previous_filename?: string;
  /** A renamed file's similarity to its old content, in percent (as `git diff -M` prints it). */
  similarity?: number;
  additions: number;
  deletions: number;
  changes: number;
  binary: boolean;
  /** hunks without the `diff --git` header; absent for binary files */
  patch?: string;
  before?: string;
  after?: string;
}

type Op = { kind: ' ' | '-' | '+'; line: string };

const CONTEXT = 3;
const MAX_LCS_CELLS = 4_000_000;

export const isBinary = (text: string): boolean => text.includes('\0');

const splitLines = (text: string): string[] => {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/** Edit script from a longest common subsequence over the middle part (common ends trimmed). */
function editScript(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const ops: Op[] = a.slice(0, start).map((line) => ({ kind: ' ', line }));
  if (midA.length * midB.length > MAX_LCS_CELLS || midA.length === 0 || midB.length === 0) {
    // too large to align line by line: show the middle as replaced
    ops.push(...midA.map((line): Op => ({ kind: '-', line })), ...midB.map((line): Op => ({ kind: '+', line })));
  } else {
    const n = midA.length;
    const m = midB.length;
    const table: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        table[i][j] = midA[i] === midB[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (midA[i] === midB[j]) {
        ops.push({ kind: ' ', line: midA[i] });
        i++;
        j++;
      } else if (table[i + 1][j] >= table[i][j + 1]) ops.push({ kind: '-', line: midA[i++] });
      else ops.push({ kind: '+', line: midB[j++] });
    }
    while (i < n) ops.push({ kind: '-', line: midA[i++] });
    while (j < m) ops.push({ kind: '+', line: midB[j++] });
  }
  ops.push(...a.slice(endA).map((line): Op => ({ kind: ' ', line })));
  return ops;
}

/** Groups an edit script into unified-diff hunks with three lines of context. */
function hunks(ops: Op[]): string {
  const changed = ops.map((op, index) => (op.kind === ' ' ? -1 : index)).filter((index) => index >= 0);
  if (changed.length === 0) return '';
  const ranges: [number, number][] = [];
  for (const index of changed) {
    const from = Math.max(0, index - CONTEXT);
    const to = Math.min(ops.length - 1, index + CONTEXT);
    const last = ranges[ranges.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  const out: string[] = [];
  for (const [from, to] of ranges) {
    let oldStart = 1;
    let newStart = 1;
    for (let k = 0; k < from; k++) {
      if (ops[k].kind !== '+') oldStart++;
      if (ops[k].kind !== '-') newStart++;
    }
    const slice = ops.slice(from, to + 1);
    const oldCount = slice.filter((op) => op.kind !== '+').length;
    const newCount = slice.filter((op) => op.kind !== '-').length;
    out.push(
      `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`,
    );
    out.push(...slice.map((op) => `${op.kind}${op.line}`));
  }
  return out.join('\n');
}

export function diffFile(filename: string, before: string | undefined, after: string | undefined): FileDiff {
  const status = before === undefined ? 'added' : after === undefined ? 'removed' : 'modified';
  const binary = isBinary(before ?? '') || isBinary(after ?? '');
  if (binary) return { filename, status, additions: 0, deletions: 0, changes: 0, binary, before, after };
  const ops = editScript(splitLines(before ?? ''), splitLines(after ?? ''));
  const additions = ops.filter((op) => op.kind === '+').length;
  const deletions = ops.filter((op) => op.kind === '-').length;
  return {
    filename,
    status,
    additions,
    deletions,
    changes: additions + deletions,
    binary,
    patch: hunks(ops),
    before,
    after,
  };
}

/** Git's default rename threshold (`-M50%`): an added file this similar to a removed one is that file, renamed. */
const RENAME_SIMILARITY = 50;

/** Percent of lines two texts share (unchanged lines of the edit script over the longer text). */
function similarity(before: string, after: string): number {
  if (before === after) return 100;
  if (isBinary(before) || isBinary(after)) return 0;
  const a = splitLines(before);
  const b = splitLines(after);
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 100;
  const common = editScript(a, b).filter((op) => op.kind === ' ').length;
  return Math.floor((common * 100) / longer);
}

/**
 * Files that differ between two trees, sorted by path. As GitHub does, a removed file and an
 * added file at least half alike are one file renamed (`status: renamed`, `previous_filename`),
 * its patch against the old content; the most similar pairs first.
 */
export function diffTrees(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): FileDiff[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changed = paths.filter((path) => before[path] !== after[path]);
  const removed = changed.filter((path) => after[path] === undefined);
  const added = changed.filter((path) => before[path] === undefined);
  const pairs = added
    .flatMap((to) => removed.map((from) => ({ from, to, score: similarity(before[from]!, after[to]!) })))
    .filter((p) => p.score >= RENAME_SIMILARITY)
    .sort((x, y) => y.score - x.score || x.to.localeCompare(y.to) || x.from.localeCompare(y.from));
  const renamedTo = new Map<string, { from: string; score: number }>();
  const taken = new Set<string>();
  for (const p of pairs) {
    if (renamedTo.has(p.to) || taken.has(p.from)) continue;
    renamedTo.set(p.to, p);
    taken.add(p.from);
  }
  return changed
    .filter((path) => !taken.has(path))
    .map((path) => {
      const rename = renamedTo.get(path);
      if (!rename) return diffFile(path, before[path], after[path]);
      const diff = diffFile(path, before[rename.from], after[path]);
      return {
        ...diff,
        status: 'renamed' as const,
        previous_filename: rename.from,
        similarity: rename.score,
        ...(diff.patch === '' ? { patch: undefined } : {}),
      };
    });
}

/** The whole diff as `git diff` prints it (what `Accept: application/vnd.github.diff` returns). */
export function renderUnifiedDiff(files: FileDiff[]): string {
  const parts = files.map((file) => {
    const old = file.previous_filename ?? file.filename;
    const a = file.status === 'added' ? '/dev/null' : `a/${old}`;
    const b = file.status === 'removed' ? '/dev/null' : `b/${file.filename}`;
    const header = [`diff --git a/${old} b/${file.filename}`];
    if (file.status === 'added') header.push('new file mode 100644');
    if (file.status === 'removed') header.push('deleted file mode 100644');
    if (file.previous_filename !== undefined) {
      header.push(
        `similarity index ${file.similarity ?? 100}%`,
        `rename from ${file.previous_filename}`,
        `rename to ${file.filename}`,
      );
      // A file renamed and not changed has no hunks: git prints no ---/+++ lines for it.
      if (file.patch === undefined && !file.binary) return header.join('\n');
    }
    if (file.binary) return [...header, `Binary files ${a} and ${b} differ`].join('\n');
    return [...header, `--- ${a}`, `+++ ${b}`, file.patch ?? ''].join('\n');
  });
  return parts.length === 0 ? '' : parts.join('\n') + '\n';
}

/** Lines in a rendered diff, for GitHub's "diff too large" limit. */
export const diffLineCount = (files: FileDiff[]): number => files.reduce((sum, file) => sum + file.changes + 4, 0);

/** GitHub's diff limit within one answer that lists files (compare, a page of a PR's files). */
export const ANSWER_DIFF_MAX_LINES = 20_000;

/**
 * Files as one answer lists them: once the patches already in the answer add up to the diff
 * limit, each further file reads 0 additions, 0 deletions and no patch (GitHub does not mark it,
 * so it looks like a binary file).
 */
export function withinAnswerLimit(files: FileDiff[]): FileDiff[] {
  let lines = 0;
  return files.map((file) => {
    if (lines >= ANSWER_DIFF_MAX_LINES) return { ...file, additions: 0, deletions: 0, changes: 0, patch: undefined };
    if (file.patch !== undefined && file.patch !== '') lines += file.patch.split('\n').length;
    return file;
  });
}
