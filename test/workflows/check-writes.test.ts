// The executor skips a check-run write by what the check shows now, never by whether its content was
// shown once: content that changed and changed back is written again, while a redelivered step, a
// second run with the same words and a decision's retry write nothing more.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkAction, type Action } from '../../src/core/actions.ts';
import { executePlan } from '../../src/workflows/execute.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { makeWorld, shaOf, type World } from '../support/selection-world.ts';

const PR = 12;

describe('check-run writes whose content comes back', () => {
  let opened: OpenedBackend;
  let run = 0;
  let w: World;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-check-writes');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(() => {
    w = makeWorld({ store: opened.store, gh: new FakeGitHub({ repo: `check-writes-${run++}` }) });
    w.gh.addPull({ number: PR, headSha: shaOf(PR), checks: [] });
  });

  const content = (passed: boolean) =>
    ({
      pr: PR,
      headSha: shaOf(PR),
      name: 'Arbiter / gate',
      status: 'completed',
      conclusion: passed ? 'success' : 'failure',
      title: passed ? 'Promotable' : 'Not promotable',
      summary: passed ? 'Every required check passed.' : 'Required check `test` failed.',
    }) as const;
  const byContent = (passed: boolean): Action => checkAction(w.ctx('plan').key, content(passed));
  const byDecision = (key: string, passed: boolean): Action => ({ kind: 'check-run', key, ...content(passed) });
  const gateWrites = (): string[] => w.gh.writes.filter((line) => line.includes('Arbiter / gate'));
  const shown = () => w.gh.checkOn(PR, 'Arbiter / gate')?.conclusion;

  it('writes a failure again after a pass, however many times the content returns', async () => {
    for (const [i, passed] of [false, true, false, true, false].entries())
      await executePlan(w.ctx(`run-${i}`), [byContent(passed)]);
    expect(gateWrites()).toHaveLength(5);
    expect(shown()).toBe('failure');
  });

  it('writes the same content once: redelivered, run again, or by two runs at once', async () => {
    await executePlan(w.ctx('a'), [byContent(false)]);
    await executePlan(w.ctx('a'), [byContent(false)]);
    await executePlan(w.ctx('b'), [byContent(false)]);
    expect(gateWrites()).toHaveLength(1);

    await Promise.all(['c', 'd', 'e'].map((token) => executePlan(w.ctx(token), [byContent(true)])));
    expect(gateWrites()).toHaveLength(2);
    expect(shown()).toBe('success');
  });

  it("never repeats a decision's write, and writes a later decision's content that came back", async () => {
    await executePlan(w.ctx('first'), [byDecision('decision-1', false)]);
    await executePlan(w.ctx('second'), [byDecision('decision-2', true)]);
    // A redelivery of the first decision leaves the later one shown.
    await executePlan(w.ctx('first'), [byDecision('decision-1', false)]);
    expect(gateWrites()).toHaveLength(2);
    expect(shown()).toBe('success');

    await executePlan(w.ctx('third'), [byDecision('decision-3', false)]);
    expect(gateWrites()).toHaveLength(3);
    expect(shown()).toBe('failure');
  });

  it('writes again for the run that died after its write, and creates no second check run', async () => {
    // The write landed and its answer was lost (the run died there): its retry cannot tell whether
    // it landed, and writes the same whole content again; no other run writes it after that.
    w.gh.fail({ match: 'check #12 Arbiter / gate', status: 422, when: 'after' });
    await expect(executePlan(w.ctx('crashed'), [byContent(false)])).rejects.toThrow();
    await executePlan(w.ctx('crashed'), [byContent(false)]);
    await executePlan(w.ctx('later'), [byContent(false)]);
    expect(w.gh.applied().filter((line) => line.includes('Arbiter / gate'))).toHaveLength(2);
    expect(w.gh.checkRuns.filter((r) => r.name === 'Arbiter / gate')).toHaveLength(1);
    expect(shown()).toBe('failure');
  });
});
