// Property test (fast-check, seeded) of decisions over random event sequences (issue 14): people's
// rejections and approvals, changes-requested reviews, pushes, closes, reopens and retargets in
// random order, through the handlers and workflows over the recording fake and a real store.
// Shadow mode never closes, labels, merges or dispatches; no head a person rejected is merged;
// every Change ends shipped, before a person with a review request, or waiting on a named sibling.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CriterionStatus } from '../../src/core/types.ts';
import { onPullRequest } from '../../src/handlers/pull-request.ts';
import { onReview } from '../../src/handlers/review.ts';
import type { StoreWithDb } from '../../src/store/store.ts';
import type { ChangeRow } from '../../src/store/types.ts';
import { rejectByPerson } from '../../src/workflows/people.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { expireRepair } from '../../src/workflows/sweep.ts';
import { criteriaHash } from '../../src/workflows/evidence.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { acceptanceOf, configOf, makeWorld, seedGroup, shaOf, type World } from '../support/selection-world.ts';

const KEY = 'acme/todo';
const PRS = [12, 13, 14];
const AWAITING = 'arbiter:awaiting-approval';
const PR_STATE_WRITE = /^(close|label|unlabel|merge|auto-merge|ready|review|dispatch) /;

type Op =
  | { kind: 'reject'; pr: number }
  | { kind: 'changes-requested'; pr: number }
  | { kind: 'approve'; pr: number }
  | { kind: 'push'; pr: number; statuses: CriterionStatus[] }
  | { kind: 'close'; pr: number }
  | { kind: 'reopen'; pr: number }
  | { kind: 'retarget'; pr: number }
  | { kind: 'sweep' };

const arbStatuses = fc.array(fc.constantFrom<CriterionStatus>('met', 'met', 'not_met'), { minLength: 2, maxLength: 2 });
const arbPr = fc.constantFrom(...PRS);
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('reject' as const), pr: arbPr }),
  fc.record({ kind: fc.constant('changes-requested' as const), pr: arbPr }),
  fc.record({ kind: fc.constant('approve' as const), pr: arbPr }),
  fc.record({ kind: fc.constant('push' as const), pr: arbPr, statuses: arbStatuses }),
  fc.record({ kind: fc.constant('close' as const), pr: arbPr }),
  fc.record({ kind: fc.constant('reopen' as const), pr: arbPr }),
  fc.record({ kind: fc.constant('retarget' as const), pr: arbPr }),
  fc.constant({ kind: 'sweep' as const }),
);
const arbCase = fc.record({
  shadow: fc.boolean(),
  initial: fc.array(arbStatuses, { minLength: 3, maxLength: 3 }),
  ops: fc.array(arbOp, { minLength: 1, maxLength: 7 }),
});

const statusMap = (s: CriterionStatus[]): Record<string, CriterionStatus> => ({ AC1: s[0]!, AC2: s[1]! });

function pullPayload(
  w: World,
  pr: number,
  action: string,
  sender: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
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
    ...extra,
  };
}

/** A new head whose checks passed and whose acceptance is known, as CI and the model would leave it. */
async function prepareHead(
  w: World,
  change: ChangeRow,
  pr: number,
  sha: string,
  statuses: CriterionStatus[],
): Promise<void> {
  await w.store.putPatch({
    repo: KEY,
    pr,
    headSha: sha,
    mergeBase: 'base0000',
    patch: '',
    truncated: false,
    files: [{ path: 'src/calendar.ts', status: 'modified', additions: 10, deletions: 0 }],
  });
  await w.store.putEvidence(KEY, pr, sha, 'acceptance', {
    ...acceptanceOf(change, statusMap(statuses)),
    criteriaHash: criteriaHash(change),
  });
  w.gh.push(pr, sha, [{ name: 'test', conclusion: 'success' }]);
}

