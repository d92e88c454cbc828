// A person closes or reopens the Change itself. Closing it by a trusted person cancels it, as
// `cancel` does (DESIGN.md section 6: every open candidate closes, its checks completed); reopening
// it lets its rounds resume: open candidates are compared again, and a candidate the cancellation
// closed comes back when its pull request is reopened.
import { markerFor } from '../core/render/markers.ts';
import { OPEN_STATES } from '../core/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { verifyAndSelect } from './flow.ts';
import { cancelChange } from './people.ts';
import { shippedOn } from './shipped.ts';
import { changeActionKey, markerKey } from '../core/keys.ts';
import { planJudgeAgain, planReopen, type RoundsAgainPlan, type RoundsAgainView } from '../core/plan/rounds-again.ts';
import type { CandidateRow } from '../store/types.ts';

/** The Change's issue was closed by a trusted person (the payload may be late: GitHub is asked). */
export async function closeChangeByPerson(ctx: RepoContext, number: number, user: string): Promise<void> {
  const { store } = ctx.deps;
  const change = await store.getChange(ctx.key, number);
  if (!change || change.state === 'cancelled') return;
  if ((await ctx.gh.getIssue(number))?.state !== 'closed') return; // reopened since
  const all = await store.listCandidatesOfChange(ctx.key, number);
  // A Change that shipped on a base is closed by the winner's closing keyword (or after the fact):
  // that close is not a cancellation, and a cancel would undo the shipped state and close the rest.
  if (change.state === 'shipped' || all.some((c) => c.state === 'promoted')) return;
  const open = all.filter((c) => OPEN_STATES.has(c.state));
  if (open.length === 0) return; // nothing left to decide: no candidate yet
  // A closing keyword of a candidate that was just merged closes the issue too: that is a ship.
  const pulls = await ctx.gh.readGroup(open.map((c) => c.pr));
  if ([...pulls.values()].some((p) => p.state === 'MERGED')) return;
  const result = await cancelChange(ctx, number, user, `@${user} closed #${number}, so the change is cancelled.`);
  const marker = markerKey('closed', number);
  const body = `${markerFor(marker)}\n@${user} closed #${number}. ${result.message} Reopen #${number} to compare its candidates again.`;
  await executePlan(ctx, [
    { kind: 'comment', key: changeActionKey(ctx.key, number, 'closed', ctx.token), issue: number, marker, body },
  ]);
}

/** The Change's issue was reopened by a trusted person: a cancelled Change is open again. */
export async function reopenChangeByPerson(ctx: RepoContext, number: number): Promise<void> {
  const { store } = ctx.deps;
  const change = await store.getChange(ctx.key, number);
  if (!change || change.state !== 'cancelled') return;
  if ((await ctx.gh.getIssue(number))?.state !== 'open') return; // closed again since
  const all = await store.listCandidatesOfChange(ctx.key, number);
  const open = all.filter((c) => OPEN_STATES.has(c.state));
  const view = await roundsView(ctx, number, open, [...new Set(open.map((c) => c.base))]);
  await carryOut(ctx, planReopen({ ...view, shipped: all.some((c) => c.state === 'promoted') }, nowIso(ctx)));
}

/** The Change's criteria changed: every open candidate is judged again, in a fresh round per base. */
export async function judgeAgainForCriteria(ctx: RepoContext, number: number): Promise<void> {
  const open = (await ctx.deps.store.listCandidatesOfChange(ctx.key, number)).filter((c) => OPEN_STATES.has(c.state));
  const bases: string[] = [];
  for (const base of new Set(open.map((c) => c.base))) {
    // A base that shipped keeps its round: its claimant still closes the losers.
    if (!(await shippedOn(ctx, number, base))) bases.push(base);
  }
  await carryOut(ctx, planJudgeAgain(await roundsView(ctx, number, open, bases), nowIso(ctx)));
}

/** The current round of each base that starts again, and the open candidates. */
async function roundsView(
  ctx: RepoContext,
  change: number,
  open: CandidateRow[],
  bases: string[],
): Promise<RoundsAgainView> {
  const rounds = [];
  for (const base of bases) {
    const round = await ctx.deps.store.currentRound(ctx.key, change, base, nowIso(ctx));
    rounds.push({ base, number: round.number, claimed: round.selection !== null });
  }
  return { repo: ctx.key, change, token: ctx.token, rounds, candidates: open.map((c) => c.pr) };
}

/** Applies the restart; each candidate is verified right after its own state is set, in turn. */
async function carryOut(ctx: RepoContext, plan: RoundsAgainPlan): Promise<void> {
  await executePlan(ctx, plan.actions);
  for (const c of plan.verify) {
    await executePlan(ctx, c.actions);
    await verifyAndSelect(ctx, c.pr);
  }
}
