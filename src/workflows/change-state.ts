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
  await store.setChangeState(ctx.key, number, all.some((c) => c.state === 'promoted') ? 'shipped' : 'open');
  await store.addEvent(ctx.key, 'change.reopened', { change: number }, nowIso(ctx));
  const open = all.filter((c) => OPEN_STATES.has(c.state));
  // Each group starts a fresh round: whatever was decided before the cancellation does not stand.
  for (const base of new Set(open.map((c) => c.base))) {
    const round = await store.currentRound(ctx.key, number, base, nowIso(ctx));
    if (round.selection !== null) await store.openNextRound(ctx.key, number, base, round.number, nowIso(ctx));
  }
  for (const c of open) {
    await store.setCandidateState(ctx.key, c.pr, 'verifying', 'change reopened');
    await verifyAndSelect(ctx, c.pr);
  }
}

/** The Change's criteria changed: every open candidate is judged again, in a fresh round per base. */
export async function judgeAgainForCriteria(ctx: RepoContext, number: number): Promise<void> {
  const { store } = ctx.deps;
  const open = (await store.listCandidatesOfChange(ctx.key, number)).filter((c) => OPEN_STATES.has(c.state));
  for (const base of new Set(open.map((c) => c.base))) {
    // A base that shipped keeps its round: its claimant still closes the losers.
    if (await shippedOn(ctx, number, base)) continue;
    const round = await store.currentRound(ctx.key, number, base, nowIso(ctx));
    if (round.selection !== null) await store.openNextRound(ctx.key, number, base, round.number, nowIso(ctx));
  }
  for (const c of open) {
    await store.setCandidateState(ctx.key, c.pr, 'verifying', 'criteria changed');
    await verifyAndSelect(ctx, c.pr);
  }
}
