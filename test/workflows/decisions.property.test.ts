// Property test (fast-check, seeded) of decisions over generated stories (issues 14 and 24), through
// the handlers and workflows over the recording fake and a real store. Each story has a person's
// rejection of one candidate (`/arbiter reject`, a "request changes" review, or closing it)
// before its round is decided (its CI still running), during it (a sibling still running) or after
// it, then later evidence on the rejected head that would have won (its checks pass and every
// criterion is met while every sibling misses one), then more of what people and agents do
// (body edits, ready for review, close and reopen, check events again, siblings' pushes, approvals,
// sweeps). Claims: no head a person rejected is ever merged, nor a PR while a person has it closed;
// shadow mode changes no PR; and once the sibling timeout and the repair timeout have passed and
// the sweep has run, every Change ends: merged, cancelled, or before a person (the awaiting label
// and the review request on a candidate), or with no candidate left open and the Change saying so.
// "Waiting on #n" is not an end.
//
// Checked against two mutations, applied in code by the tests at the end of this file (each must
// make this property fail): (1) the guard that keeps a rejected candidate out of its siblings is
// removed (`staysRejected` answers false, so any later event on the PR records it again); (2) the
// guard in the close is removed (`closingWithdraws` answers true, so a person closing a rejected PR
// withdraws it and reopening it brings its rejected head back). Both are applied through vitest's
// module mock below, which exists only in this test build: production code has no mutation branch
// at all, and with no mutation selected the mock calls the real function.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ArbiterConfig } from '../../src/config/schema.ts';
import type { CriterionStatus } from '../../src/core/types.ts';
import type { GitHubGateway } from '../../src/github/gateway.ts';
import { onCheckEvent } from '../../src/handlers/checks.ts';
import { onPullRequest } from '../../src/handlers/pull-request.ts';
import { onReview } from '../../src/handlers/review.ts';
import type { StoreWithDb } from '../../src/store/store.ts';
import { rejectByPerson } from '../../src/workflows/people.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { runSweep } from '../../src/workflows/sweep.ts';
import { criteriaHash } from '../../src/workflows/evidence.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { acceptanceOf, configOf, makeWorld, seedGroup, shaOf, type World } from '../support/selection-world.ts';

/** The mutation in force (null: the code as it is), and the world the sweep's own set-up must find. */
const rig = vi.hoisted(() => ({
  mutation: null as null | 'rejected-rejoins-siblings' | 'close-withdraws-rejected',
  world: null as null | { gateway: () => unknown; config: unknown },
}));

vi.mock(import('../../src/workflows/regroup.ts'), async (importOriginal) => {
  const real = await importOriginal();
  return {
    ...real,
    staysRejected: async (...args: Parameters<typeof real.staysRejected>) =>
      rig.mutation === 'rejected-rejoins-siblings' ? false : real.staysRejected(...args),
    closingWithdraws: (...args: Parameters<typeof real.closingWithdraws>) =>
      rig.mutation === 'close-withdraws-rejected' ? true : real.closingWithdraws(...args),
  };
});
// The periodic sweep builds its own context (a gateway per installation, the repository's config):
// here those are the world's fake and config, so the real `runSweep` runs over them.
vi.mock(import('../../src/workflows/context.ts'), async (importOriginal) => ({
  ...(await importOriginal()),
  gatewayFor: async () => rig.world!.gateway() as GitHubGateway,
}));
vi.mock(import('../../src/config/check.ts'), async (importOriginal) => ({
  ...(await importOriginal()),
  getRepoConfig: async () => rig.world!.config as ArbiterConfig,
}));

const KEY = 'acme/todo';
const PRS = [12, 13, 14];
const AWAITING = 'arbiter:awaiting-approval';
const PR_STATE_WRITE = /^(close|label|unlabel|merge|auto-merge|enqueue|ready|review|dispatch) /;
const SIBLING_TIMEOUT = 1800;
const REPAIR_TIMEOUT = 600;

type Ci = 'success' | 'failure';
type Rejection = 'reject' | 'changes-requested' | 'close';
type When = 'before' | 'during' | 'after';
type Later =
  | { kind: 'edit' }
  | { kind: 'ready' }
  | { kind: 'close' }
  | { kind: 'reopen' }
  | { kind: 'close-reopen' }
  | { kind: 'check' }
  | { kind: 'settle' }
  | { kind: 'push'; sibling: number; statuses: CriterionStatus[]; ci: Ci }
  | { kind: 'approve'; sibling: number }
  | { kind: 'sweep' };

