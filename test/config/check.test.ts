// checkConfigOnCommit and getRepoConfig against a mocked GitHub (nock), a real Probot octokit
// and a fake store that records what it is told.
import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { CONFIG_CACHE_TTL_MS, checkConfigOnCommit, getRepoConfig, type ConfigDeps } from '../../src/config/check.ts';
import type { RepoConfigState } from '../../src/store/types.ts';
import { API, CONTENTS, makeGitHub } from './octokit.ts';

const RAW = { 'content-type': 'application/vnd.github.raw; charset=utf-8' };
const SHA = 'a'.repeat(40);
const RUNS = `/repos/acme/todo/commits/${SHA}/check-runs`;

class FakeStore {
  readonly calls: string[] = [];
  private readonly cached = new Map<string, { config: unknown; loadedAt: string }>();
  constructor(private readonly valid = new Map<string, boolean>()) {}
  async setConfigValid(repo: string, valid: boolean, detail: string): Promise<void> {
    this.valid.set(repo, valid);
    if (!valid) this.cached.delete(repo);
    this.calls.push(`${repo}:${valid ? 'valid' : 'invalid'}:${detail.split('\n')[0]}`);
  }
  async markConfigInvalid(repo: string, detail: string, generation: number): Promise<boolean> {
    if (generation !== 0) return false; // this fake never moves its generation
    await this.setConfigValid(repo, false, detail);
    return true;
  }
  async isConfigValid(repo: string): Promise<boolean> {
    return this.valid.get(repo) ?? true;
  }
  async getConfigState(repo: string): Promise<RepoConfigState> {
    const cached = this.cached.get(repo);
    return {
      valid: this.valid.get(repo) ?? true,
      config: cached?.config ?? null,
      loadedAt: cached?.loadedAt ?? null,
      generation: 0,
    };
  }
  async cacheConfig(repo: string, { config, loadedAt }: { config: unknown; loadedAt: string }): Promise<boolean> {
    this.cached.set(repo, { config, loadedAt });
    this.calls.push(`${repo}:cached at ${loadedAt}`);
    return true;
  }
}

const makeDeps = (store = new FakeStore()): ConfigDeps & { store: FakeStore; clock: ManualClock } => ({
  store,
  clock: new ManualClock(Date.UTC(2026, 0, 2, 3, 4, 5)),
  log: { info: () => undefined, warn: () => undefined },
  appSlug: 'arbiter',
});

interface CheckRunBody {
  name?: string;
  head_sha?: string;
  status: string;
  conclusion: string;
  completed_at: string;
  output: { title: string; summary: string; annotations?: { path: string; start_line: number; message: string }[] };
}
const capture = () => {
  const bodies: CheckRunBody[] = [];
  return {
    bodies,
    record: (body: CheckRunBody) => {
      bodies.push(body);
      return true;
    },
  };
};

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(() => {
  nock.cleanAll();
});

const input = { owner: 'acme', repo: 'todo', sha: SHA, ref: 'refs/heads/main', defaultBranch: 'main' };

