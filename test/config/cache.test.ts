// The default-branch config cached in the store, on PGlite and on PostgreSQL: one contents read
// per TTL, dropped by any push to the default branch, never trusted when it no longer parses, and
// an invalid config still stops everything.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { checkConfigOnCommit, CONFIG_CACHE_TTL_MS, getRepoConfig } from '../../src/config/check.ts';
import { onPush, type PushDeps } from '../../src/handlers/push.ts';
import { BACKENDS, openBackend, type OpenedBackend } from '../store/backends.ts';
import { API, CONTENTS, makeGitHub } from './octokit.ts';

const RAW = { 'content-type': 'application/vnd.github.raw; charset=utf-8' };
const TODO = { owner: 'acme', repo: 'todo' };
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);

/** A push to `branch` whose payload lists no commit (as when it lists only some of them). */
const pushPayload = (sha: string, branch = 'main', files: string[] = []) => ({
  ref: `refs/heads/${branch}`,
  after: sha,
  repository: { name: 'todo', owner: { login: 'acme' }, default_branch: 'main' },
  commits: files.length === 0 ? [] : [{ added: [], modified: files, removed: [] }],
});

/**
 * Answers the `Arbiter / config` check-run calls of `checkConfigOnCommit` on `sha`, keeping the
 * conclusions; the default branch's head is `sha` (a pull request's check does not ask).
 */
const configCheckRuns = (sha: string, conclusions: string[], opts: { pullRequest?: boolean } = {}) => {
  if (!opts.pullRequest) nock(API).get('/repos/acme/todo/branches/main').reply(200, { name: 'main', commit: { sha } });
  return nock(API)
    .get(`/repos/acme/todo/commits/${sha}/check-runs`)
    .query(true)
    .reply(200, { total_count: 0, check_runs: [] })
    .post('/repos/acme/todo/check-runs', (body: { conclusion: string }) => {
      conclusions.push(body.conclusion);
      return true;
    })
    .reply(201, { id: 1 });
};

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(() => {
  nock.cleanAll();
});

