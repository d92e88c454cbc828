// A plan as lines a person can read and a replay can compare: one line per action, with the
// fields that say what it does and a digest of all of it (so a changed body shows as a changed
// line). Pure: the digest is FNV-1a over JSON with sorted keys, the same on any machine.
import type { Action } from './actions.ts';
import type { PlannedBy, Receipt } from './receipt.ts';
import { digest } from './digest.ts';
import { refText } from './candidate-set.ts';

const quoted = (text: string, max = 60): string =>
  JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** What a receipt is, in one line; its digest lets a stored receipt be found in the plan that made it. */
export const receiptLine = (r: Receipt): string => `receipt ${r.kind} round ${r.round} #${digest(r)}`;

const relabelWords = (relabel: { add: string[]; remove: string[] } | undefined): string => {
  const words = [
    ...(relabel?.add ?? []).map((l) => `label ${l}`),
    ...(relabel?.remove ?? []).map((l) => `unlabel ${l}`),
  ];
  return words.length > 0 ? ` (${words.join(', ')})` : '';
};

/** What an action does, in a few words. */
function actionWords(a: Action): string {
  switch (a.kind) {
    case 'comment':
      return `comment on #${a.issue} [${a.marker}]`;
    case 'close':
      return `close #${a.pr}${relabelWords(a.relabel)}`;
    case 'label':
      return `label #${a.issue} ${a.labels.join(', ')}`;
    case 'unlabel':
      return `unlabel #${a.issue} ${a.label}`;
    case 'mark-ready':
      return `mark #${a.pr} ready for review`;
    case 'merge':
      return `merge #${a.pr} at ${a.sha.slice(0, 7)} (${a.method})`;
    case 'auto-merge':
      return `auto-merge #${a.pr} at ${a.sha.slice(0, 7)} (${a.method}${a.queue ? ', merge queue' : ''})`;
    case 'disable-auto-merge':
      return `disable the auto-merge of #${a.pr} at ${a.sha.slice(0, 7)} (${a.why})`;
    case 'dequeue':
      return `take #${a.pr} at ${a.sha.slice(0, 7)} out of the merge queue (${a.why})`;
    case 'set-change-state':
      return `set #${a.change} ${a.state}${a.observed ? ' (observed)' : ''}`;
    case 'open-round':
      return `open round ${a.from + 1} of #${a.change} on ${a.base}`;
    case 'forget-evidence':
      return `forget the ${a.evidence} evidence of #${a.pr} at ${a.headSha.slice(0, 7)}`;
    case 'event':
      return `event ${a.event}`;
    case 'update-branch':
      return `update the branch of #${a.pr} from ${a.sha.slice(0, 7)}`;
    case 'request-review':
      return `request review of #${a.pr} from ${[...a.reviewers, ...a.teams.map((t) => `team ${t}`)].join(', ')}`;
    case 'check-run':
      return `check-run ${a.name} on #${a.pr}: ${[a.status, a.conclusion, quoted(a.title)].filter(Boolean).join(' ')}`;
    case 'dispatch':
      return `dispatch ${a.eventType}`;
    case 'receipt':
      return receiptLine(a.receipt);
    case 'set-state':
      return `set #${a.pr} ${a.state}${a.observed ? ' (observed)' : ''}`;
    case 'put-evidence':
      return `store the ${a.evidence.of} evidence of #${a.pr} at ${a.headSha.slice(0, 7)}`;
    case 'put-patch':
      return `store the patch of #${a.patch.pr} at ${a.patch.headSha.slice(0, 7)}`;
    case 'keep-check':
      return `keep a check event on ${a.headSha.slice(0, 7)}`;
    case 'take-kept-checks':
      return `take the kept check events of ${a.headSha.slice(0, 7)}`;
    case 'record-candidate':
      return `record #${a.candidate.pr} as a ${a.candidate.state} candidate of #${a.candidate.change}`;
    case 'claim-repair':
      return `claim the repair of #${a.change} for #${a.pr}`;
    case 'combine-branch':
      return `create ${a.branch} at the head of ${a.base}`;
    case 'combine-merge':
      return `merge #${a.source} (${a.sha.slice(0, 7)}) into ${a.branch}`;
    case 'combine-pull':
      return `open a draft pull request from ${a.branch} into ${a.base}`;
    case 'combine-delete':
      return `delete ${a.branch}`;
    case 'react':
      return `react ${a.content} to comment ${a.commentId}`;
    case 'record':
      return `record ${a.key}`;
    case 'record-set':
      return `record set ${a.record.name} of ${a.record.change.repo}#${a.record.change.number}: ${a.record.state}`;
    case 'record-deep':
      return `await the refines of ${a.deep.map((d) => `#${d.pr}`).join(', ') || 'nobody'} (portfolio ${a.portfolio} of #${a.change})`;
    case 'start-portfolio':
      return `start explore ${a.portfolio.number} of #${a.portfolio.change} on ${a.portfolio.base} (${a.slots.length} slots)`;
    case 'rerun':
      return `re-run the scoring check of #${a.pr} (run ${a.run.id})`;
    case 'portfolio-phase':
      return `move explore ${a.portfolio} of #${a.change} from ${a.from} to ${a.to}`;
    case 'settle-slot':
      return a.to.state === 'open' ? `fill slot ${a.slot} with #${a.to.pr}` : `drop slot ${a.slot}`;
    case 'settle-deep':
      return `the refine of #${a.pr} ${a.state} (portfolio ${a.portfolio} of #${a.change})`;
    case 'put-readings':
      return `keep ${a.readings.length} readings of the scoring check (portfolio ${a.portfolio} of #${a.change})`;
    case 'in-repo':
      return `in ${a.repo}: ${a.actions.map((i) => actionWords(i)).join('; ')}`;
    case 'claim':
      return `claim ${a.key} for ${a.holder}`;
    case 'take-budget':
      return `take ${a.calls} model call${a.calls === 1 ? '' : 's'} from the budget of #${a.change} on ${a.day}`;
    case 'claim-round':
      return `claim round ${a.roundId}`;
    case 'release-round':
      return `give back round ${a.roundId}`;
    case 'record-decision':
      return `record the decision of round ${a.roundId}`;
    case 'mark':
      return `mark ${a.key}`;
    case 'dashboard-issue':
      return a.issue === null ? 'open the dashboard issue' : `write the dashboard issue #${a.issue}`;
    case 'forget':
      return `forget ${a.record}`;
    case 'take-mark':
      return `take the mark ${a.marker} of #${a.pr} at ${a.sha.slice(0, 7)}`;
    case 'put-record':
      return `${a.replace ? 'replace' : 'record'} ${a.record}`;
    case 'upsert-change':
      return `store the issue of #${a.change.number} (${a.change.criteria.length} criteria, ${a.change.state})`;
  }
}

