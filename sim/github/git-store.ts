// The emulator's git: content-addressed commits holding whole trees (path -> text), branches,
// ancestry and merge bases. Shas are sha1 of tree, parents, author and message: stable across runs.
import { createHash } from 'node:crypto';

export interface Commit {
  sha: string;
  treeSha: string;
  tree: Readonly<Record<string, string>>;
  parents: string[];
  message: string;
  author: string;
  /** virtual ms when the commit was first made; not part of the sha */
  timestamp: number;
}

export interface Change {
  files?: Record<string, string>;
  deleted?: string[];
  /** Files moved: new path → old path. The new path keeps the old content unless `files` gives it. */
  renamed?: Record<string, string>;
  message?: string;
  author?: string;
  /** base branch or sha when the branch is new */
  from?: string;
}

export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitError';
  }
}

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

export function hashTree(tree: Readonly<Record<string, string>>): string {
  const entries = Object.keys(tree)
    .sort()
    .map((path) => `${path}\0${sha1(tree[path])}`);
  return sha1(`tree\n${entries.join('\n')}`);
}

export class GitStore {
  readonly commits = new Map<string, Commit>();
  readonly branches = new Map<string, string>();

  /** Records a commit (idempotent: the same content gives the same sha). */
  addCommit(
    tree: Record<string, string>,
    parents: string[],
    message: string,
    author: string,
    timestamp: number,
  ): Commit {
    const treeSha = hashTree(tree);
    const sha = sha1(
      `commit\ntree ${treeSha}\n${parents.map((p) => `parent ${p}\n`).join('')}author ${author}\n\n${message}`,
    );
    const existing = this.commits.get(sha);
    if (existing) return existing;
    const commit: Commit = { sha, treeSha, tree: { ...tree }, parents, message, author, timestamp };
    this.commits.set(sha, commit);
    return commit;
  }

  /** Resolves a branch name, `refs/heads/x`, a full sha or an unambiguous sha prefix (7+). */
  resolve(ref: string): string | null {
    const name = ref.replace(/^refs\/heads\//, '');
    const branch = this.branches.get(name);
    if (branch) return branch;
    if (this.commits.has(ref)) return ref;
    if (/^[0-9a-f]{7,39}$/.test(ref)) {
      const found = [...this.commits.keys()].filter((sha) => sha.startsWith(ref));
      if (found.length === 1) return found[0];
    }
    return null;
  }

  get(sha: string): Commit {
    const commit = this.commits.get(sha);
    if (!commit) throw new GitError(`no commit ${sha}`);
    return commit;
  }

  /** Applies a change on top of a branch (creating the branch from `change.from` when new). */
  commitChange(branch: string, change: Change, defaultAuthor: string, timestamp: number): Commit {
    const current = this.branches.get(branch);
    const parentSha = current ?? (change.from ? this.resolve(change.from) : null);
    if (!parentSha) throw new GitError(`branch ${branch} does not exist and no valid 'from' was given`);
    const parent = this.get(parentSha);
    const tree: Record<string, string> = { ...parent.tree };
    for (const [to, from] of Object.entries(change.renamed ?? {})) {
      const content = parent.tree[from];
      if (content === undefined)
        throw new GitError(`cannot rename ${from} to ${to}: ${from} is not a file on ${branch}`);
      delete tree[from];
      tree[to] = content;
    }
    Object.assign(tree, change.files ?? {});
    for (const path of change.deleted ?? []) delete tree[path];
    const message = change.message ?? `Update ${branch}`;
    const commit = this.addCommit(tree, [parentSha], message, change.author ?? defaultAuthor, timestamp);
    this.branches.set(branch, commit.sha);
    return commit;
  }

  ancestors(sha: string): Set<string> {
    const seen = new Set<string>();
    const stack = [sha];
    while (stack.length > 0) {
      const next = stack.pop();
      if (next === undefined || seen.has(next)) continue;
      seen.add(next);
      stack.push(...this.get(next).parents);
    }
    return seen;
  }

  isAncestor(ancestor: string, of: string): boolean {
    return this.ancestors(of).has(ancestor);
  }

  /** The nearest common ancestor, found breadth-first from `b`. */
  mergeBase(a: string, b: string): string | null {
    const fromA = this.ancestors(a);
    const queue = [b];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const next = queue.shift();
      if (next === undefined || seen.has(next)) continue;
      seen.add(next);
      if (fromA.has(next)) return next;
      queue.push(...this.get(next).parents);
    }
    return null;
  }

  /** Three-way merge of trees; null when a path changed differently on both sides. */
  mergeTrees(baseSha: string, oursSha: string, theirsSha: string): Record<string, string> | null {
    const result = this.mergeFiles(baseSha, oursSha, theirsSha);
    return result.conflicts.length > 0 ? null : result.tree;
  }

  /** File-level three-way merge: the merged tree, and the paths both sides changed differently (sorted). */
  mergeFiles(
    baseSha: string,
    oursSha: string,
    theirsSha: string,
  ): { tree: Record<string, string>; conflicts: string[] } {
    const base = this.get(baseSha).tree;
    const ours = this.get(oursSha).tree;
    const theirs = this.get(theirsSha).tree;
    const paths = new Set([...Object.keys(base), ...Object.keys(ours), ...Object.keys(theirs)]);
    const tree: Record<string, string> = {};
    const conflicts: string[] = [];
    for (const path of paths) {
      const [b, o, t] = [base[path], ours[path], theirs[path]];
      let result: string | undefined;
      if (o === t) result = o;
      else if (o === b) result = t;
      else if (t === b) result = o;
      else {
        conflicts.push(path);
        continue;
      }
      if (result !== undefined) tree[path] = result;
    }
    return { tree, conflicts: conflicts.sort() };
  }
}
