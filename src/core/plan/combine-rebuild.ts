// The combined candidate follows its parents (DESIGN.md section 6): a parent whose head moved
// before the combined PR was decided is merged into the combined branch again, and a merge GitHub
// refuses (a conflict) ends the combined candidate while its parents stay candidates. Pure.
import { markerFor } from '../render/markers.ts';
import type { Action } from '../actions.ts';
import { combineReceipt, type CombineRecord } from '../combine.ts';
import { combinedMarker, combineKey } from '../keys.ts';
import { plannedActions } from '../replay-lines.ts';

type Opened = CombineRecord & { outcome: { outcome: 'opened' } };

/** A combine record whose combined PR was opened. */
export const isOpened = (record: CombineRecord): record is Opened => record.outcome.outcome === 'opened';

/** The store key of the merge of parent `pr`'s head `sha` into the combined branch: once per head. */
export const rebuildKey = (repo: string, change: number, pr: number, sha: string): string =>
  `${combineKey(repo, change)}/rebuild/${pr}@${sha}`;

/**
 * The merges that bring the combined branch up to its parents' current heads: one per open parent
 * whose head is not the one the combined PR was built from. `heads`: each parent's head as the
 * decision's read found it (a parent missing from it is no longer open, and is not merged again).
 * A merge already made is keyed by its head, so the executor answers it from the store.
 */
export function planRebuild(repo: string, record: Opened, heads: ReadonlyMap<number, string>): Action[] {
  const { proposal: p } = record;
  const actions: Action[] = [];
  for (const side of [p.a, p.b]) {
    const head = heads.get(side.pr);
    if (head === undefined || head === side.headSha) continue;
    actions.push({
      kind: 'combine-merge',
      key: rebuildKey(repo, p.change, side.pr, head),
      change: p.change,
      branch: p.branch,
      source: side.pr,
      sha: head,
    });
  }
  return actions;
}

/** GitHub's answer to one rebuild merge, as the executor recorded it. */
export type RebuildAnswer = { ok: true; sha: string | null } | { ok: false; status: number; message: string };

/** The line the comparison carries once a rebuild merge was refused. */
export function rebuildEndNote(record: Opened, source: number, sha: string, answer: RebuildAnswer): string {
  const c = record.outcome.pr;
  const others = [record.proposal.a.pr, record.proposal.b.pr].map((n) => `#${n}`).join(' and ');
  const why = answer.ok
    ? ''
    : answer.status === 409
      ? `its new head ${sha.slice(0, 7)} conflicts with the rest of #${c}`
      : `GitHub refused to merge its new head ${sha.slice(0, 7)} into \`${record.proposal.branch}\` (${answer.status}: ${answer.message})`;
  return `The combined candidate #${c} was closed: #${source} moved on after #${c} was built, and ${why}. ${others} are compared on their own.`;
}

/**
 * A rebuild merge was refused: the combined PR is closed with the reason (on it and on the
 * Change), and leaves the running; its parents stay open and are compared without it.
 */
export function planRebuildEnded(input: {
  repo: string;
  record: Opened;
  /** The combined PR's head as the decision read it: its check says why it closed. */
  headSha: string;
  source: number;
  sha: string;
  answer: Extract<RebuildAnswer, { ok: false }>;
  now: string;
}): Action[] {
  const { repo, record, source, sha } = input;
  const { proposal: p } = record;
  const c = record.outcome.pr;
  const k = (suffix: string): string => `${rebuildKey(repo, p.change, source, sha)}/ended/${suffix}`;
  const note = rebuildEndNote(record, source, sha, input.answer);
  const built = combineReceipt({ repo, proposal: p, outcome: record.outcome, now: input.now });
  const receipt =
    built.kind === 'COMBINED_CANDIDATE' ? { ...built, data: { ...built.data, outcome: 'ended', reason: note } } : built;
  const marker = combinedMarker(p.change);
  const actions: Action[] = [
    { kind: 'receipt', key: k('receipt'), receipt },
    {
      kind: 'check-run',
      key: k('check'),
      pr: c,
      headSha: input.headSha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      title: `Closed: #${source} moved on`,
      summary: note,
    },
    {
      kind: 'comment',
      key: k('note'),
      issue: c,
      marker: `rebuild:${c}`,
      body: `${markerFor(`rebuild:${c}`)}\n${note}`,
    },
    { kind: 'close', key: k('close'), pr: c },
    { kind: 'set-state', key: k('state'), pr: c, state: 'stale', reason: note },
    { kind: 'comment', key: k('change-note'), issue: p.change, marker, body: `${markerFor(marker)}\n${note}` },
  ];
  // The receipt keeps the plan's inputs: `npm run replay` decides the ending again (core/replay.ts).
  return plannedActions(actions, { planner: 'rebuild-ended', inputs: input });
}

/** The COMBINED_CANDIDATE receipt of a rebuild that landed: which parent heads the branch now holds. */
export function planRebuilt(input: {
  repo: string;
  record: Opened;
  merged: { pr: number; sha: string | null }[];
  headSha: string;
  now: string;
}): Action[] {
  const { repo, record } = input;
  const { proposal: p } = record;
  const receipt = combineReceipt({ repo, proposal: p, outcome: record.outcome, now: input.now });
  if (receipt.kind !== 'COMBINED_CANDIDATE') return [];
  const data = { ...receipt.data, outcome: 'rebuilt', merges: [...receipt.data.merges, ...input.merged] };
  const key = `${combineKey(repo, p.change)}/rebuilt/${input.headSha}`;
  return plannedActions([{ kind: 'receipt', key, receipt: { ...receipt, data } }], {
    planner: 'rebuilt',
    inputs: input,
  });
}
