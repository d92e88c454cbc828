// A plan's `claim` action, applied by the executor against the store: `new` for the run that took
// the key, `mine` for a retry of that run (the same token), `taken` for any other run, asked afresh
// every time (never answered from a record) and kept in shadow mode. And `take-budget`: true while
// the Change's budget lasts, then false.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimAction, type Action } from '../../src/core/actions.ts';
import { claimKey } from '../../src/core/keys.ts';
import { claimAnswer, executePlan } from '../../src/workflows/execute.ts';
import { BACKENDS, openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, type World } from '../support/selection-world.ts';

const KEY = claimKey('acceptance:acme/todo#12@abc/h1');

describe.each(BACKENDS)('the executor answers claims on %s', (backend) => {
  let opened: OpenedBackend;
  let w: World;
  beforeAll(async () => {
    opened = await openBackend(backend, 'wf-claim-answers');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => {
    await opened.truncate();
    w = makeWorld({ store: opened.store });
  });

  const ask = async (token: string, key = KEY, at?: string): Promise<unknown> =>
    claimAnswer(await executePlan(w.ctx(token), [claimAction(key, token, at)]), key);

  it('new for the first run, mine for its retry, taken for another run, each time it is asked', async () => {
    expect(await ask('delivery:a')).toBe('new');
    expect(await ask('delivery:a')).toBe('mine');
    expect(await ask('delivery:b')).toBe('taken');
    expect(await ask('delivery:b')).toBe('taken');
    expect(await ask('delivery:a')).toBe('mine');
    // One row, the holder's, under the key itself: no action claim and no record beside it.
    expect(await opened.store.getAppliedAction(KEY)).toEqual({ token: 'delivery:a' });
    expect(await opened.store.listAppliedActions('action:', 10)).toEqual([]);
  });

  it('keeps the time it is given with the holder, for the run that reads it later', async () => {
    const at = '2026-03-02T09:00:00.000Z';
    expect(await ask('delivery:a', 'dashboard-run:acme/todo@7', at)).toBe('new');
    expect(await opened.store.getAppliedAction('dashboard-run:acme/todo@7')).toEqual({ token: 'delivery:a', at });
    expect(await ask('delivery:b', 'dashboard-run:acme/todo@7', at)).toBe('taken');
  });

  it('answers every claim of a plan by its key, and other keys answer nothing', async () => {
    const other = claimKey('acceptance:acme/todo#13@abc/h1');
    await executePlan(w.ctx('delivery:b'), [claimAction(other, 'delivery:b')]);
    const result = await executePlan(w.ctx('delivery:a'), [
      claimAction(KEY, 'delivery:a'),
      claimAction(other, 'delivery:a'),
    ]);
    expect(claimAnswer(result, KEY)).toBe('new');
    expect(claimAnswer(result, other)).toBe('taken');
    expect(claimAnswer(result, claimKey('nothing'))).toBeNull();
  });

  it('is kept in shadow mode: a claim decides a race and writes no pull request', async () => {
    const shadow = { ...w.ctx('delivery:a'), config: configOf({ mode: 'shadow' }) };
    const result = await executePlan(shadow, [claimAction(KEY, 'delivery:a')]);
    expect(result.withheld).toEqual([]);
    expect(claimAnswer(result, KEY)).toBe('new');
    expect(w.gh.writes).toEqual([]);
  });

  it('takes model calls from the budget while it lasts, each time it is asked', async () => {
    const take: Action = {
      kind: 'take-budget',
      key: 'acme/todo#42/model-budget/2026-03-02',
      change: 42,
      day: '2026-03-02',
      calls: 1,
      limits: { perChange: 2, dailyPerInstallation: 100 },
    };
    const answers: unknown[] = [];
    for (let i = 0; i < 3; i++) answers.push((await executePlan(w.ctx('delivery:a'), [take])).results.get(take.key));
    expect(answers).toEqual([true, true, false]);
  });
});