export function describeAction(action: Action): string {
  // A receipt's line already carries its digest; every other line gets the digest of the whole action.
  return action.kind === 'receipt' ? actionWords(action) : `${actionWords(action)} #${digest(action)}`;
}

/** The plan's actions, then (for a ship verdict) what follows the merge and what a refused merge writes. */
export function describePlan(plan: {
  actions: Action[];
  afterShip?: Action[];
  onRefused?: Action[];
  onUpdated?: Action[];
  /** A winning candidate set's ship: its members merge one at a time, in this order. */
  shipSet?: { name: string; order: { repo: string; number: number }[] };
}): string[] {
  const ship = plan.shipSet;
  return [
    ...plan.actions.map(describeAction),
    ...(ship
      ? [`ship set ${ship.name}: merge ${ship.order.map(refText).join(', then ')}, each at its verified head`]
      : []),
    ...(plan.afterShip ?? []).map((a) => `after the merge: ${describeAction(a)}`),
    ...(plan.onRefused ?? []).map((a) => `if the merge is refused: ${describeAction(a)}`),
    ...(plan.onUpdated ?? []).map((a) => `if the branch is updated: ${describeAction(a)}`),
  ];
}

/** A receipt with its planner's inputs and outcome; kinds that carry neither are left as they are. */
function withPlanned(r: Receipt, planned: PlannedBy): Receipt {
  switch (r.kind) {
    case 'HUMAN_GATE':
      return { ...r, data: { ...r.data, planned } };
    case 'CANCEL':
      return { ...r, data: { ...r.data, planned } };
    case 'ACCEPTANCE_REPAIR':
      return { ...r, data: { ...r.data, planned } };
    case 'PROMOTION':
      return { ...r, data: { ...r.data, planned } };
    case 'PORTFOLIO_WIDE':
      return { ...r, data: { ...r.data, planned } };
    case 'COMBINED_CANDIDATE':
      return { ...r, data: { ...r.data, planned } };
    default:
      return r;
  }
}

/** A planner's name and inputs, as a receipt records them (with the outcome added). */
export type PlannerInputs = PlannedBy extends infer T ? (T extends PlannedBy ? Omit<T, 'outcome'> : never) : never;

/**
 * The plan's actions, its (first) receipt carrying the planner's name, its inputs and one line per
 * other action, so `npm run replay` runs the planner again on them (src/core/replay.ts). A second
 * receipt of the plan is one of those lines: it replays as part of the first (kept once, kept small).
 */
export function plannedActions(actions: Action[], by: PlannerInputs): Action[] {
  const carrier = actions.findIndex((a) => a.kind === 'receipt');
  const outcome = describePlan({ actions: actions.filter((_, i) => i !== carrier) });
  const planned: PlannedBy = { ...by, outcome };
  return actions.map((a, i) =>
    i === carrier && a.kind === 'receipt' ? { ...a, receipt: withPlanned(a.receipt, planned) } : a,
  );
}
