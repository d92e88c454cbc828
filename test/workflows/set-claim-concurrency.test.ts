// A candidate set's acceptance judgement under concurrency (DESIGN.md section 6, "Composite
// candidate"; section 2 step 3): two runs that plan the same set at the same heads (two webhook
// deliveries on two replicas, or one delivery handled twice) call the model once and record one
// judgement; the other run leaves the set unjudged for the claimant to finish; a retry of the
// claimant (its token) after a crash judges again. The members live in three repositories of one
// installation on the GitHub emulator (in process); the store is PGlite (one connection, runs
// interleaved) and the real PostgreSQL, where the two runs use two stores (two pools, as two
// replicas do). A model that holds each call until the other run has called too or finished makes
// the overlap certain: without the claim both runs reach the model.
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { getRepoConfig } from '../../src/config/check.ts';
import { setAcceptance } from '../../src/core/candidate-set.ts';
import type { Deps } from '../../src/deps.ts';
import { arbiterOctokit, pacing } from '../../src/github/client.ts';
import type { CompletionRequest, CompletionResult, LlmClient } from '../../src/llm/types.ts';
import { createStore, type StoreWithDb } from '../../src/store/store.ts';
import type { Store } from '../../src/store/types.ts';
import { readSetRecord } from '../../src/workflows/candidate-set-store.ts';
import { noteSetMember, replanSetOfHead } from '../../src/workflows/candidate-set.ts';
import { gatewayFor, repoContext, type RepoContext } from '../../src/workflows/context.ts';
import { GitHubEmulator } from '../../sim/github/index.ts';
import { openBackend, TEST_DATABASE_URL, type BackendName } from '../store/backends.ts';
import { recordingQueue, silentLog } from '../support/selection-world.ts';

const EPOCH = Date.parse('2026-03-02T09:00:00Z');
const APP = 'acme/app';
const API = 'acme/api';
const UI = 'acme/ui';
const CHANGE = { repo: APP, number: 42 };
const ACCEPTANCE = 'Arbiter / acceptance';
const QUOTE = 'export const search = (q: string) => index.find(q);';
const FIRST_BODY = 'Candidate-for: acme/app#42\nCandidate-set: search\nParts: acme/api#7, acme/ui#9';
const LATER_BODY = 'Candidate-for: acme/app#42\nCandidate-set: search';