describe('checkConfigOnCommit', () => {
  // The default branch's head is the commit checked, unless a test says otherwise.
  let head = SHA;
  beforeEach(() => {
    head = SHA;
    nock(API)
      .persist()
      .get('/repos/acme/todo/branches/main')
      .reply(200, () => ({ name: 'main', commit: { sha: head } }));
  });
  it('turns an invalid file into a failing Arbiter / config check that names each key and line', async () => {
    const text =
      'mode: live\ngate:\n  required: [test]\n  requird: [lint]\nacceptance:\n  maxFiles: 10\n  maxBytes: twenty\n';
    const posted = capture();
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query({ ref: SHA })
      .reply(200, text, RAW)
      .get(RUNS)
      .query({ check_name: 'Arbiter / config' })
      .reply(200, { total_count: 0, check_runs: [] })
      .post('/repos/acme/todo/check-runs', posted.record)
      .reply(201, { id: 7 });
    const deps = makeDeps();
    const result = await checkConfigOnCommit(deps, makeGitHub(), input);
    expect(result).toEqual({ ok: false });
    const [body] = posted.bodies;
    expect(body).toMatchObject({ name: 'Arbiter / config', head_sha: SHA, status: 'completed', conclusion: 'failure' });
    expect(body.completed_at).toBe('2026-01-02T03:04:05.000Z');
    expect(body.output.title).toBe('Invalid .github/arbiter.yml: 2 errors');
    expect(body.output.summary).toContain('gate.requird (line 4): unknown key');
    expect(body.output.summary).toContain('acceptance.maxBytes (line 7): expected a number, got "twenty"');
    expect(body.output.annotations?.map((a) => [a.path, a.start_line])).toEqual([
      ['.github/arbiter.yml', 4],
      ['.github/arbiter.yml', 7],
    ]);
    expect(deps.store.calls).toEqual([`acme/todo:invalid:invalid at ${SHA}:`]);
    scope.done();
  });

  it('refuses an unknown top-level key the same way', async () => {
    const posted = capture();
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query(true)
      .reply(200, 'mode: live\nautomerge: true\n', RAW)
      .get(RUNS)
      .query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post('/repos/acme/todo/check-runs', posted.record)
      .reply(201, { id: 8 });
    const deps = makeDeps();
    expect(await checkConfigOnCommit(deps, makeGitHub(), input)).toEqual({ ok: false });
    expect(posted.bodies[0].conclusion).toBe('failure');
    expect(posted.bodies[0].output.title).toBe('Invalid .github/arbiter.yml: 1 error');
    expect(posted.bodies[0].output.summary).toContain('automerge (line 2): unknown key');
    expect(deps.store.calls).toHaveLength(1);
    expect(await deps.store.isConfigValid('acme/todo')).toBe(false);
    scope.done();
  });

  it('reports a YAML syntax error with its line', async () => {
    const posted = capture();
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query(true)
      .reply(200, 'mode: live\nfoo: a: b\n', RAW)
      .get(RUNS)
      .query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post('/repos/acme/todo/check-runs', posted.record)
      .reply(201, { id: 9 });
    await checkConfigOnCommit(makeDeps(), makeGitHub(), input);
    expect(posted.bodies[0].output.summary).toMatch(/\.github\/arbiter\.yml \(line 2\): invalid YAML: /);
    expect(posted.bodies[0].output.annotations?.[0]).toMatchObject({ path: '.github/arbiter.yml', start_line: 2 });
    scope.done();
  });

  it('merges an `_extends` base from the organisation .github repository and passes', async () => {
    const posted = capture();
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query({ ref: SHA })
      .times(2)
      .reply(200, '_extends: .github\nmode: shadow\n', RAW)
      .get(CONTENTS('acme', '.github'))
      .reply(200, 'gate:\n  required: [ci]\n', RAW)
      .get(RUNS)
      .query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post('/repos/acme/todo/check-runs', posted.record)
      .reply(201, { id: 10 });
    const deps = makeDeps();
    expect(await checkConfigOnCommit(deps, makeGitHub(), input)).toEqual({ ok: true });
    expect(posted.bodies[0]).toMatchObject({ conclusion: 'success', output: { title: 'Configuration is valid' } });
    expect(posted.bodies[0].output.summary).toContain('acme/.github:.github/arbiter.yml');
    expect(posted.bodies[0].output.annotations).toBeUndefined();
    // On the default branch the result is recorded as the repository's validity; the cached
    // config is left to the next read of the branch as it is then.
    expect(deps.store.calls).toEqual([`acme/todo:valid:valid at ${SHA}`]);
    scope.done();
  });

  it('updates its existing check run instead of adding a second one', async () => {
    const patched = capture();
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query(true)
      .reply(200, 'mode: shadow\n', RAW)
      .get(RUNS)
      .query(true)
      .reply(200, {
        total_count: 2,
        check_runs: [
          {
            id: 40,
            name: 'Arbiter / config',
            status: 'completed',
            conclusion: 'success',
            output: { title: 'x', summary: 'y' },
            app: { slug: 'someone-else' },
          },
          {
            id: 41,
            name: 'Arbiter / config',
            status: 'completed',
            conclusion: 'failure',
            output: { title: 'old', summary: 'old' },
            app: { slug: 'arbiter' },
          },
        ],
      })
      .patch('/repos/acme/todo/check-runs/41', patched.record)
      .reply(200, { id: 41 });
    expect(await checkConfigOnCommit(makeDeps(), makeGitHub(), input)).toEqual({ ok: true });
    expect(patched.bodies[0]).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      output: { title: 'Configuration is valid' },
    });
    scope.done();
  });

  it('writes nothing when its check run already shows the same result (a redelivery)', async () => {
    const first = capture();
    const text = 'mode: live\nmode2: x\n';
    const octokit = makeGitHub();
    const scope1 = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query(true)
      .reply(200, text, RAW)
      .get(RUNS)
      .query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post('/repos/acme/todo/check-runs', first.record)
      .reply(201, { id: 50 });
    await checkConfigOnCommit(makeDeps(), octokit, input);
    scope1.done();
    const { output, conclusion } = first.bodies[0];
    const scope2 = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query(true)
      .reply(200, text, RAW)
      .get(RUNS)
      .query(true)
      .reply(200, {
        total_count: 1,
        check_runs: [
          {
            id: 50,
            name: 'Arbiter / config',
            status: 'completed',
            conclusion,
            output: { title: output.title, summary: output.summary },
            app: { slug: 'arbiter' },
          },
        ],
      });
    expect(await checkConfigOnCommit(makeDeps(), octokit, input)).toEqual({ ok: false });
    scope2.done();
  });

  it('leaves the stored validity alone for a commit the default branch has moved past (a retried push)', async () => {
    head = 'f'.repeat(40);
    const posted = capture();
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query({ ref: SHA })
      .reply(200, 'gate: 3\n', RAW)
      .get(RUNS)
      .query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post('/repos/acme/todo/check-runs', posted.record)
      .reply(201, { id: 1 });
    const deps = makeDeps();
    // The commit still gets its failing check run; the repository's state is the newer commit's.
    expect(await checkConfigOnCommit(deps, makeGitHub(), input)).toEqual({ ok: false });
    expect(posted.bodies[0]?.conclusion).toBe('failure');
    expect(deps.store.calls).toEqual([]);
    scope.done();
  });

  it('leaves the stored state alone for a commit on another branch', async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query(true)
      .reply(200, 'mode: nope\n', RAW)
      .get(RUNS)
      .query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post('/repos/acme/todo/check-runs')
      .reply(201, { id: 60 })
      .get('/repos/acme/todo')
      .reply(200, { default_branch: 'main' });
    const deps = makeDeps();
    const { defaultBranch: _unknown, ...withoutDefault } = input;
    expect(await checkConfigOnCommit(deps, makeGitHub(), { ...withoutDefault, ref: 'refs/heads/feature' })).toEqual({
      ok: false,
    });
    expect(deps.store.calls).toEqual([]);
    scope.done();
  });
});