describe('decisions over random event sequences', () => {
  let opened: OpenedBackend;
  let store: StoreWithDb;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-decisions-property');
    store = opened.store;
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('shadow mode changes no PR, a rejected head never merges, and every Change ends somewhere', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(arbCase, async (c) => {
        await opened.truncate();
        const config = configOf({
          mode: c.shadow ? 'shadow' : 'live',
          policy: { reviewers: ['maintainer'] },
          repair: { timeout: 600 },
        });
        const w = makeWorld({ store, config });
        w.gh.permissions.set('maintainer', 'write');
        const change = await seedGroup(w, {
          criteria: ['A search box filters the list', 'The search ignores case'],
          siblings: PRS.map((pr, i) => ({ pr, acceptance: statusMap(c.initial[i]!) })),
        });
        const ctx = () => w.ctx(`job-${w.gh.writes.length}-${w.clock.now().getTime()}`);
        const rejected = new Set<string>();
        let pushes = 0;
        await selectionStep(ctx(), 42, 'main');
        for (const op of c.ops) {
          w.clock.advance(30_000);
          const p = w.gh.pull(op.kind === 'sweep' ? PRS[0]! : op.pr);
          if (op.kind === 'reject' || op.kind === 'changes-requested') {
            const before = await store.getCandidate(KEY, p.number);
            const result =
              op.kind === 'reject'
                ? await rejectByPerson(ctx(), p.number, 'maintainer', 'not what we asked for')
                : (await onReview(ctx(), {
                    action: 'submitted',
                    review: {
                      state: 'changes_requested',
                      body: 'not what we asked for',
                      user: { login: 'maintainer' },
                    },
                    pull_request: { number: p.number, labels: p.labels.map((name) => ({ name })) },
                  }),
                  null);
            const after = await store.getCandidate(KEY, p.number);
            if (result?.ok || (before?.state !== after?.state && after?.state === 'rejected'))
              rejected.add(`${p.number}@${before?.headSha}`);
          } else if (op.kind === 'approve') {
            await onReview(ctx(), {
              action: 'submitted',
              review: { state: 'approved', body: null, user: { login: 'maintainer' } },
              pull_request: { number: p.number, labels: p.labels.map((name) => ({ name })) },
            });
          } else if (op.kind === 'push') {
            if (p.state !== 'open') continue;
            await prepareHead(w, change, p.number, shaOf(p.number, ++pushes), op.statuses);
            await onPullRequest(ctx(), pullPayload(w, p.number, 'synchronize', 'agent-bot'));
          } else if (op.kind === 'close') {
            if (p.state !== 'open' || p.merged) continue;
            p.state = 'closed';
            await onPullRequest(ctx(), pullPayload(w, p.number, 'closed', 'maintainer'));
          } else if (op.kind === 'reopen') {
            if (p.state !== 'closed' || p.merged) continue;
            p.state = 'open';
            await onPullRequest(ctx(), pullPayload(w, p.number, 'reopened', 'maintainer'));
          } else if (op.kind === 'retarget') {
            if (p.state !== 'open') continue;
            const from = p.baseRef;
            p.baseRef = from === 'main' ? 'release' : 'main';
            await onPullRequest(
              ctx(),
              pullPayload(w, p.number, 'edited', 'maintainer', { changes: { base: { ref: { from } } } }),
            );
          } else {
            w.clock.advance(601_000);
            await expireRepair(ctx(), 42);
          }
        }
        // Let everything that can end, end: each group decides, and a repair nobody answered times out.
        for (const base of ['main', 'release']) await selectionStep(ctx(), 42, base);
        w.clock.advance(601_000);
        await expireRepair(ctx(), 42);

        if (process.env.DECISIONS_CASE) console.log(w.gh.writes.join('\n'));
        const applied = w.gh.applied();
        if (c.shadow)
          expect(
            applied.filter((l) => PR_STATE_WRITE.test(l)),
            'shadow PR-state writes',
          ).toEqual([]);
        if (c.shadow) expect(w.gh.dispatches).toEqual([]);
        if (c.shadow) expect(await store.getRepair(KEY, 42)).toBeNull();
        for (const line of applied.filter((l) => l.startsWith('merge '))) {
          const [, pr, sha] = /^merge #(\d+) sha=(\w+)/.exec(line) ?? [];
          expect(rejected.has(`${pr}@${sha}`), `${line} after a person rejected that head`).toBe(false);
        }
        // Every group of the Change (one per base) ends somewhere a person can see.
        const row = await store.getChange(KEY, 42);
        const candidates = await store.listCandidatesOfChange(KEY, 42);
        for (const base of new Set(candidates.map((x) => x.base))) {
          const group = candidates.filter((x) => x.base === base);
          const open = group.filter((x) => w.gh.pull(x.pr).state === 'open');
          const shipped = group.some((x) => w.gh.pull(x.pr).merged);
          const beforePerson = open.some(
            (x) => w.gh.pull(x.pr).labels.includes(AWAITING) && w.gh.pull(x.pr).reviewers.includes('maintainer'),
          );
          const waiting = open.some((x) =>
            /^Waiting on #\d+/.test(w.gh.checkOn(x.pr, 'Arbiter / selection')?.title ?? ''),
          );
          const noneLeft =
            open.length === 0 &&
            (group.every((x) => x.state === 'withdrawn') ||
              w.gh.commentsOn(42).some((m) => m.body.includes('remains open')));
          // Shadow mode decides and says so, but asks nobody and closes nothing.
          const shadowSaid =
            c.shadow && open.every((x) => w.gh.checkOn(x.pr, 'Arbiter / selection')?.status === 'completed');
          const ending = shipped
            ? 'shipped'
            : beforePerson
              ? 'person'
              : waiting
                ? 'waiting'
                : noneLeft
                  ? 'none-left'
                  : shadowSaid
                    ? 'shadow'
                    : null;
          const states = group.map(
            (x) =>
              `#${x.pr} ${x.state} ${w.gh.pull(x.pr).state} [${w.gh.pull(x.pr).labels}] ${w.gh.checkOn(x.pr, 'Arbiter / selection')?.title}`,
          );
          expect(
            ending,
            `group ${base} of a Change in state ${row?.state}: ${states.join('; ')} ops ${JSON.stringify(c.ops)}`,
          ).not.toBeNull();
          seen.add(ending!);
        }
      }),
      {
        seed: 20261201,
        numRuns: Number(process.env.DECISIONS_RUNS ?? 25),
        ...(process.env.DECISIONS_CASE ? { examples: [[JSON.parse(process.env.DECISIONS_CASE)]], numRuns: 1 } : {}),
      },
    );
    // The endings above are not vacuous: the sequences reach each of them.
    expect([...seen].sort()).toEqual(expect.arrayContaining(['person', 'shipped']));
  }, 600_000);
});
