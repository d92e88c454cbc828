// What one acceptance call over a candidate set reads (DESIGN.md section 6, "Composite candidate"):
// every member's patch and head files as if they were one candidate's, each path prefixed by its
// repository (`acme/api:src/x.ts`). The result feeds buildAcceptanceContext unchanged, so a set
// gets the same byte and file budget as a single candidate, and verifyCitation checks a citation
// against the member its path names: a quote that exists only in another member is not found. Pure.
import type { PatchRow } from '../store/types.ts';
import type { HeadFile } from '../core/head-files.ts';

/** One member's material, as gathered for a single candidate. */
export interface SetMemberMaterial {
  /** `owner/name` of the member's repository. */
  repo: string;
  pr: number;
  headSha: string;
  patch: PatchRow;
  headFiles: Map<string, HeadFile>;
}

/** `acme/api:src/x.ts`: how a set's material names a member's file. */
export const setPath = (repo: string, path: string): string => `${repo}:${path}`;

/** The repository and path of a set path, or null when it names no repository. */
export function splitSetPath(path: string): { repo: string; path: string } | null {
  const m = /^([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+):(.+)$/.exec(path.trim());
  return m ? { repo: m[1]!, path: m[2]! } : null;
}

const sideOf = (p: string, repo: string): string => {
  if (p === '/dev/null') return p;
  const m = /^([ab])\/(.*)$/.exec(p);
  return m ? `${m[1]}/${setPath(repo, m[2]!)}` : setPath(repo, p);
};

/**
 * A unified diff with every file header's paths prefixed by `repo` (`diff --git`, `---`, `+++`,
 * `rename from/to`); hunk lines are left as they are, so a removed line that reads `--- x` stays one.
 */
export function prefixDiff(diff: string, repo: string): string {
  let header = false;
  return diff
    .split('\n')
    .map((line) => {
      if (line.startsWith('diff --git ')) {
        header = true;
        const m = /^diff --git a\/(.+) b\/(.+)$/.exec(line);
        return m ? `diff --git a/${setPath(repo, m[1]!)} b/${setPath(repo, m[2]!)}` : line;
      }
      if (line.startsWith('@@ ')) header = false;
      if (!header) return line;
      if (line.startsWith('--- ') || line.startsWith('+++ ')) {
        const [path, ...rest] = line.slice(4).split('\t');
        return `${line.slice(0, 4)}${[sideOf(path!, repo), ...rest].join('\t')}`;
      }
      for (const lead of ['rename from ', 'rename to '])
        if (line.startsWith(lead)) return `${lead}${setPath(repo, line.slice(lead.length))}`;
      return line;
    })
    .join('\n');
}

/**
 * The members' patches as one patch row and their head files as one map, every path prefixed by
 * its member's repository, members in the set's order. The row stands for the set: its `pr` is the
 * first member's, its head the members' heads joined.
 */
export function setMaterial(members: readonly SetMemberMaterial[]): {
  patch: PatchRow;
  headFiles: Map<string, HeadFile>;
} {
  const first = members[0];
  const patches = members.map((m) => prefixDiff(m.patch.patch, m.repo));
  const patch: PatchRow = {
    repo: first?.repo ?? '',
    pr: first?.pr ?? 0,
    headSha: members.map((m) => m.headSha).join(','),
    mergeBase: members.map((m) => m.patch.mergeBase).join(','),
    patch: patches.map((p) => (p === '' || p.endsWith('\n') ? p : `${p}\n`)).join(''),
    truncated: members.some((m) => m.patch.truncated),
    files: members.flatMap((m) => m.patch.files.map((f) => ({ ...f, path: setPath(m.repo, f.path) }))),
  };
  // Changed files of every member first (in member order), then the rest: the context keeps that priority.
  const changed = new Set(patch.files.map((f) => f.path));
  const all: [string, HeadFile][] = members.flatMap((m) =>
    [...m.headFiles].map(([p, f]): [string, HeadFile] => [setPath(m.repo, p), f]),
  );
  const headFiles = new Map([...all.filter(([p]) => changed.has(p)), ...all.filter(([p]) => !changed.has(p))]);
  return { patch, headFiles };
}
