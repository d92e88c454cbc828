// fetchPatch against a real Octokit client with GitHub mocked by nock: the comparison's own files
// when complete, else the diff, the 406 fallback to file pages, the byte bound, binary files and
// the 3,000-file cap; every failure a GitHubError with GitHub's status and words.
import { Octokit } from '@octokit/rest';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Octokit as AppOctokit } from '../../src/deps.ts';
import { GitHubError } from '../../src/github/errors.ts';
import { fetchPatch, TRUNCATION_MARK, type RestClient } from '../../src/github/patch-reads.ts';

const API = 'https://api.github.com';
const target = { owner: 'acme', repo: 'todo', pr: 12, baseRef: 'main', headSha: 'h'.repeat(40) };
const octokit = (): Octokit => new Octokit({ request: { retries: 0 } });

// The app's client type must fit the structural contract (compile-time check).
const fits = (o: AppOctokit): RestClient => o;
void fits;

const diff = [
  'diff --git a/src/kanban.ts b/src/kanban.ts',
  '--- a/src/kanban.ts',
  '+++ b/src/kanban.ts',
  '@@ -1 +1,2 @@',
  ' a',
  '+b',
  'diff --git a/logo.png b/logo.png',
  'Binary files a/logo.png and b/logo.png differ',
  '',
].join('\n');

const compare = () =>
  nock(API)
    .get('/repos/acme/todo/compare/main...' + target.headSha)
    .reply(200, { merge_base_commit: { sha: 'm'.repeat(40) } });

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

const textFiles = [
  {
    filename: 'src/kanban.ts',
    status: 'modified',
    additions: 1,
    deletions: 0,
    changes: 1,
    patch: '@@ -1 +1,2 @@\n a\n+b',
  },
  {
    filename: 'src/board.ts',
    previous_filename: 'src/list.ts',
    status: 'renamed',
    additions: 1,
    deletions: 1,
    changes: 2,
    patch: '@@ -1 +1 @@\n-x\n+y',
  },
  { filename: 'src/gone.ts', status: 'removed', additions: 1, deletions: 0, changes: 1, patch: '@@ -1 +0,0 @@\n-z' },
];
const compareWith = (files: unknown[]) =>
  nock(API)
    .get('/repos/acme/todo/compare/main...' + target.headSha)
    .reply(200, { merge_base_commit: { sha: 'm'.repeat(40) }, files });

