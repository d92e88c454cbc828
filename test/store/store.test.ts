// Every Store method, on PGlite and on PostgreSQL: what is written is read back, claims are
// exclusive, budgets never overdraw, bad rows are StoreErrors.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.ts';
import { BACKENDS, openBackend, type OpenedBackend } from './backends.ts';

const REPO = 'acme/todo';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:05:00.000Z';
const T2 = '2026-01-01T00:10:00.000Z';

describe.each(BACKENDS)('store on %s', (backend) => {
  let b: OpenedBackend;
  beforeAll(async () => {
    b = await openBackend(backend, 'store');
  });
  afterAll(async () => {
    await b?.dispose();
  });
  beforeEach(async () => {
    await b.truncate();
  });

  it('records a delivery once and marks it done with an error', async () => {
    const s = b.store;
    expect(await s.recordDelivery('d-1', 'pull_request', { action: 'opened', n: [1, 2] })).toBe(true);
    expect(await s.recordDelivery('d-1', 'pull_request', { action: 'other' })).toBe(false);
    expect(await s.getDelivery('d-1')).toEqual({
      id: 'd-1',
      event: 'pull_request',
      payload: { action: 'opened', n: [1, 2] },
      doneAt: null,
      error: null,
    });
    expect(await s.getDelivery('nope')).toBeNull();
    await s.recordDelivery('d-2', 'push', {});
    await s.recordDelivery('d-3', 'push', {});
    expect((await s.listPendingDeliveries(10)).map((p) => p.id)).toEqual(['d-1', 'd-2', 'd-3']);
    await s.markDeliveryDone('d-1', 'boom');
    await s.markDeliveryDone('d-3');
    const d1 = await s.getDelivery('d-1');
    expect(d1?.error).toBe('boom');
    expect(Number.isNaN(Date.parse(d1?.doneAt ?? ''))).toBe(false);
    expect((await s.getDelivery('d-3'))?.error).toBeNull();
    expect((await s.listPendingDeliveries(10)).map((p) => p.id)).toEqual(['d-2']);
    // The recovery of lost webhooks asks which ids are recorded, done or not.
    expect(await s.knownDeliveries(['d-1', 'd-2', 'never'])).toEqual(new Set(['d-1', 'd-2']));
    expect(await s.knownDeliveries([])).toEqual(new Set());
  });

  it('keeps a payload exactly as it came, a NUL character in a comment included (jsonb refuses \\u0000)', async () => {
    const payload = { comment: { body: 'before\u0000after' }, n: 1 };
    expect(await b.store.recordDelivery('d-nul', 'issue_comment', payload)).toBe(true);
    expect((await b.store.getDelivery('d-nul'))?.payload).toEqual(payload);
    const [grouped] = await b.store.recordDeliveries([{ id: 'd-nul-2', event: 'issue_comment', payload }]);
    expect(grouped).toEqual({ id: 'd-nul-2', fresh: true, done: false });
    expect((await b.store.getDelivery('d-nul-2'))?.payload).toEqual(payload);
  });

  it('re-arms a delivery that failed for good when it is recorded again: not done, its re-run number, listed pending; a done one stays done', async () => {
    const s = b.store;
    await s.recordDelivery('r-failed', 'push', { n: 1 });
    await s.recordDelivery('r-done', 'push', {});
    await s.failDelivery('r-failed', 'handler broke', { repo: 'acme/todo', data: {}, at: '2026-03-02T09:05:00.000Z' });
    await s.markDeliveryDone('r-done');
    const got = await s.recordDeliveries([
      { id: 'r-failed', event: 'push', payload: { n: 'redelivered' } },
      { id: 'r-done', event: 'push', payload: {} },
    ]);
    expect(got).toEqual([
      { id: 'r-failed', fresh: false, done: false, rerun: 1 },
      { id: 'r-done', fresh: false, done: true },
    ]);
    expect(await s.getDelivery('r-failed')).toMatchObject({ doneAt: null, error: null, payload: { n: 1 } });
    expect(await s.listPendingDeliveries(10)).toEqual([{ id: 'r-failed', rerun: 1 }]);
    // A second copy while it runs again is the same re-run.
    expect(await s.recordDeliveries([{ id: 'r-failed', event: 'push', payload: {} }])).toEqual([
      { id: 'r-failed', fresh: false, done: false, rerun: 1 },
    ]);
  });

  it('records a group of deliveries in one call: each id once, its first copy, saying what was new and what was done', async () => {
    const s = b.store;
    await s.recordDelivery('g-old', 'push', { old: true });
    await s.recordDelivery('g-done', 'push', {});
    await s.markDeliveryDone('g-done');
    const got = await s.recordDeliveries([
      { id: 'g-2', event: 'issues', payload: { n: 2, text: 'quote " and \\ backslash' } },
      { id: 'g-old', event: 'push', payload: { old: false } },
      { id: 'g-1', event: 'issues', payload: { n: 1 } },
      { id: 'g-2', event: 'issues', payload: { n: 'second copy' } },
      { id: 'g-done', event: 'push', payload: {} },
    ]);
    expect(got).toEqual([
      { id: 'g-2', fresh: true, done: false },
      { id: 'g-old', fresh: false, done: false },
      { id: 'g-1', fresh: true, done: false },
      { id: 'g-done', fresh: false, done: true },
    ]);
    expect((await s.getDelivery('g-2'))?.payload).toEqual({ n: 2, text: 'quote " and \\ backslash' });
    expect((await s.getDelivery('g-old'))?.payload).toEqual({ old: true });
    expect((await s.listPendingDeliveries(10)).map((p) => p.id)).toEqual(['g-old', 'g-1', 'g-2']);
    expect(await s.recordDeliveries([])).toEqual([]);
  });

  it('upserts and reads Changes, and sets their state', async () => {
    const s = b.store;
    const criteria = [{ id: 'AC1', text: 'calendar', check: null }];
    const c = await s.upsertChange({
      repo: REPO,
      number: 42,
      installationId: 7,
      title: 't',
      body: 'b',
      criteria,
      state: 'open',
    });
    expect(c).toMatchObject({ repo: REPO, number: 42, installationId: 7, criteria, state: 'open' });
    expect(Number.isNaN(Date.parse(c.updatedAt))).toBe(false);
    await s.upsertChange({
      repo: REPO,
      number: 42,
      installationId: 7,
      title: 't2',
      body: 'b2',
      criteria: [],
      state: 'open',
    });
    await s.setChangeState(REPO, 42, 'human');
    expect(await s.getChange(REPO, 42)).toMatchObject({ title: 't2', body: 'b2', criteria: [], state: 'human' });
    expect(await s.getChange(REPO, 43)).toBeNull();
  });

  it('keeps head_seen_at while the head is unchanged and restarts it on a new head', async () => {
    const s = b.store;
    const base = { repo: REPO, change: 42, base: 'main', author: 'bot', state: 'verifying' as const, reason: '' };
    const c1 = await s.upsertCandidate({ ...base, pr: 12, headSha: 'aaa', headSeenAt: T0 });
    expect(c1).toMatchObject({ pr: 12, headSha: 'aaa', headSeenAt: T0, createdAt: T0 });
    const same = await s.upsertCandidate({ ...base, pr: 12, headSha: 'aaa', headSeenAt: T1 });
    expect(same.headSeenAt).toBe(T0);
    const moved = await s.upsertCandidate({ ...base, pr: 12, headSha: 'bbb', headSeenAt: T2 });
    expect(moved).toMatchObject({ headSha: 'bbb', headSeenAt: T2, createdAt: T0 });
    expect(await s.getCandidate(REPO, 12)).toEqual(moved);
    expect(await s.getCandidate(REPO, 99)).toBeNull();
  });

  it('lists siblings by pr and verifying candidates by age, and sets states', async () => {
    const s = b.store;
    const base = { repo: REPO, change: 42, author: 'bot', reason: '' };
    await s.upsertCandidate({ ...base, pr: 13, base: 'main', headSha: 'b', state: 'verifying', headSeenAt: T1 });
    await s.upsertCandidate({ ...base, pr: 12, base: 'main', headSha: 'a', state: 'verifying', headSeenAt: T0 });
    await s.upsertCandidate({ ...base, pr: 14, base: 'dev', headSha: 'c', state: 'verifying', headSeenAt: T0 });
    expect((await s.listCandidates(REPO, 42, 'main')).map((c) => c.pr)).toEqual([12, 13]);
    expect((await s.listVerifyingSince(T1)).map((c) => c.pr)).toEqual([12, 14]);
    await s.setCandidateState(REPO, 12, 'unpromotable', 'timed out');
    expect(await s.getCandidate(REPO, 12)).toMatchObject({ state: 'unpromotable', reason: 'timed out' });
    expect((await s.listVerifyingSince(T2)).map((c) => c.pr)).toEqual([13, 14]);
  });

  it("lists a Change's candidates on every base, and the candidates on a head sha", async () => {
    const s = b.store;
    const base = { repo: REPO, author: 'bot', reason: '', state: 'verifying' as const };
    await s.upsertCandidate({ ...base, pr: 14, change: 42, base: 'dev', headSha: 'same' });
    await s.upsertCandidate({ ...base, pr: 12, change: 42, base: 'main', headSha: 'a' });
    await s.upsertCandidate({ ...base, pr: 13, change: 43, base: 'main', headSha: 'same' });
    await s.upsertCandidate({ ...base, repo: 'acme/other', pr: 15, change: 42, base: 'main', headSha: 'same' });
    expect((await s.listCandidatesOfChange(REPO, 42)).map((c) => c.pr)).toEqual([12, 14]);
    expect((await s.listCandidatesByHead(REPO, 'same')).map((c) => c.pr)).toEqual([13, 14]);
    expect(await s.listCandidatesByHead(REPO, 'none')).toEqual([]);
  });

  it('stores patches and evidence per head sha', async () => {
    const s = b.store;
    const files = [{ path: 'src/a.ts', status: 'modified', additions: 3, deletions: 1 }];
    await s.putPatch({ repo: REPO, pr: 12, headSha: 'aaa', mergeBase: 'mmm', patch: '+x', truncated: false, files });
    await s.putPatch({ repo: REPO, pr: 12, headSha: 'aaa', mergeBase: 'mmm', patch: '+y', truncated: true, files });
    expect(await s.getPatch(REPO, 12, 'aaa')).toEqual({
      repo: REPO,
      pr: 12,
      headSha: 'aaa',
      mergeBase: 'mmm',
      patch: '+y',
      truncated: true,
      files,
    });
    expect(await s.getPatch(REPO, 12, 'bbb')).toBeNull();
    await s.putEvidence(REPO, 12, 'aaa', 'gate', { settled: false });
    await s.putEvidence(REPO, 12, 'aaa', 'gate', { settled: true });
    await s.putEvidence(REPO, 12, 'aaa', 'acceptance', ['x']);
    expect(await s.getEvidence(REPO, 12, 'aaa', 'gate')).toEqual({ settled: true });
    expect(await s.getEvidence(REPO, 12, 'aaa', 'acceptance')).toEqual(['x']);
    expect(await s.getEvidence(REPO, 12, 'bbb', 'gate')).toBeNull();
  });

  it('opens round 1 once, opens the next round idempotently, records the decision', async () => {
    const s = b.store;
    const r1 = await s.currentRound(REPO, 42, 'main', T0);
    expect(r1).toMatchObject({ number: 1, selection: null, decision: null, openedAt: T0, decidedAt: null });
    expect((await s.currentRound(REPO, 42, 'main', T1)).id).toBe(r1.id);
    const [a, c] = await Promise.all([
      s.openNextRound(REPO, 42, 'main', 1, T1),
      s.openNextRound(REPO, 42, 'main', 1, T1),
    ]);
    expect(a.number).toBe(2);
    expect(c.id).toBe(a.id);
    // From a round that is no longer the newest: nothing new opens.
    expect((await s.openNextRound(REPO, 42, 'main', 1, T2)).number).toBe(2);
    expect((await s.currentRound(REPO, 42, 'main', T2)).number).toBe(2);
    // Only the claimant records, and only the first decision.
    expect(await s.recordDecision(a.id, { winner: 12 }, T2, 'job-a')).toBe(false);
    expect(await s.claimRound(a.id, 'job-a')).toBe('claimed');
    expect(await s.recordDecision(a.id, { winner: 12 }, T2, 'job-a')).toBe(true);
    expect(await s.recordDecision(a.id, { winner: 13 }, T2, 'job-a')).toBe(false);
    expect(await s.getRound(a.id)).toMatchObject({ decision: { winner: 12 }, decidedAt: T2 });
    expect(await s.getRound(9999)).toBeNull();
  });

  it('claims a round once: claimed, then mine for the claimant, taken for others', async () => {
    const s = b.store;
    const r = await s.currentRound(REPO, 42, 'main', T0);
    expect(await s.claimRound(r.id, 'pr:12:sha:a')).toBe('claimed');
    expect(await s.claimRound(r.id, 'pr:12:sha:a')).toBe('mine');
    expect(await s.claimRound(r.id, 'pr:13:sha:b')).toBe('taken');
    expect((await s.getRound(r.id))?.selection).toBe('pr:12:sha:a');
    await expect(s.claimRound(123456, 'x')).rejects.toBeInstanceOf(StoreError);
  });

  it('adds and lists receipts in order, and events', async () => {
    const s = b.store;
    const gate = {
      kind: 'HUMAN_GATE' as const,
      repo: REPO,
      change: 42,
      round: 1,
      at: T0,
      data: { candidates: [12], winner: 12, why: 'risk' },
    };
    const promotion = {
      kind: 'PROMOTION' as const,
      repo: REPO,
      change: 42,
      round: 1,
      at: T1,
      data: { candidate: 12, headSha: 'a1', by: 'arbiter', method: 'squash' as const },
    };
    const id1 = await s.addReceipt(gate);
    const id2 = await s.addReceipt(promotion);
    await s.addReceipt({ ...promotion, change: 43 });
    // A row an older version wrote, in a shape this one does not read: reported, never cast.
    await s.db.query(
      `INSERT INTO receipts (kind, repo, change, round, at, data) VALUES ('CANDIDATE_SELECTION', $1, 42, 1, $2, '{"winner": 12}')`,
      [REPO, T1],
    );
    expect(id2).toBeGreaterThan(id1);
    const listed = await s.listReceipts(REPO, 42);
    expect(listed.map((r) => ({ id: r.id, kind: r.kind, receipt: r.receipt }))).toEqual([
      { id: id1, kind: 'HUMAN_GATE', receipt: gate },
      { id: id2, kind: 'PROMOTION', receipt: promotion },
      { id: expect.any(Number), kind: 'CANDIDATE_SELECTION', receipt: null },
    ]);
    expect(listed[2].issues.join('\n')).toMatch(/^data\.verdict: /m);
    expect(listed[2].recorded).toMatchObject({ kind: 'CANDIDATE_SELECTION', data: { winner: 12 } });
    expect((await s.readReceipts({ id: id2 })).map((r) => r.receipt)).toEqual([promotion]);
    expect(await s.readReceipts({})).toHaveLength(4);
    await s.addEvent(REPO, 'job-failed', { reason: 'x' }, T0);
    const ev = await s.db.query('SELECT kind, data FROM events');
    expect(ev.rows).toEqual([{ kind: 'job-failed', data: { reason: 'x' } }]);
  });

  it('records an applied action once; the first result wins', async () => {
    const s = b.store;
    expect(await s.getAppliedAction('k1')).toBeNull();
    await s.recordAppliedAction('k1', { commentId: 5 }, T0);
    await s.recordAppliedAction('k1', { commentId: 6 }, T1);
    expect(await s.getAppliedAction('k1')).toEqual({ commentId: 5 });
    await s.recordAppliedAction('k2', undefined, T0);
    expect(await s.getAppliedAction('k2')).toEqual({});
  });

  it('replaces a record that changes, and lists applied actions by key prefix (LIKE wildcards matched as text)', async () => {
    const s = b.store;
    await s.putAppliedAction('set:a#1/x', { state: 'composing' }, T0);
    await s.putAppliedAction('set:a#1/x', { state: 'candidate' }, T1);
    await s.recordAppliedAction('set:a#1/y', { state: 'composing' }, T0);
    await s.recordAppliedAction('set:a#10/z', {}, T0);
    await s.recordAppliedAction('set:a_1/w', {}, T0);
    expect(await s.getAppliedAction('set:a#1/x')).toEqual({ state: 'candidate' });
    expect(await s.listAppliedActions('set:a#1/', 10)).toEqual([
      { key: 'set:a#1/x', result: { state: 'candidate' } },
      { key: 'set:a#1/y', result: { state: 'composing' } },
    ]);
    expect((await s.listAppliedActions('set:a_', 10)).map((r) => r.key)).toEqual(['set:a_1/w']);
    expect(await s.listAppliedActions('set:', 1)).toHaveLength(1);
    await s.recordAppliedAction('set:a#1/x>check', {}, T0);
    expect((await s.listAppliedActions('set:a#1/', 10, '>')).map((r) => r.key)).toEqual(['set:a#1/x', 'set:a#1/y']);
  });

  it('grants one repair per Change', async () => {
    const s = b.store;
    expect(await s.getRepair(REPO, 42)).toBeNull();
    const results = await Promise.all([s.claimRepair(REPO, 42, 12, T0), s.claimRepair(REPO, 42, 13, T0)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results[0] ? 12 : 13;
    expect(await s.getRepair(REPO, 42)).toEqual({ pr: winner, at: T0 });
    expect(await s.claimRepair(REPO, 43, 14, T1)).toBe(true);
  });

  it('takes model budget within both limits, all or nothing', async () => {
    const s = b.store;
    const input = { installationId: 1, repo: REPO, change: 42, day: '2026-01-01', calls: 2 };
    const limits = { perChange: 5, dailyPerInstallation: 100 };
    expect(await s.takeModelBudget(input, limits)).toBe(true);
    expect(await s.takeModelBudget(input, limits)).toBe(true);
    expect(await s.takeModelBudget(input, limits)).toBe(false); // 6 > 5
    expect(await s.takeModelBudget({ ...input, calls: 1 }, limits)).toBe(true); // 5
    // The daily cap of the installation binds across Changes; a refusal takes nothing.
    const tight = { perChange: 100, dailyPerInstallation: 7 };
    expect(await s.takeModelBudget({ ...input, change: 43 }, tight)).toBe(true); // installation 7
    expect(await s.takeModelBudget({ ...input, change: 44, calls: 1 }, tight)).toBe(false);
    expect(await s.takeModelBudget({ ...input, change: 44, calls: 1, day: '2026-01-02' }, tight)).toBe(true);
    const rows = await s.db.query(`SELECT key, calls FROM model_budgets WHERE key = $1`, [`${REPO}#44`]);
    expect(rows.rows[0]?.calls).toBe(1);
  });

  it('keeps repository config validity, valid by default', async () => {
    const s = b.store;
    expect(await s.isConfigValid(REPO)).toBe(true);
    await s.setConfigValid(REPO, false, 'gate.required: expected array');
    expect(await s.isConfigValid(REPO)).toBe(false);
    await s.setConfigValid(REPO, true, '');
    expect(await s.isConfigValid(REPO)).toBe(true);
  });

  it('caches a config only over the generation its load began with, and only while valid', async () => {
    const s = b.store;
    expect(await s.getConfigState(REPO)).toEqual({ valid: true, config: null, loadedAt: null, generation: 0 });
    expect(await s.cacheConfig(REPO, { config: { mode: 'live' }, loadedAt: T0, generation: 0 })).toBe(true);
    expect(await s.getConfigState(REPO)).toEqual({
      valid: true,
      config: { mode: 'live' },
      loadedAt: T0,
      generation: 0,
    });

    // A push drops it; a load that began before the push stores nothing, one after it does.
    await s.dropCachedConfig(REPO);
    expect(await s.getConfigState(REPO)).toEqual({ valid: true, config: null, loadedAt: null, generation: 1 });
    expect(await s.cacheConfig(REPO, { config: { mode: 'stale' }, loadedAt: T1, generation: 0 })).toBe(false);
    expect(await s.cacheConfig(REPO, { config: { mode: 'shadow' }, loadedAt: T1, generation: 1 })).toBe(true);
    expect(await s.getConfigState(REPO)).toMatchObject({ config: { mode: 'shadow' }, loadedAt: T1 });

    // Invalid: the cached config goes, and none is stored until the state is valid again.
    await s.setConfigValid(REPO, false, 'mode: unknown value');
    expect(await s.getConfigState(REPO)).toEqual({ valid: false, config: null, loadedAt: null, generation: 1 });
    expect(await s.cacheConfig(REPO, { config: { mode: 'live' }, loadedAt: T2, generation: 1 })).toBe(false);
    await s.setConfigValid(REPO, true, 'valid at abc');
    expect(await s.cacheConfig(REPO, { config: { mode: 'live' }, loadedAt: T2, generation: 1 })).toBe(true);
    await s.setConfigValid(REPO, true, 'valid at def');
    expect(await s.getConfigState(REPO)).toMatchObject({ valid: true, config: { mode: 'live' }, loadedAt: T2 });

    // A repository first seen through a push starts at generation 1.
    await s.dropCachedConfig('acme/other');
    expect(await s.getConfigState('acme/other')).toEqual({ valid: true, config: null, loadedAt: null, generation: 1 });
  });

  it('turns a row that fails its schema into a StoreError, and a bad statement too', async () => {
    const s = b.store;
    await s.db.query(
      `INSERT INTO changes (repo, number, installation_id, title, body, criteria, state) VALUES ($1, 1, 1, 't', 'b', '[{"id":"bad"}]', 'open')`,
      [REPO],
    );
    await expect(s.getChange(REPO, 1)).rejects.toMatchObject({ name: 'StoreError', code: 'bad-row' });
    await expect(s.db.query('SELECT * FROM no_such_table')).rejects.toMatchObject({
      name: 'StoreError',
      code: 'query',
    });
  });

  it('rolls back a transaction that throws', async () => {
    const s = b.store;
    await expect(
      s.db.transaction(async (tx) => {
        await tx.query(`INSERT INTO repo_config (repo, valid, detail) VALUES ('x/y', false, '')`);
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await s.isConfigValid('x/y')).toBe(true);
  });
});
