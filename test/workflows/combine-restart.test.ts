// The combined candidate's build is a sequence of planned steps (issue 26 item 1), each applied once
// under its key: a run killed anywhere between the branch and the PR is retried (the job's retry,
// same token), and GitHub gets one branch and one PR, the build's outcome recorded once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { CombineRecord } from '../../src/core/combine.ts';
import { combinedRecordKey } from '../../src/core/keys.ts';
import type { Store } from '../../src/store/types.ts';
import { executePlan } from '../../src/workflows/execute.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup, type World } from '../support/selection-world.ts';

const KEY = 'acme/todo';
const BRANCH = 'arbiter/combined/42';

/** The store, but the first record under a key ending `suffix` dies before it is written. */
function dyingAt(store: Store, suffix: string): Store {
  let died = false;
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'recordAppliedAction') {
        return async (key: string, value: unknown, at: string) => {
          if (!died && key.endsWith(suffix)) {
            died = true;
            throw new Error(`killed before recording ${key}`);
          }
          return target.recordAppliedAction(key, value, at);
        };
      }
      const member: unknown = Reflect.get(target, prop);
      return typeof member === 'function' ? member.bind(target) : member;
    },
  });
}

describe('a combined build killed between the branch and the PR', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-combine-restart');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  /** #12 meets AC1 and AC2, #13 meets AC3: together they meet every criterion, so a combine is built. */
  async function world(gh = new FakeGitHub()): Promise<World> {
    gh.branchHeads.set('main', 'base-sha');
    const w = makeWorld({ store: opened.store, gh });
    await seedGroup(w, {
      siblings: [
        { pr: 12, acceptance: { AC3: 'not_met' } },
        { pr: 13, acceptance: { AC1: 'not_met', AC2: 'not_met' } },
      ],
    });
    return w;
  }

  async function expectBuiltOnce(w: World): Promise<void> {
    const built = w.gh.applied().filter((l) => /^(create branch|open draft|delete branch) /.test(l));
    expect(built).toEqual([`create branch ${BRANCH} at base-sha`, `open draft from ${BRANCH}`]);
    expect(w.gh.openedPulls).toHaveLength(1);
    const record = CombineRecord.parse(await opened.store.getAppliedAction(combinedRecordKey(KEY, 42)));
    expect(record.outcome).toMatchObject({ outcome: 'opened', pr: w.gh.openedPulls[0]?.number, baseSha: 'base-sha' });
  }

  it.each([
    ['after the branch, before its answer is recorded', '/combine/step/branch'],
    ['after the PR opened, before its answer is recorded', '/combine/step/pull'],
    ['after the PR opened, before the outcome is recorded', '#42/combine'],
  ])('killed %s: the retry makes no second branch or PR', async (_when, suffix) => {
    const w = await world();
    await expect(selectionStep(w.ctx('job-a', { store: dyingAt(opened.store, suffix) }), 42, 'main')).rejects.toThrow(
      /killed before recording/,
    );
    await selectionStep(w.ctx('job-a'), 42, 'main');
    await expectBuiltOnce(w);
  });

  it('killed after the merges, before the PR is looked for: the retry opens it once', async () => {
    let dead = false;
    const gh = new FakeGitHub({
      latency: async (call) => {
        if (!dead && call.startsWith('pulls from')) {
          dead = true;
          throw new Error('killed before the PR');
        }
      },
    });
    const w = await world(gh);
    await expect(selectionStep(w.ctx('job-a'), 42, 'main')).rejects.toThrow(/killed before the PR/);
    expect(gh.applied().filter((l) => l.startsWith('merge '))).toHaveLength(2);
    expect(gh.openedPulls).toEqual([]);
    await selectionStep(w.ctx('job-a'), 42, 'main');
    // The merges were recorded: the retry makes them no more.
    expect(gh.applied().filter((l) => l.startsWith('merge '))).toHaveLength(2);
    await expectBuiltOnce(w);
  });

  it('another run that finds a step held leaves the build to the run that holds it', async () => {
    const w = await world();
    await expect(
      selectionStep(w.ctx('job-a', { store: dyingAt(opened.store, '/combine/step/pull') }), 42, 'main'),
    ).rejects.toThrow(/killed before recording/);
    // job-b (a redelivery) finds job-a's claim on the PR step: it opens nothing.
    await selectionStep(w.ctx('job-b'), 42, 'main');
    expect(w.gh.openedPulls).toHaveLength(1);
    await selectionStep(w.ctx('job-a'), 42, 'main');
    await expectBuiltOnce(w);
  });
});

describe('the combined branch writes (execute-combine.ts)', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-combine-writes');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  const branchStep: Action = { kind: 'combine-branch', key: 'k/branch', branch: BRANCH, base: 'main' };
  const pullStep: Action = { kind: 'combine-pull', key: 'k/pull', branch: BRANCH, base: 'main', title: 't', body: 'b' };

  async function answerTo(w: World, action: Action): Promise<unknown> {
    return (await executePlan(w.ctx('job-a'), [action])).results.get(action.key);
  }

  it('a creation whose answer was lost (422 "already exists") is the branch, at the base head', async () => {
    const w = makeWorld({ store: opened.store });
    w.gh.branchHeads.set('main', 'base-sha');
    w.gh.fail({ match: 'create branch', status: 422, when: 'after' });
    expect(await answerTo(w, branchStep)).toEqual({ ok: true, sha: 'base-sha' });
    expect(w.gh.applied()).toEqual([`create branch ${BRANCH} at base-sha`]);
  });

  it('a refusal keeps GitHub’s whole message; a missing base is a 404 of its own words', async () => {
    const w = makeWorld({ store: opened.store });
    w.gh.branchHeads.set('main', 'base-sha');
    w.gh.fail({ match: 'create branch', status: 403 });
    expect(await answerTo(w, branchStep)).toEqual({ ok: false, status: 403, message: 'scripted 403' });
    const bare = makeWorld({ store: opened.store });
    expect(await answerTo(bare, { ...branchStep, key: 'k/branch-2' })).toEqual({
      ok: false,
      status: 404,
      message: 'the base branch main does not exist',
    });
  });

  it('a PR whose answer was lost (422 "already exists") is found, not opened again', async () => {
    const w = makeWorld({ store: opened.store });
    w.gh.fail({ match: 'open draft', status: 422, when: 'after' });
    expect(await answerTo(w, pullStep)).toMatchObject({ ok: true, open: true, pr: w.gh.openedPulls[0]?.number });
    expect(w.gh.openedPulls).toHaveLength(1);
  });

  it('shadow mode keeps every build step back', async () => {
    const w = makeWorld({ store: opened.store, config: configOf({ mode: 'shadow' }) });
    const deleteStep: Action = { kind: 'combine-delete', key: 'k/delete', branch: BRANCH };
    const result = await executePlan(w.ctx('job-a'), [branchStep, pullStep, deleteStep]);
    expect(result.withheld).toHaveLength(3);
    expect(w.gh.writes).toEqual([]);
  });
});