/** An app's JWT as the emulator reads it (no public key given: the signature is not checked). */
const unsignedJwt = (appId: number): string => {
  const part = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
  const at = Math.floor(EPOCH / 1000);
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss: appId, iat: at - 30, exp: at + 540 })}.unsigned`;
};

/** Three repositories, a Change in acme/app and a set of an acme/api and an acme/ui member, their `test` running. */
async function startGitHub(): Promise<{ emulator: GitHubEmulator; token: string; api: string; ui: string }> {
  const emulator = await GitHubEmulator.start({
    webhookUrl: null,
    webhookSecret: 'set-claim',
    appId: 5,
    appSlug: 'arbiter',
    now: () => EPOCH,
  });
  const config = { '.github/arbiter.yml': 'gate: { required: [test] }\n' };
  emulator.createRepo({ owner: 'acme', name: 'app', files: { ...config, 'src/app.ts': 'export {};\n' } });
  emulator.createRepo({
    owner: 'acme',
    name: 'api',
    files: { ...config, 'src/search.ts': 'export const search = () => [];\n' },
  });
  emulator.createRepo({
    owner: 'acme',
    name: 'ui',
    files: { ...config, 'src/box.ts': "export const box = () => '';\n" },
  });
  await emulator.openIssue(APP, {
    number: 42,
    title: 'Search',
    body: '## Acceptance criteria\n- The API answers a search query from the index\n',
    user: 'requester',
  });
  const api = emulator.commit(API, 'agent/api', { files: { 'src/search.ts': `${QUOTE}\n` }, from: 'main' });
  const ui = emulator.commit(UI, 'agent/ui', {
    files: { 'src/box.ts': "export const box = () => 'list';\n" },
    from: 'main',
  });
  await emulator.openPullRequest(API, {
    number: 7,
    head: 'agent/api',
    title: 'Search API',
    body: FIRST_BODY,
    user: 'requester',
    draft: true,
  });
  await emulator.openPullRequest(UI, {
    number: 9,
    head: 'agent/ui',
    title: 'Search box',
    body: LATER_BODY,
    user: 'requester',
    draft: true,
  });
  await emulator.startCheck(API, api, 'test');
  await emulator.startCheck(UI, ui, 'test');
  const answer = await fetch(`${emulator.url}/app/installations/1/access_tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${unsignedJwt(5)}`, accept: 'application/vnd.github+json' },
  });
  const { token } = (await answer.json()) as { token: string };
  return { emulator, token, api, ui };
}

/**
 * A model that answers the set's acceptance call (AC1 met, quoting the acme/api member; a later
 * call says not met, so a second judgement would show), holding each call until `runs` runs have
 * called or finished. `failFirst`: the first call throws (the run dies there, as a killed job does).
 */
function heldModel(runs: number, opts: { failFirst?: boolean } = {}) {
  const calls: CompletionRequest[] = [];
  let ended = 0;
  const waiting: (() => void)[] = [];
  const wake = (): void => {
    if (calls.length + ended >= runs) for (const go of waiting.splice(0)) go();
  };
  const llm: LlmClient & { calls: CompletionRequest[]; runEnded(): void } = {
    calls,
    runEnded() {
      ended += 1;
      wake();
    },
    async complete(req): Promise<CompletionResult> {
      calls.push(req);
      const n = calls.length;
      await new Promise<void>((go) => {
        waiting.push(go);
        wake();
      });
      if (opts.failFirst && n === 1) throw new Error('the job was killed during the model call');
      const json = {
        criteria: [
          n === 1 || (opts.failFirst && n === 2)
            ? { id: 'AC1', status: 'met', path: 'acme/api:src/search.ts', quote: QUOTE, reason: '' }
            : { id: 'AC1', status: 'not_met', reason: 'a second judgement' },
        ],
      };
      return { ok: true, text: JSON.stringify(json), json, model: req.model, usage: { input: 10, output: 10 } };
    },
  };
  return llm;
}

interface Setup {
  emulator: GitHubEmulator;
  api: string;
  ui: string;
  /** A run's context in `repo` under `token`, over `store` (a replica's pool). */
  ctx(repo: string, token: string, store: Store, llm: LlmClient): Promise<RepoContext>;
}

async function setUp(): Promise<Setup> {
  const gh = await startGitHub();
  const Octokit = arbiterOctokit(pacing(0.01));
  const clock = new ManualClock(EPOCH);
  const queue = recordingQueue();
  const ctx = async (repo: string, runToken: string, store: Store, llm: LlmClient): Promise<RepoContext> => {
    const deps: Deps = {
      store,
      queue,
      clock,
      llm,
      log: silentLog,
      octokitFor: async () => new Octokit({ auth: { token: gh.token }, baseUrl: gh.emulator.url }),
      appSlug: 'arbiter',
    };
    const [owner, name] = repo.split('/') as [string, string];
    const port = await gatewayFor(deps, 1, owner, name);
    const config = await getRepoConfig(deps, port, { owner, repo: name });
    if (config === null) throw new Error(`${repo}: the config does not validate`);
    return repoContext(deps, { owner, repo: name, installationId: 1, config, token: runToken, gh: port });
  };
  return { emulator: gh.emulator, api: gh.api, ui: gh.ui, ctx };
}

/** Records the set as a candidate whose members' checks still run (one run at a time: nothing to judge yet). */
async function recordSet(s: Setup, store: Store): Promise<void> {
  const idle = heldModel(1);
  await noteSetMember(await s.ctx(API, 'delivery:open-7', store, idle), { number: 7, body: FIRST_BODY });
  await noteSetMember(await s.ctx(UI, 'delivery:open-9', store, idle), { number: 9, body: LATER_BODY });
  const record = await readSetRecord(await s.ctx(APP, 'read', store, idle), CHANGE, 'search');
  expect(record).toMatchObject({ state: 'candidate', gate: { settled: false } });
  expect(idle.calls).toEqual([]);
}

const acceptanceRuns = (s: Setup, repo: string): number =>
  s.emulator.checkRuns(repo).filter((r) => r.name === ACCEPTANCE).length;

/** A run that tells the model when it ends, whatever its end. */
const run = async (llm: ReturnType<typeof heldModel>, work: () => Promise<unknown>): Promise<void> => {
  try {
    await work();
  } finally {
    llm.runEnded();
  }
};

async function expectJudgedOnce(
  s: Setup,
  store: Store,
  llm: ReturnType<typeof heldModel>,
  calls: number,
): Promise<void> {
  const record = await readSetRecord(await s.ctx(APP, 'read', store, llm), CHANGE, 'search');
  expect(record?.state).toBe('candidate');
  expect(record?.gate).toMatchObject({ settled: true, promotable: true });
  // The one judgement stands (a second call answers "not met", and would have replaced it).
  expect(setAcceptance(record!)?.results.map((r) => [r.id, r.status])).toEqual([['AC1', 'met']]);
  expect(llm.calls.filter((c) => c.kind === 'acceptance')).toHaveLength(calls);
  // Each member's `Arbiter / acceptance` check: written once, saying the set met its criterion.
  expect([acceptanceRuns(s, API), acceptanceRuns(s, UI)]).toEqual([1, 1]);
  expect(s.emulator.state(UI).prs[9]?.checks[ACCEPTANCE]).toMatchObject({ conclusion: 'success' });
}

describe.each<BackendName>(['pglite', 'postgres'])('a set’s acceptance judgement, claimed once (%s)', (backend) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  /** The store of each replica: one PGlite store, or two pools on one PostgreSQL schema. */
  async function stores(tag: string): Promise<[Store, Store]> {
    const opened = await openBackend(backend, tag);
    cleanup.push(() => opened.dispose());
    if (backend === 'pglite') return [opened.store, opened.store];
    const second: StoreWithDb = await createStore({ databaseUrl: TEST_DATABASE_URL, schema: opened.where });
    cleanup.push(() => second.close());
    return [opened.store, second];
  }

  async function world(tag: string): Promise<{ s: Setup; a: Store; b: Store }> {
    const s = await setUp();
    cleanup.push(() => s.emulator.stop());
    const [a, b] = await stores(tag);
    await recordSet(s, a);
    return { s, a, b };
  }

  it(
    'two members’ checks conclude at once on two replicas: one model call, one judgement',
    { timeout: 60_000 },
    async () => {
      const { s, a, b } = await world('set-claim-two');
      await s.emulator.completeCheck(API, s.api, 'test', 'success');
      await s.emulator.completeCheck(UI, s.ui, 'test', 'success');
      const llm = heldModel(2);
      const [one, two] = await Promise.all([
        s.ctx(API, 'delivery:check-7', a, llm),
        s.ctx(UI, 'delivery:check-9', b, llm),
      ]);
      await Promise.all([run(llm, () => replanSetOfHead(one, s.api)), run(llm, () => replanSetOfHead(two, s.ui))]);
      await expectJudgedOnce(s, a, llm, 1);
    },
  );

  it(
    'one delivery handled twice at once (a redelivery): one model call, one judgement',
    { timeout: 60_000 },
    async () => {
      const { s, a, b } = await world('set-claim-redelivery');
      await s.emulator.completeCheck(API, s.api, 'test', 'success');
      await s.emulator.completeCheck(UI, s.ui, 'test', 'success');
      const llm = heldModel(2);
      const [one, two] = await Promise.all([
        s.ctx(API, 'delivery:d-1', a, llm),
        s.ctx(API, 'delivery:d-1-again', b, llm),
      ]);
      await Promise.all([
        run(llm, () => noteSetMember(one, { number: 7, body: FIRST_BODY })),
        run(llm, () => noteSetMember(two, { number: 7, body: FIRST_BODY })),
      ]);
      await expectJudgedOnce(s, a, llm, 1);
    },
  );

  it(
    'the claimant dies in its model call: another run does not judge, the claimant’s retry does',
    { timeout: 60_000 },
    async () => {
      const { s, a, b } = await world('set-claim-retry');
      await s.emulator.completeCheck(API, s.api, 'test', 'success');
      await s.emulator.completeCheck(UI, s.ui, 'test', 'success');
      const llm = heldModel(1, { failFirst: true });
      await expect(replanSetOfHead(await s.ctx(API, 'delivery:d-2', a, llm), s.api)).rejects.toThrow(/killed/);
      // Another delivery meanwhile (on the other replica): the set stays unjudged, no model call.
      await replanSetOfHead(await s.ctx(UI, 'delivery:d-3', b, llm), s.ui);
      const waiting = await readSetRecord(await s.ctx(APP, 'read', a, llm), CHANGE, 'search');
      expect(waiting && setAcceptance(waiting)).toBeNull();
      expect(llm.calls).toHaveLength(1);
      // The killed job's retry (its token) judges the set.
      await replanSetOfHead(await s.ctx(API, 'delivery:d-2', b, llm), s.api);
      await expectJudgedOnce(s, a, llm, 2);
    },
  );
});
