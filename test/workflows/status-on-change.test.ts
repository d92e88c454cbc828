// `status` and `rank` on the Change issue work as docs/commands.md says: status lists every candidate
// the Change had, by base, with what waits or what was decided; rank ranks each open group.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoreWithDb } from '../../src/store/store.ts';
import { rankNow, statusOf } from '../../src/workflows/people.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup } from '../support/selection-world.ts';
import { structureOf } from '../support/gfm.ts';

const KEY = 'acme/todo';

describe('status and rank on a Change', () => {
  let opened: OpenedBackend;
  let store: StoreWithDb;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-status-on-change');
    store = opened.store;
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('status lists each candidate with its state and what the round waits for', async () => {
    const w = makeWorld({ store, config: configOf() });
    await seedGroup(w, { siblings: [{ pr: 12 }, { pr: 13, acceptance: null }] });
    await store.setCandidateState(KEY, 12, 'verified', 'evidence complete');
    await store.setCandidateState(KEY, 13, 'verifying', 'acceptance');

    const answer = await statusOf(w.ctx('job-status'), 42);
    expect(answer.ok).toBe(true);
    const text = answer.ok ? answer.message : '';
    const { tables, visible } = structureOf(text);
    expect(visible).toContain('Candidates for #42');
    expect(visible).toMatch(/round 1\. Waiting on #13/);
    expect(tables).toHaveLength(1);
    expect(tables[0].rows.map((r) => [r[0], r[2]])).toEqual([
      ['#12', 'evidence complete'],
      ['#13', 'gathering evidence'],
    ]);
  });

  it('status on a Change no candidate linked yet says how to link one', async () => {
    const w = makeWorld({ store, config: configOf() });
    await seedGroup(w, { siblings: [] });
    const answer = await statusOf(w.ctx('job-status'), 42);
    expect(answer).toMatchObject({ ok: true });
    expect(answer.ok && answer.message).toContain('No candidate has linked #42 yet');
  });

  it('status of a closed candidate says why it left', async () => {
    const w = makeWorld({ store, config: configOf() });
    await seedGroup(w, { siblings: [{ pr: 12 }, { pr: 13 }] });
    await store.setCandidateState(KEY, 12, 'rejected', 'Lost to #13');
    await store.setCandidateState(KEY, 13, 'promoted', 'merged');
    const answer = await statusOf(w.ctx('job-status'), 42);
    const rows = structureOf(answer.ok ? answer.message : '').tables[0].rows;
    expect(rows).toEqual([
      ['#12', expect.any(String), 'closed (lost): Lost to #13'],
      ['#13', expect.any(String), 'merged'],
    ]);
  });

  it('rank on a Change with nothing open is refused with the reason', async () => {
    const w = makeWorld({ store, config: configOf() });
    await seedGroup(w, { siblings: [{ pr: 12 }] });
    await store.setCandidateState(KEY, 12, 'promoted', 'merged');
    expect(await rankNow(w.ctx('job-rank'), 42)).toEqual({
      ok: false,
      code: 'not_open',
      message: '#42 has no open candidate to rank.',
    });
  });

  it('rank on a Change ranks its open group, as rank on a candidate would', async () => {
    const w = makeWorld({ store, config: configOf() });
    await seedGroup(w, { siblings: [{ pr: 12 }, { pr: 13, acceptance: { AC2: 'not_met' } }] });
    await store.setCandidateState(KEY, 12, 'verified', 'evidence complete');
    await store.setCandidateState(KEY, 13, 'verified', 'evidence complete');
    const answer = await rankNow(w.ctx('job-rank'), 42);
    expect(answer).toMatchObject({ ok: true });
    expect(answer.ok && answer.message).toMatch(/^Ranked the candidates for #42 \(round \d\)/);
    expect(w.gh.pull(12).merged).toBe(true);
  });
});