/** Two criteria: mostly one missed, so ties, repairs and people's gates are common; sometimes both met. */
const arbStatuses = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom<CriterionStatus[]>(['met', 'not_met'], ['not_met', 'met'], ['met', 'unclear']),
  },
  { weight: 1, arbitrary: fc.constantFrom<CriterionStatus[]>(['met', 'met'], ['not_met', 'not_met']) },
);
const arbCi = fc.constantFrom<Ci>('success', 'success', 'failure');
const arbSibling = fc.constantFrom(0, 1);
const arbLater: fc.Arbitrary<Later> = fc.oneof(
  fc.constant({ kind: 'edit' as const }),
  fc.constant({ kind: 'ready' as const }),
  fc.constant({ kind: 'close' as const }),
  fc.constant({ kind: 'reopen' as const }),
  fc.constant({ kind: 'close-reopen' as const }),
  fc.constant({ kind: 'check' as const }),
  fc.constant({ kind: 'settle' as const }),
  fc.record({ kind: fc.constant('push' as const), sibling: arbSibling, statuses: arbStatuses, ci: arbCi }),
  fc.record({ kind: fc.constant('approve' as const), sibling: arbSibling }),
  fc.constant({ kind: 'sweep' as const }),
);
const arbStory = fc.record({
  shadow: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  repair: fc.boolean(),
  /** Which of #12, #13, #14 a person rejects. */
  victim: fc.constantFrom(0, 1, 2),
  rejection: fc.constantFrom<Rejection>('reject', 'changes-requested', 'close'),
  when: fc.constantFrom<When>('before', 'during', 'after'),
  /** The rejected candidate's first evidence (during, after): never both met and passing, or it would ship at once. */
  victimFirst: fc
    .record({ statuses: arbStatuses, ci: arbCi })
    .map((v) => (v.ci === 'success' && v.statuses.every((s) => s === 'met') ? { ...v, ci: 'failure' as const } : v)),
  siblings: fc.array(fc.record({ statuses: arbStatuses, ci: arbCi }), { minLength: 2, maxLength: 2 }),
  later: fc.array(arbLater, { minLength: 0, maxLength: 6 }),
});
type Story = typeof arbStory extends fc.Arbitrary<infer T> ? T : never;

const statusMap = (s: CriterionStatus[]): Record<string, CriterionStatus> => ({ AC1: s[0]!, AC2: s[1]! });
const wins = (e: { ci: Ci | 'pending'; statuses: CriterionStatus[] }): boolean =>
  e.ci === 'success' && e.statuses.every((s) => s === 'met');

function pullPayload(w: World, pr: number, action: string, sender: string): Record<string, unknown> {
  const p = w.gh.pull(pr);
  return {
    action,
    sender: { login: sender },
    pull_request: {
      number: pr,
      state: p.state,
      draft: p.draft,
      merged: p.merged,
      body: p.body,
      user: { login: p.author },
      base: { ref: p.baseRef },
      head: { sha: p.headSha },
      labels: p.labels.map((name) => ({ name })),
    },
  };
}

const reviewPayload = (w: World, pr: number, state: string, body: string | null) => ({
  action: 'submitted',
  review: { state, body, user: { login: 'maintainer' } },
  pull_request: { number: pr, labels: w.gh.pull(pr).labels.map((name) => ({ name })) },
});

/** Counts of generated runs, by what they held (printed at the end, asserted not vacuous). */
interface Tally {
  runs: number;
  /** Runs in which a rejection took effect and the rejected head later had evidence that would have won. */
  exercised: number;
  byStory: Map<string, number>;
  endings: Set<string>;
}

