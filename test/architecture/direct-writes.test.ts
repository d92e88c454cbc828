// Nothing writes but the executor (issue 26 item 1): in src/workflows/ and src/handlers/, a GitHub
// port write, a store write or a call of a write helper (writeCheck, writeReply, claim, claimOnce)
// outside the executor (execute.ts, execute-checks.ts, execute-records.ts, execute-combine.ts) is a
// direct write, and fails the test: none is left (issue 26's 122 became actions). The list below
// stays, empty, for a write that must wait a session to move: it may only shrink. The count is
// printed on every run. (A job sent to the queue is the next step's start, not a write: the
// dashboard's debounced refresh and the sweep after a rate limit.)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { directWrites } from './direct-writes.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The executor: its GitHub writes, its check runs, its store records and the combined branch's writes. */
const EXECUTOR = [
  'src/workflows/execute.ts',
  'src/workflows/execute-checks.ts',
  'src/workflows/execute-records.ts',
  'src/workflows/execute-combine.ts',
];

function listTs(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return listTs(path);
      return path.endsWith('.ts') ? [path] : [];
    });
}

/** Direct writes still to become action kinds, by file (how many): none. Shrink only. */
const NOT_YET_MOVED: Record<string, number> = {};

const byFile = (found: string[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const f of found) {
    const file = f.slice(0, f.indexOf(':'));
    counts[file] = (counts[file] ?? 0) + 1;
  }
  return counts;
};

describe('only the executor writes', () => {
  it('no new direct GitHub or store write in src/workflows/ or src/handlers/', () => {
    const found = ['src/workflows', 'src/handlers']
      .flatMap((dir) => listTs(join(ROOT, dir)))
      .map((f) => relative(ROOT, f))
      .filter((f) => !EXECUTOR.includes(f))
      .flatMap((f) => directWrites(f, readFileSync(join(ROOT, f), 'utf8')));
    console.log(`direct writes outside the executor: ${found.length}\n  ${found.join('\n  ')}`);
    expect(byFile(found)).toEqual(NOT_YET_MOVED);
  });

  it('the check finds a port write, a store write and a write helper, and no read', () => {
    const text = [
      'await ctx.gh.addLabels(pr, [LABEL]);',
      'await gh.branches.createBranch(branch, sha);',
      'await ctx.deps.store.setChangeState(ctx.key, 7, "human");',
      'const row = await store.getCandidate(ctx.key, 7);',
      'const pulls = await ctx.gh.readGroup([1, 2]);',
      'await writeCheck(ctx, check);',
      'await executePlan(ctx, [{ kind: "label", key, issue: pr, labels: [LABEL] }]);',
    ].join('\n');
    expect(directWrites('x.ts', text)).toEqual([
      'x.ts:1: ctx.gh.addLabels',
      'x.ts:2: gh.branches.createBranch',
      'x.ts:3: ctx.deps.store.setChangeState',
      'x.ts:6: writeCheck',
    ]);
  });
});