describe.each(BACKENDS)('the cached repository config on %s', (backend) => {
  let b: OpenedBackend;
  let clock: ManualClock;
  let deps: PushDeps;
  /** Default-branch reads answered by `serve`; any request nock has no answer for fails the read. */
  let contentReads: number;

  beforeAll(async () => {
    b = await openBackend(backend, 'config-cache');
  });
  afterAll(async () => {
    await b?.dispose();
  });
  beforeEach(async () => {
    await b.truncate();
    clock = new ManualClock(T0);
    deps = { store: b.store, clock, log: { info: () => undefined, warn: () => undefined }, appSlug: 'arbiter' };
    contentReads = 0;
  });

  /** Serves the default branch's file `times` times, counting each read. */
  const serve = (text: string, times = 1) =>
    nock(API)
      .get(CONTENTS('acme', 'todo'))
      .times(times)
      .reply(
        200,
        () => {
          contentReads += 1;
          return text;
        },
        RAW,
      );

  it('makes one contents request for two reads within the TTL (5 minutes, as docs/configuration.md says)', async () => {
    expect(CONFIG_CACHE_TTL_MS).toBe(5 * 60_000);
    const scope = serve('mode: shadow\n', 2);
    const octokit = makeGitHub();
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('shadow');
    clock.advance(CONFIG_CACHE_TTL_MS - 1000);
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('shadow');
    expect(contentReads).toBe(1);
    expect(scope.isDone()).toBe(false);
  });

  it('makes one contents request for three jobs that miss the cache at once', async () => {
    const scope = serve('mode: shadow\n', 3);
    const octokit = makeGitHub();
    const modes = await Promise.all([1, 2, 3].map(() => getRepoConfig(deps, octokit, TODO)));
    expect(modes.map((c) => c?.mode)).toEqual(['shadow', 'shadow', 'shadow']);
    expect(contentReads).toBe(1);
    expect(scope.isDone()).toBe(false);
  });

  it('reads again once the cached config is older than the TTL', async () => {
    serve('mode: shadow\n');
    const octokit = makeGitHub();
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('shadow');
    // An `_extends` base in another repository changes without a push here: the TTL bounds it.
    const scope = serve('mode: live\n');
    clock.advance(CONFIG_CACHE_TTL_MS);
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');
    expect(contentReads).toBe(2);
    scope.done();
  });

  it('reads again after any push to the default branch, whatever its commits list, and picks up the new value', async () => {
    serve('mode: shadow\n');
    const octokit = makeGitHub();
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('shadow');
    // A push elsewhere changes nothing.
    await onPush(deps, octokit, pushPayload('b'.repeat(40), 'feature', ['.github/arbiter.yml']));
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('shadow');
    expect(contentReads).toBe(1);

    await onPush(deps, octokit, pushPayload('c'.repeat(40)));
    const scope = serve('mode: live\n');
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');
    expect(contentReads).toBe(2);
    scope.done();
  });

  it('keeps the cache over a push whose payload shows every commit leaves the file alone (a merge)', async () => {
    serve('mode: shadow\n');
    const octokit = makeGitHub();
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('shadow');
    const listed = (over: Record<string, unknown>, commits = 1) => ({
      ...pushPayload('d'.repeat(40)),
      before: 'e'.repeat(40),
      commits: Array.from({ length: commits }, () => ({ added: ['src/x.ts'], modified: [], removed: [] })),
      ...over,
    });
    await onPush(deps, octokit, listed({}));
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('shadow');
    expect(contentReads).toBe(1);
    // A forced push, a new branch, a push that may list only some commits: the cache goes.
    for (const push of [listed({ forced: true }), listed({ before: '0'.repeat(40) }), listed({}, 20)]) {
      await onPush(deps, octokit, push);
      serve('mode: shadow\n');
      await getRepoConfig(deps, octokit, TODO);
    }
    expect(contentReads).toBe(4);
  });

  it('fills the cache from the default branch as it is now, never from the commit a config check read', async () => {
    const sha = 'd'.repeat(40);
    const conclusions: string[] = [];
    const checks = configCheckRuns(sha, conclusions);
    const atSha = nock(API).get(CONTENTS('acme', 'todo')).query({ ref: sha }).reply(200, 'mode: shadow\n', RAW);
    const octokit = makeGitHub();
    await onPush(deps, octokit, pushPayload(sha, 'main', ['.github/arbiter.yml']));
    checks.done();
    atSha.done();
    expect(conclusions).toEqual(['success']);
    // A retried or redelivered push may check an older commit: its config is not cached. The
    // next read takes the branch's current file.
    serve('mode: live\n');
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');
    expect(contentReads).toBe(1);
  });

  it("never takes a pull request's config for the default branch, even from a fork's branch named main", async () => {
    serve('mode: live\n');
    const octokit = makeGitHub();
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');
    for (const [i, text] of ['mode: sideways\n', 'mode: shadow\n'].entries()) {
      const sha = String(i).repeat(40);
      const conclusions: string[] = [];
      const checks = configCheckRuns(sha, conclusions, { pullRequest: true });
      nock(API).get(CONTENTS('acme', 'todo')).query({ ref: sha }).reply(200, text, RAW);
      await checkConfigOnCommit(deps, octokit, { owner: 'acme', repo: 'todo', sha, ref: 'main', pullRequest: true });
      checks.done();
      expect(conclusions).toEqual([i === 0 ? 'failure' : 'success']);
    }
    // Neither the invalid nor the valid head changed what the repository runs on.
    expect(await b.store.isConfigValid('acme/todo')).toBe(true);
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');
    expect(contentReads).toBe(1);
  });

  it('stops everything while the config is invalid, and a fixing push brings the fresh config back', async () => {
    serve('mode: live\n');
    const octokit = makeGitHub();
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');

    const bad = 'e'.repeat(40);
    const conclusions: string[] = [];
    const badChecks = configCheckRuns(bad, conclusions);
    nock(API).get(CONTENTS('acme', 'todo')).query({ ref: bad }).reply(200, 'mode: sideways\n', RAW);
    await onPush(deps, octokit, pushPayload(bad, 'main', ['.github/arbiter.yml']));
    badChecks.done();
    expect(conclusions).toEqual(['failure']);
    // Within the TTL and after it, no request and no config: the cached one went with the push.
    expect(await getRepoConfig(deps, octokit, TODO)).toBeNull();
    clock.advance(CONFIG_CACHE_TTL_MS * 3);
    expect(await getRepoConfig(deps, octokit, TODO)).toBeNull();
    expect(await b.store.isConfigValid('acme/todo')).toBe(false);

    const fixed = 'f'.repeat(40);
    const fixChecks = configCheckRuns(fixed, conclusions);
    nock(API).get(CONTENTS('acme', 'todo')).query({ ref: fixed }).reply(200, 'mode: shadow\n', RAW);
    await onPush(deps, octokit, pushPayload(fixed));
    fixChecks.done();
    expect(conclusions).toEqual(['failure', 'success']);
    serve('mode: shadow\n');
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('shadow');
    expect(contentReads).toBe(2);
  });

  it('records an invalid default-branch config it reads instead of caching it, and shows it once on the head', async () => {
    serve('gate: 3\n');
    const conclusions: string[] = [];
    nock(API).get('/repos/acme/todo').reply(200, { default_branch: 'main' });
    const runs = configCheckRuns('5'.repeat(40), conclusions);
    const octokit = makeGitHub();
    expect(await getRepoConfig(deps, octokit, TODO)).toBeNull();
    expect(await getRepoConfig(deps, octokit, TODO)).toBeNull();
    expect(contentReads).toBe(1);
    expect(await b.store.getConfigState('acme/todo')).toMatchObject({ valid: false, config: null });
    // A config broken before install: the failing check on the default branch's head, and the problem kept.
    runs.done();
    expect(conclusions).toEqual(['failure']);
    expect(await b.store.configProblems('acme/todo')).toMatch(/^gate \(line 1\): /);
  });

  it('never lets a read that began before a fixing push mark the config invalid afterwards', async () => {
    const octokit = makeGitHub();
    // The read gets the broken file, but a push that fixes it lands before the read's verdict.
    nock(API)
      .get(CONTENTS('acme', 'todo'))
      .reply(
        200,
        async () => {
          await onPush(deps, octokit, pushPayload('9'.repeat(40)));
          return 'gate: 3\n';
        },
        RAW,
      );
    expect(await getRepoConfig(deps, octokit, TODO)).toBeNull();
    expect(await b.store.isConfigValid('acme/todo')).toBe(true);
    serve('mode: shadow\n');
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('shadow');
  });

  it('reads a cached config that no longer parses again, and replaces it', async () => {
    serve('mode: shadow\n');
    const octokit = makeGitHub();
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('shadow');
    await b.store.db.query(
      `UPDATE repo_config SET config = '{"mode":"sideways","automerge":true}' WHERE repo = 'acme/todo'`,
    );

    const scope = serve('mode: live\n');
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');
    scope.done();
    expect((await getRepoConfig(deps, octokit, TODO))?.mode).toBe('live');
    expect(contentReads).toBe(2);
  });
});