describe('getRepoConfig', () => {
  it('answers null without reading GitHub while the stored state is invalid', async () => {
    const deps = makeDeps(new FakeStore(new Map([['acme/todo', false]])));
    // disableNetConnect makes any request fail the test.
    expect(await getRepoConfig(deps, makeGitHub(), { owner: 'acme', repo: 'todo' })).toBeNull();
    expect(deps.store.calls).toEqual([]);
  });

  it('answers from the cached config within the TTL and reads the default branch again after it', async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .reply(200, 'mode: shadow\n', RAW)
      .get(CONTENTS('acme', 'todo'))
      .reply(200, 'mode: live\n', RAW);
    const deps = makeDeps();
    const octokit = makeGitHub();
    expect((await getRepoConfig(deps, octokit, { owner: 'acme', repo: 'todo' }))?.mode).toBe('shadow');
    deps.clock.advance(CONFIG_CACHE_TTL_MS - 1);
    expect((await getRepoConfig(deps, octokit, { owner: 'acme', repo: 'todo' }))?.mode).toBe('shadow');
    expect(scope.pendingMocks()).toHaveLength(1);
    deps.clock.advance(1);
    expect((await getRepoConfig(deps, octokit, { owner: 'acme', repo: 'todo' }))?.mode).toBe('live');
    scope.done();
  });

  it('records an invalid default-branch config it finds and answers null', async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .reply(200, 'gate: 3\n', RAW)
      .get('/repos/acme/todo')
      .reply(200, { default_branch: 'main' })
      .get('/repos/acme/todo/branches/main')
      .reply(200, { name: 'main', commit: { sha: 'a'.repeat(40) } })
      .get(`/repos/acme/todo/commits/${'a'.repeat(40)}/check-runs`)
      .query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post(
        '/repos/acme/todo/check-runs',
        (body: { conclusion: string; head_sha: string }) => body.conclusion === 'failure',
      )
      .reply(201, { id: 1 });
    const deps = makeDeps();
    expect(await getRepoConfig(deps, makeGitHub(), { owner: 'acme', repo: 'todo' })).toBeNull();
    expect(deps.store.calls).toEqual(['acme/todo:invalid:invalid on the default branch:']);
    scope.done();
  });
});
