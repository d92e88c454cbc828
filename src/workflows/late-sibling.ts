// A late sibling: a PR that links a Change that already shipped or was cancelled. It holds no
// round; it gets a completed neutral `Arbiter / selection` saying why, and is closed as stale.
import type { Action } from '../core/actions.ts';
import { markerFor } from '../core/render/markers.ts';
import type { CandidateRow, ChangeRow } from '../store/types.ts';
import type { PullFacts } from './model.ts';
import { OPEN_STATES } from '../core/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { shippedOn } from './shipped.ts';
import { changeActionKey, markerKey } from '../core/keys.ts';

/** True when the PR came after its Change ended: then it was answered here, and is not a sibling. */
export async function answerLateSibling(
  ctx: RepoContext,
  change: ChangeRow,
  pull: PullFacts,
  existing: CandidateRow | null,
): Promise<boolean> {
  // Shipping ends the group of its base only: a PR on another base is that group's sibling.
  const shipped = await shippedOn(ctx, change.number, pull.base);
  if (change.state !== 'cancelled' && !shipped) return false;
  if (existing && (OPEN_STATES.has(existing.state) || existing.state === 'promoted')) return false;
  const { store } = ctx.deps;
  const title = shipped ? `#${shipped.pr} already shipped for #${change.number}` : `#${change.number} was cancelled`;
  const shadow = ctx.config.mode === 'shadow';
  const summary = `${title}, so this pull request is not compared with anything. ${shadow ? 'Shadow mode: Arbiter would close it as stale.' : 'Arbiter closes it as stale.'}`;
  const k = (s: string): string => changeActionKey(ctx.key, change.number, 'late', `${pull.number}@${pull.headSha}`, s);
  const reason = `${title}.`;
  const actions: Action[] = [
    {
      kind: 'check-run',
      key: k('check'),
      pr: pull.number,
      headSha: pull.headSha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      title,
      summary,
    },
    {
      kind: 'comment',
      key: k('note'),
      issue: pull.number,
      marker: markerKey('late', pull.number),
      body: `${markerFor(markerKey('late', pull.number))}\n${summary}`,
    },
    { kind: 'close', key: k('close'), pr: pull.number },
  ];
  // The answer first, then the record: a retry after a kill in between finds no stale row that
  // would keep it from answering (the actions are keyed, so nothing is written twice).
  await executePlan(ctx, actions);
  await store.upsertCandidate({
    repo: ctx.key,
    pr: pull.number,
    change: change.number,
    base: pull.base,
    headSha: pull.headSha,
    author: pull.author,
    state: 'stale',
    reason,
    headSeenAt: nowIso(ctx),
  });
  return true;
}
