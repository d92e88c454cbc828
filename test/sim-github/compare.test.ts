// The emulator's comparison as GitHub answers it (files with their patches, at most 300, none past
// the answer's diff limit), and fetchPatch's one-request patch from it: the same files and hunks
// as the pull request's `.diff`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from '../../src/core/unified-diff.ts';
import { fetchPatch, type RestClient } from '../../src/github/patch-reads.ts';
import { startHarness, type Harness } from './harness.ts';

const OWNER = 'acme';
const NAME = 'compare';
const REPO = `${OWNER}/${NAME}`;
let h: Harness;

const lines = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag} ${i}`).join('\n') + '\n';

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({
    owner: OWNER,
    name: NAME,
    files: {
      'src/app.ts': lines(12, 'app'),
      'src/list.ts': lines(10, 'list'),
      'docs/old.md': 'old\n',
    },
  });
  h.emulator.commit(REPO, 'agent/text', {
    files: {
      'src/app.ts': lines(12, 'app').replace('app 5\n', 'app five\n'),
      'src/board.ts': lines(10, 'list').replace('list 9\n', 'board 9\n'),
      'src/new.ts': 'export const n = 1;\n',
    },
    deleted: ['src/list.ts', 'docs/old.md'],
    from: 'main',
  });
  await h.emulator.openPullRequest(REPO, { number: 2, head: 'agent/text', title: 'Text', body: '', user: 'agent' });
  h.emulator.commit(REPO, 'agent/wide', {
    files: Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`many/f${i}.txt`, `${i}\n`])),
    from: 'main',
  });
  h.emulator.commit(REPO, 'agent/long', {
    files: { 'a/big.txt': lines(20_001, 'row'), 'b/small.txt': 'small\n', 'c/logo.png': 'PNG\0' },
    from: 'main',
  });
  await h.emulator.openPullRequest(REPO, { number: 3, head: 'agent/long', title: 'Long', body: '', user: 'agent' });
});

afterAll(async () => {
  await h.stop();
});

const compare = (basehead: string) =>
  h.octokit.repos.compareCommitsWithBasehead({ owner: OWNER, repo: NAME, basehead });

/** The client fetchPatch sees, recording each route it asks for. */
const recording = (routes: string[]): RestClient => ({
  request: (route, params) => {
    routes.push(route);
    return h.octokit.request(route, params);
  },
});

describe('compare', () => {
  it('lists the changed files with status, counts, previous_filename and patch', async () => {
    const { data } = await compare('main...agent/text');
    const byName = Object.fromEntries((data.files ?? []).map((f) => [f.filename, f]));
    expect(byName['src/board.ts']).toMatchObject({ status: 'renamed', previous_filename: 'src/list.ts' });
    expect(byName['src/app.ts']).toMatchObject({ status: 'modified', additions: 1, deletions: 1 });
    expect(byName['src/app.ts']?.patch).toContain('-app 5\n+app five');
    expect(byName['docs/old.md']).toMatchObject({ status: 'removed', additions: 0, deletions: 1 });
  });

  it('lists at most 300 files', async () => {
    const { data } = await compare('main...agent/wide');
    expect(data.files).toHaveLength(300);
  });

  it('past the diff limit of the answer, a file reads 0 changes and no patch, like a binary one', async () => {
    const { data } = await compare('main...agent/long');
    const byName = Object.fromEntries((data.files ?? []).map((f) => [f.filename, f]));
    expect(byName['a/big.txt']).toMatchObject({ additions: 20_001 });
    expect(byName['b/small.txt']).toMatchObject({ additions: 0, deletions: 0, changes: 0 });
    expect(byName['b/small.txt']?.patch).toBeUndefined();
    expect(byName['c/logo.png']?.patch).toBeUndefined();
  });
});

describe('fetchPatch from the comparison', () => {
  const target = (pr: number, head: string) => ({
    owner: OWNER,
    repo: NAME,
    pr,
    baseRef: 'main',
    headSha: h.emulator.branchHead(REPO, head) ?? '',
  });

  it('takes one request, and holds the same files and hunks as the .diff', async () => {
    const routes: string[] = [];
    const row = await fetchPatch(recording(routes), target(2, 'agent/text'));
    expect(routes).toEqual(['GET /repos/{owner}/{repo}/compare/{basehead}']);
    expect(row.truncated).toBe(false);
    const diff = await h.octokit.pulls.get({ owner: OWNER, repo: NAME, pull_number: 2, mediaType: { format: 'diff' } });
    const strip = (files: ReturnType<typeof parseUnifiedDiff>) =>
      files.map(({ path, oldPath, status, additions, deletions, binary, newSide, removed }) => ({
        path,
        oldPath,
        status,
        additions,
        deletions,
        binary,
        newSide,
        removed,
      }));
    expect(strip(parseUnifiedDiff(row.patch, { keepLines: true }))).toEqual(
      strip(parseUnifiedDiff(String(diff.data), { keepLines: true })),
    );
    expect(row.files.map((f) => f.path)).toEqual(['docs/old.md', 'src/app.ts', 'src/board.ts', 'src/new.ts']);
  });

  it('a comparison with files past the limit is not trusted: the file pages say what changed', async () => {
    const routes: string[] = [];
    const row = await fetchPatch(recording(routes), target(3, 'agent/long'));
    expect(routes).toEqual([
      'GET /repos/{owner}/{repo}/compare/{basehead}',
      'GET /repos/{owner}/{repo}/pulls/{pull_number}',
      'GET /repos/{owner}/{repo}/pulls/{pull_number}/files',
    ]);
    expect(row.files.find((f) => f.path === 'c/logo.png')).toMatchObject({ binary: true });
  });
});