describe('fetchPatch from the comparison', () => {
  it('builds the patch from the comparison alone when its files are complete', async () => {
    const c = compareWith(textFiles);
    const row = await fetchPatch(octokit(), target);
    c.done();
    expect(row.mergeBase).toBe('m'.repeat(40));
    expect(row.truncated).toBe(false);
    expect(row.patch).toBe(
      [
        'diff --git a/src/kanban.ts b/src/kanban.ts',
        '--- a/src/kanban.ts',
        '+++ b/src/kanban.ts',
        '@@ -1 +1,2 @@',
        ' a',
        '+b',
        'diff --git a/src/list.ts b/src/board.ts',
        'rename from src/list.ts',
        'rename to src/board.ts',
        '--- a/src/list.ts',
        '+++ b/src/board.ts',
        '@@ -1 +1 @@',
        '-x',
        '+y',
        'diff --git a/src/gone.ts b/src/gone.ts',
        'deleted file mode 100644',
        '--- a/src/gone.ts',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-z',
        '',
      ].join('\n'),
    );
    expect(row.files).toEqual([
      { path: 'src/kanban.ts', status: 'modified', additions: 1, deletions: 0, binary: false },
      { path: 'src/board.ts', status: 'renamed', additions: 1, deletions: 1, binary: false },
      { path: 'src/gone.ts', status: 'removed', additions: 1, deletions: 0, binary: false },
    ]);
  });

  it('cuts the comparison patch at the byte bound like the file pages', async () => {
    const big = Array.from({ length: 400 }, (_, i) => `+line ${i} of a long file`).join('\n');
    compareWith([
      { filename: 'src/big.ts', status: 'added', additions: 400, deletions: 0, patch: `@@ -0,0 +1,400 @@\n${big}` },
      ...textFiles,
    ]);
    const row = await fetchPatch(octokit(), target, { maxBytes: 4096 });
    expect(row.truncated).toBe(true);
    expect(Buffer.byteLength(row.patch)).toBeLessThanOrEqual(4096);
    expect(row.patch).toContain(TRUNCATION_MARK);
    expect(row.files.map((f) => f.path)).toEqual(['src/big.ts', 'src/kanban.ts', 'src/board.ts', 'src/gone.ts']);
  });

  const fallsBackToDiff = async (files: unknown[]) => {
    compareWith(files);
    const d = nock(API, { reqheaders: { accept: 'application/vnd.github.v3.diff' } })
      .get('/repos/acme/todo/pulls/12')
      .reply(200, diff, { 'content-type': 'text/plain; charset=utf-8' });
    const row = await fetchPatch(octokit(), target);
    d.done();
    expect(row.patch).toBe(diff);
  };

  it('reads the .diff when a file has no patch (binary, too large, or past the diff limit of the answer)', async () => {
    await fallsBackToDiff([...textFiles, { filename: 'logo.png', status: 'modified', additions: 0, deletions: 0 }]);
    await fallsBackToDiff([{ filename: 'data/huge.csv', status: 'modified', additions: 90000, deletions: 2 }]);
  });

  it('reads the .diff when the comparison lists 300 files (its cap), or a status it does not assemble', async () => {
    const many = Array.from({ length: 300 }, (_, i) => ({
      filename: `f/${i}.txt`,
      status: 'added',
      additions: 1,
      deletions: 0,
      patch: '@@ -0,0 +1 @@\n+x',
    }));
    await fallsBackToDiff(many);
    await fallsBackToDiff([{ ...textFiles[1], status: 'copied' }]);
  });
});

