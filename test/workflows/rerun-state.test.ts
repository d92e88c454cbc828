// A settled candidate's state follows its gate when a required check is re-run on the same head
// (issue 28): a failure re-run to green makes it verified again, so the minute sweep stops
// re-selecting its group as one with an unpromotable candidate; a green check re-run to a failure
// makes it unpromotable. A re-run still in progress changes nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyAndSelect } from '../../src/workflows/flow.ts';
import { BACKENDS, openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { makeWorld, seedGroup, type World } from '../support/selection-world.ts';

describe.each(BACKENDS)('a re-run on a settled head, on %s', (backend) => {
  let opened: OpenedBackend;
  let run = 0;
  let w: World;
  beforeAll(async () => {
    opened = await openBackend(backend, `wf-rerun-state-${backend}`);
  });
  afterAll(async () => opened?.dispose());
  beforeEach(() => {
    w = makeWorld({ store: opened.store, gh: new FakeGitHub({ repo: `rerun-${run++}` }) });
  });

  const stateOf = async (pr: number): Promise<string | undefined> =>
    (await opened.store.getCandidate(w.ctx('read').key, pr))?.state;
  const rerun = (pr: number, conclusion: 'success' | 'failure' | 'pending'): void => {
    w.gh.pull(pr).checks = [{ name: 'test', conclusion }];
  };

  it('turns an unpromotable candidate verified when its failed check re-runs green', async () => {
    // #13 still runs CI, so the round waits and nothing is decided meanwhile.
    await seedGroup(w, {
      siblings: [
        { pr: 12, checks: [{ name: 'test', conclusion: 'failure' }] },
        { pr: 13, checks: [{ name: 'test', conclusion: 'pending' }], acceptance: null },
      ],
    });
    expect(await stateOf(12)).toBe('unpromotable');

    rerun(12, 'pending');
    await verifyAndSelect(w.ctx('rerun-queued'), 12);
    expect(await stateOf(12)).toBe('unpromotable');

    rerun(12, 'success');
    await verifyAndSelect(w.ctx('rerun-green'), 12);
    expect(await stateOf(12)).toBe('verified');
    expect(w.gh.checkOn(12, 'Arbiter / gate')).toMatchObject({ status: 'completed', conclusion: 'success' });
  });

  it('turns a verified candidate unpromotable when its check re-runs to a failure', async () => {
    await seedGroup(w, {
      siblings: [{ pr: 12 }, { pr: 13, checks: [{ name: 'test', conclusion: 'pending' }], acceptance: null }],
    });
    expect(await stateOf(12)).toBe('verified');
    rerun(12, 'failure');
    await verifyAndSelect(w.ctx('rerun-red'), 12);
    expect(await stateOf(12)).toBe('unpromotable');
    expect(w.gh.checkOn(12, 'Arbiter / gate')).toMatchObject({ status: 'completed', conclusion: 'failure' });
  });

  it('shows a failure again when a check fails, re-runs green, then fails as before', async () => {
    // The third gate check has the very words of the first: it is still written, else GitHub
    // would go on showing the pass while the candidate is unpromotable.
    await seedGroup(w, {
      siblings: [
        { pr: 12, checks: [{ name: 'test', conclusion: 'pending' }], acceptance: null },
        { pr: 13, checks: [{ name: 'test', conclusion: 'pending' }], acceptance: null },
      ],
    });
    const gateWrites = (): string[] => w.gh.writes.filter((line) => line.includes('Arbiter / gate'));
    rerun(12, 'failure');
    await verifyAndSelect(w.ctx('red'), 12);
    rerun(12, 'success');
    await verifyAndSelect(w.ctx('rerun-green'), 12);
    expect(w.gh.checkOn(12, 'Arbiter / gate')).toMatchObject({ conclusion: 'success' });

    rerun(12, 'failure');
    await verifyAndSelect(w.ctx('rerun-red'), 12);
    expect(await stateOf(12)).toBe('unpromotable');
    expect(w.gh.checkOn(12, 'Arbiter / gate')).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(gateWrites()).toHaveLength(3);
    // A redelivery of the same step, and a later run that finds the same failure, write nothing more.
    await verifyAndSelect(w.ctx('rerun-red'), 12);
    await verifyAndSelect(w.ctx('rerun-red-again'), 12);
    expect(gateWrites()).toHaveLength(3);
  });
});