/** Plays one story; throws (an `expect`) when a claim fails. */
async function playStory(opened: OpenedBackend, store: StoreWithDb, c: Story, tally: Tally): Promise<void> {
  await opened.truncate();
  const config = configOf({
    mode: c.shadow ? 'shadow' : 'live',
    policy: { reviewers: ['maintainer'] },
    repair: { enabled: c.repair, timeout: REPAIR_TIMEOUT },
    selection: { siblingTimeout: SIBLING_TIMEOUT },
  });
  const w = makeWorld({ store, config });
  rig.world = { gateway: () => w.gh.asGateway(), config };
  w.gh.permissions.set('maintainer', 'write');
  const victim = PRS[c.victim]!;
  const others = PRS.filter((pr) => pr !== victim);
  // What each head will show once its CI concludes (the model of the story, for "would have won").
  const model = new Map<number, { ci: Ci | 'pending'; statuses: CriterionStatus[]; eventual: Ci }>();
  model.set(victim, {
    ci: c.when === 'before' ? 'pending' : c.victimFirst.ci,
    statuses: c.victimFirst.statuses,
    eventual: c.victimFirst.ci,
  });
  // During: the first sibling's CI is still running when the person rejects.
  for (const [i, pr] of others.entries())
    model.set(pr, {
      ci: c.when === 'during' && i === 0 ? 'pending' : c.siblings[i]!.ci,
      statuses: c.siblings[i]!.statuses,
      eventual: c.siblings[i]!.ci,
    });
  const change = await seedGroup(w, {
    criteria: ['A search box filters the list', 'The search ignores case'],
    siblings: PRS.map((pr) => {
      const m = model.get(pr)!;
      return {
        pr,
        checks: [{ name: 'test', conclusion: m.ci === 'pending' ? 'pending' : m.ci }],
        acceptance: m.ci === 'pending' ? null : statusMap(m.statuses),
      };
    }),
  });
  let jobs = 0;
  const ctx = () => w.ctx(`job-${++jobs}`);
  const rejectedHeads = new Set<string>();
  const closedByPerson = new Set<number>();
  let merges = 0;
  let pushes = 0;
  const ops: string[] = [];
  const context = () => `story ${JSON.stringify(c)}; ops ${ops.join(', ')}`;

  /** Every merge since the last look: never a rejected head, never a PR a person has closed. */
  const lookAtMerges = () => {
    const lines = w.gh.applied().filter((l) => /^(merge|auto-merge|enqueue) #/.test(l));
    for (const line of lines.slice(merges)) {
      const [, pr, sha] = /^\S+ #(\d+) sha=(\w+)/.exec(line) ?? [];
      expect(rejectedHeads.has(`${pr}@${sha}`), `${line} after a person rejected that head; ${context()}`).toBe(false);
      expect(closedByPerson.has(Number(pr)), `${line} while a person has it closed; ${context()}`).toBe(false);
    }
    merges = lines.length;
  };
  const step = async (name: string, act: () => Promise<unknown>) => {
    ops.push(name);
    w.clock.advance(30_000);
    await act();
    lookAtMerges();
  };
  const checkEvent = (pr: number) =>
    onCheckEvent(ctx(), {
      action: 'completed',
      check_run: { name: 'test', head_sha: w.gh.pull(pr).headSha, app: { slug: 'ci' } },
    });
  /** CI on a PR's current head concludes as the model says, with its acceptance judged, and its check event arrives. */
  const conclude = async (pr: number, ci: Ci, statuses: CriterionStatus[]) => {
    const sha = w.gh.pull(pr).headSha;
    await store.putEvidence(KEY, pr, sha, 'acceptance', {
      ...acceptanceOf(change, statusMap(statuses)),
      criteriaHash: criteriaHash(change),
    });
    w.gh.push(pr, sha, [{ name: 'test', conclusion: ci }]);
    model.set(pr, { ci, statuses, eventual: ci });
    await checkEvent(pr);
  };
  const close = async (pr: number) => {
    const p = w.gh.pull(pr);
    if (p.state !== 'open' || p.merged) return;
    p.state = 'closed';
    closedByPerson.add(pr);
    await onPullRequest(ctx(), pullPayload(w, pr, 'closed', 'maintainer'));
  };
  const reopen = async (pr: number) => {
    const p = w.gh.pull(pr);
    if (p.state !== 'closed' || p.merged) return;
    p.state = 'open';
    closedByPerson.delete(pr);
    await onPullRequest(ctx(), pullPayload(w, pr, 'reopened', 'maintainer'));
  };

  await step('select', () => selectionStep(ctx(), 42, 'main'));

  // The person's rejection.
  const victimHead = w.gh.pull(victim).headSha;
  const before = await store.getCandidate(KEY, victim);
  let rejected = false;
  await step(`${c.rejection} #${victim} (${c.when})`, async () => {
    if (c.rejection === 'close') {
      rejected = w.gh.pull(victim).state === 'open';
      await close(victim);
    } else if (c.rejection === 'reject') {
      const result = await rejectByPerson(ctx(), victim, 'maintainer', 'not what we asked for');
      rejected = result.ok && !c.shadow;
    } else {
      await onReview(ctx(), reviewPayload(w, victim, 'changes_requested', 'not what we asked for'));
    }
    const after = await store.getCandidate(KEY, victim);
    if (after?.state === 'rejected' && before?.state !== 'rejected') rejected = true;
    if (rejected && c.rejection !== 'close') rejectedHeads.add(`${victim}@${victimHead}`);
  });

  // Later evidence on the rejected head that would have won: its checks pass, every criterion met.
  const wouldWin = others.every((pr) => {
    const m = model.get(pr)!;
    return w.gh.pull(pr).state !== 'open' || !wins({ ci: m.eventual, statuses: m.statuses });
  });
  await step(`evidence #${victim}`, () => conclude(victim, 'success', ['met', 'met']));
  if (rejected && wouldWin && w.gh.pull(victim).headSha === victimHead) {
    tally.exercised += 1;
    const name = `${c.rejection}/${c.when}`;
    tally.byStory.set(name, (tally.byStory.get(name) ?? 0) + 1);
  }

  for (const op of c.later) {
    if (op.kind === 'edit')
      await step(`edit #${victim}`, () => onPullRequest(ctx(), pullPayload(w, victim, 'edited', 'agent-bot')));
    else if (op.kind === 'ready')
      await step(`ready #${victim}`, () =>
        onPullRequest(ctx(), pullPayload(w, victim, 'ready_for_review', 'agent-bot')),
      );
    else if (op.kind === 'close') await step(`close #${victim}`, () => close(victim));
    else if (op.kind === 'reopen') await step(`reopen #${victim}`, () => reopen(victim));
    else if (op.kind === 'close-reopen')
      await step(`close and reopen #${victim}`, async () => {
        await close(victim);
        await reopen(victim);
      });
    else if (op.kind === 'check') await step(`check event #${victim}`, () => checkEvent(victim));
    else if (op.kind === 'settle') {
      const pr = others[0]!;
      const m = model.get(pr)!;
      if (m.ci === 'pending') await step(`settle #${pr}`, () => conclude(pr, m.eventual, m.statuses));
    } else if (op.kind === 'push') {
      const pr = others[op.sibling]!;
      if (w.gh.pull(pr).state !== 'open') continue;
      await step(`push #${pr} ${op.ci} ${op.statuses}`, async () => {
        const sha = shaOf(pr, ++pushes);
        await store.putPatch({
          repo: KEY,
          pr,
          headSha: sha,
          mergeBase: 'base0000',
          patch: '',
          truncated: false,
          files: [{ path: 'src/search.ts', status: 'modified', additions: 10, deletions: 0 }],
        });
        w.gh.push(pr, sha, [{ name: 'test', conclusion: 'pending' }]);
        await onPullRequest(ctx(), pullPayload(w, pr, 'synchronize', 'agent-bot'));
        await conclude(pr, op.ci, op.statuses);
      });
    } else if (op.kind === 'approve') {
      const pr = others[op.sibling]!;
      await step(`approve #${pr}`, () => onReview(ctx(), reviewPayload(w, pr, 'approved', null)));
    } else
      await step('sweep', async () => {
        w.clock.advance(REPAIR_TIMEOUT * 1000 + 1000);
        await runSweep(w.deps);
      });
  }

  // Let everything that can end, end: the group decides, then the sibling timeout and the repair
  // timeout pass and the sweep runs (twice: a timed-out sibling's round may ask for a repair).
  await step('select', () => selectionStep(ctx(), 42, 'main'));
  for (let i = 0; i < 3; i++)
    await step('timeouts and sweep', async () => {
      w.clock.advance((Math.max(SIBLING_TIMEOUT, REPAIR_TIMEOUT) + 1) * 1000);
      await runSweep(w.deps);
    });

  if (process.env.DECISIONS_CASE) console.log(w.gh.writes.join('\n'));
  const applied = w.gh.applied();
  if (c.shadow) {
    expect(
      applied.filter((l) => PR_STATE_WRITE.test(l)),
      `shadow PR-state writes; ${context()}`,
    ).toEqual([]);
    expect(w.gh.dispatches).toEqual([]);
    expect(await store.getRepair(KEY, 42)).toBeNull();
  }
  // The Change ends somewhere a person can see.
  const row = await store.getChange(KEY, 42);
  const candidates = await store.listCandidatesOfChange(KEY, 42);
  const open = candidates.filter((x) => w.gh.pull(x.pr).state === 'open');
  const shipped = candidates.some((x) => w.gh.pull(x.pr).merged);
  const beforePerson = open.some(
    (x) => w.gh.pull(x.pr).labels.includes(AWAITING) && w.gh.pull(x.pr).reviewers.includes('maintainer'),
  );
  const noneLeft =
    open.length === 0 &&
    (candidates.every((x) => x.state === 'withdrawn' || x.state === 'rejected') ||
      w.gh.commentsOn(42).some((m) => m.body.includes('remains open')));
  // Shadow mode decides and says so, but asks nobody and closes nothing.
  const shadowSaid = c.shadow && open.every((x) => w.gh.checkOn(x.pr, 'Arbiter / selection')?.status === 'completed');
  const ending = shipped
    ? 'shipped'
    : row?.state === 'cancelled'
      ? 'cancelled'
      : beforePerson
        ? 'person'
        : noneLeft
          ? 'none-left'
          : shadowSaid
            ? 'shadow'
            : null;
  const states = candidates.map(
    (x) =>
      `#${x.pr} ${x.state} ${w.gh.pull(x.pr).state} [${w.gh.pull(x.pr).labels}] ${w.gh.checkOn(x.pr, 'Arbiter / selection')?.title}`,
  );
  expect(ending, `a Change in state ${row?.state} ended nowhere: ${states.join('; ')}; ${context()}`).not.toBeNull();
  tally.endings.add(ending!);
  tally.runs += 1;
}

const newTally = (): Tally => ({ runs: 0, exercised: 0, byStory: new Map(), endings: new Set() });
const SEED = Number(process.env.DECISIONS_SEED ?? 20261204);
const RUNS = Number(process.env.DECISIONS_RUNS ?? 30);

describe('decisions over generated stories', () => {
  let opened: OpenedBackend;
  let store: StoreWithDb;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-decisions-property');
    store = opened.store;
  });
  afterAll(async () => opened?.dispose());

  const property = (tally: Tally, endOnFailure = false) =>
    fc.assert(
      fc.asyncProperty(arbStory, (c) => playStory(opened, store, c, tally)),
      {
        seed: SEED,
        numRuns: RUNS,
        endOnFailure,
        includeErrorInReport: endOnFailure,
        ...(process.env.DECISIONS_CASE ? { examples: [[JSON.parse(process.env.DECISIONS_CASE)]], numRuns: 1 } : {}),
      },
    );

  it('a rejected head never merges, shadow mode changes no PR, and every Change ends somewhere', async () => {
    rig.mutation = null;
    const tally = newTally();
    await property(tally);
    const byStory = [...tally.byStory].map(([k, n]) => `${k} ${n}`).join(', ');
    console.info(
      `decisions property (seed ${SEED}): ${tally.exercised} of ${tally.runs} runs had a rejection followed by evidence that would have won (${byStory}); endings: ${[...tally.endings].sort().join(', ')}`,
    );
    // The claim was exercised: rejections of each kind were followed by evidence that would have won.
    expect(tally.exercised).toBeGreaterThan(0);
    for (const kind of ['reject', 'changes-requested', 'close'])
      expect(
        [...tally.byStory.keys()].some((k) => k.startsWith(`${kind}/`)),
        kind,
      ).toBe(true);
    // The endings are not vacuous either.
    expect([...tally.endings]).toEqual(expect.arrayContaining(['person', 'shipped']));
  }, 600_000);

  it('fails when the guard that keeps a rejected candidate out of its siblings is removed (mutation)', async () => {
    rig.mutation = 'rejected-rejoins-siblings';
    try {
      await expect(property(newTally(), true)).rejects.toThrow(/after a person rejected that head/);
    } finally {
      rig.mutation = null;
    }
  }, 600_000);

  it('fails when the guard in the close is removed: a rejected PR closed and reopened comes back (mutation)', async () => {
    rig.mutation = 'close-withdraws-rejected';
    try {
      await expect(property(newTally(), true)).rejects.toThrow(/after a person rejected that head/);
    } finally {
      rig.mutation = null;
    }
  }, 600_000);
});