describe('fetchPatch', () => {
  it('takes the merge base from compare and the .diff of the PR', async () => {
    const c = compare();
    const d = nock(API, { reqheaders: { accept: 'application/vnd.github.v3.diff' } })
      .get('/repos/acme/todo/pulls/12')
      .reply(200, diff, { 'content-type': 'text/plain; charset=utf-8' });
    const row = await fetchPatch(octokit(), target);
    expect(row).toEqual({
      repo: 'acme/todo',
      pr: 12,
      headSha: target.headSha,
      mergeBase: 'm'.repeat(40),
      patch: diff,
      truncated: false,
      files: [
        { path: 'src/kanban.ts', status: 'modified', additions: 1, deletions: 0, binary: false },
        { path: 'logo.png', status: 'modified', additions: 0, deletions: 0, binary: true },
      ],
    });
    c.done();
    d.done();
  });

  it('assembles the patch from file pages when GitHub answers 406', async () => {
    compare();
    nock(API)
      .get('/repos/acme/todo/pulls/12')
      .reply(406, { message: 'Sorry, the diff exceeded the maximum number of files (300).' });
    const pages = nock(API)
      .get('/repos/acme/todo/pulls/12/files')
      .query({ per_page: '100', page: '1' })
      .reply(200, [
        {
          filename: 'src/a.ts',
          status: 'added',
          additions: 1,
          deletions: 0,
          patch: '@@ -0,0 +1 @@\n+export const a = 1;',
        },
        { filename: 'img/logo.png', status: 'modified', additions: 0, deletions: 0 },
        {
          filename: 'src/new.ts',
          previous_filename: 'src/old.ts',
          status: 'renamed',
          additions: 0,
          deletions: 0,
          patch: '',
        },
      ]);
    const row = await fetchPatch(octokit(), target);
    pages.done();
    expect(row.truncated).toBe(false);
    expect(row.files.map((f) => [f.path, f.status, f.binary])).toEqual([
      ['src/a.ts', 'added', false],
      ['img/logo.png', 'modified', true],
      ['src/new.ts', 'renamed', false],
    ]);
    expect(row.patch).toContain('+++ b/src/a.ts\n@@ -0,0 +1 @@\n+export const a = 1;');
    expect(row.patch).toContain('Binary files a/img/logo.png and b/img/logo.png differ');
    expect(row.patch).toContain('rename from src/old.ts\nrename to src/new.ts');
  });

  it('falls back to file pages when the diff is over the byte bound, and cuts there too', async () => {
    compare();
    nock(API)
      .get('/repos/acme/todo/pulls/12')
      .reply(200, `${diff}${'+x\n'.repeat(2000)}`);
    const big = Array.from({ length: 400 }, (_, i) => `+line ${i} of a long file`).join('\n');
    nock(API)
      .get('/repos/acme/todo/pulls/12/files')
      .query(true)
      .reply(200, [
        { filename: 'src/big.ts', status: 'added', additions: 400, deletions: 0, patch: `@@ -0,0 +1,400 @@\n${big}` },
        { filename: 'src/later.ts', status: 'added', additions: 1, deletions: 0, patch: '@@ -0,0 +1 @@\n+later' },
      ]);
    const row = await fetchPatch(octokit(), target, { maxBytes: 4096 });
    expect(row.truncated).toBe(true);
    expect(Buffer.byteLength(row.patch)).toBeLessThanOrEqual(4096);
    expect(row.patch).toContain(TRUNCATION_MARK);
    expect(row.files.map((f) => f.path)).toEqual(['src/big.ts', 'src/later.ts']);
  });

  it('reads at most 30 pages (3,000 files) and marks a full last page truncated', async () => {
    compare();
    nock(API).get('/repos/acme/todo/pulls/12').reply(406, {});
    let served = 0;
    nock(API)
      .get('/repos/acme/todo/pulls/12/files')
      .query(true)
      .times(31)
      .reply(200, () => {
        served++;
        return Array.from({ length: 100 }, (_, i) => ({
          filename: `f/${served}-${i}.txt`,
          status: 'added',
          additions: 1,
          deletions: 0,
          patch: '@@ -0,0 +1 @@\n+x',
        }));
      });
    const row = await fetchPatch(octokit(), target);
    expect(served).toBe(30);
    expect(row.files).toHaveLength(3000);
    expect(row.truncated).toBe(true);
  });

  it('names a large text file GitHub sent no patch for, and marks the patch truncated', async () => {
    compare();
    nock(API).get('/repos/acme/todo/pulls/12').reply(406, {});
    nock(API)
      .get('/repos/acme/todo/pulls/12/files')
      .query(true)
      .reply(200, [{ filename: 'data/huge.csv', status: 'modified', additions: 90000, deletions: 2 }]);
    const row = await fetchPatch(octokit(), target);
    expect(row.files[0]).toMatchObject({ path: 'data/huge.csv', binary: false });
    expect(row.truncated).toBe(true);
    expect(row.patch).toContain('diff --git a/data/huge.csv b/data/huge.csv');
  });

  it("fails as a GitHubError carrying GitHub's status and whole message", async () => {
    nock(API)
      .get('/repos/acme/todo/compare/main...' + target.headSha)
      .reply(404, { message: 'No common ancestor between main and the head' });
    const err = await fetchPatch(octokit(), target).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubError);
    expect(err).toMatchObject({ status: 404, transient: false });
    expect(err instanceof GitHubError && err.githubWords).toContain('No common ancestor between main and the head');
  });

  it('fails on a server error of the diff as a transient GitHubError (a 406 alone falls back to the file pages)', async () => {
    compare();
    nock(API).get('/repos/acme/todo/pulls/12').reply(502, { message: 'Server Error' });
    const err = await fetchPatch(octokit(), target).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubError);
    expect(err).toMatchObject({ status: 502, transient: true });
  });

  it('fails as a GitHubError when the comparison has no merge base', async () => {
    nock(API)
      .get('/repos/acme/todo/compare/main...' + target.headSha)
      .reply(200, { files: [] });
    const err = await fetchPatch(octokit(), target).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubError);
    expect(err).toMatchObject({ status: 0, transient: false });
  });
});
