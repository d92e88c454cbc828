// Shipping a winning candidate set (DESIGN.md section 6, "Composite candidate"). GitHub cannot merge
// across repositories at once, so the members merge one at a time, in `composite.order` (default the
// `Parts:` order), each with `sha` = the head verified when the set was compared. Before the first
// merge every member must be mergeable now (its merge state read fresh); a refusal part-way stops
// the set, and a person is told what merged and what did not. Nothing is reverted. Pure: the
// members as read now and Arbiter's recorded merge answers in; the next merge, or the end, out.
import type { Action } from '../actions.ts';
import { refText, type PullRef, type SetRecord } from '../candidate-set.ts';
import { candidateSetActionKey, candidateSetMergeKey, markerKey } from '../keys.ts';
import { LABEL_AWAITING } from '../labels.ts';
import type { MergeMethod } from '../merge-view.ts';
import { markerFor } from '../render/markers.ts';
import { memberLink, membersOf, setText, shipOrder } from './set-rank.ts';

type Comment = Extract<Action, { kind: 'comment' }>;

export { memberLink, membersOf, shipOrder };
/** "set `slow` (acme/api#7, acme/ui#9)", with links. */
export const setName = (set: SetRecord, web: string | null): string => setText(set, web);

/** GitHub's merge states in which a member can merge now (a draft is marked ready right before its merge). */
const MERGEABLE_NOW = new Set(['CLEAN', 'HAS_HOOKS', 'UNSTABLE', 'DRAFT']);

export interface ShipMember {
  ref: PullRef;
  /** The head verified when the set was compared (its record): the only head that merges. */
  verified: string;
  /** The pull request as read now (its merge state fresh from GitHub); null when it could not be read. */
  pull: { open: boolean; merged: boolean; headSha: string; draft: boolean; status: string | null } | null;
  /** Arbiter's recorded answer to its merge at `verified`; null: not tried. */
  answer: { ok: true } | { ok: false; status: number; message: string } | null;
  method: MergeMethod;
}

export interface ShipDecided {
  /** The decision's comparison comment, whose set headline and merge line the ship rewrites. */
  comparison: Comment | null;
  headline: string;
  line: string;
  /** The ranking table and the receipt, folded into each member's selection check. */
  text?: string;
}

export interface SetShipView {
  change: PullRef;
  /** Where the decision was made: `main/r2` (a round of the Change) or `sets` (only sets). */
  scope: string;
  /** The round's number, for the members' note markers. */
  round: number;
  set: SetRecord;
  /** The members in ship order. */
  members: ShipMember[];
  decided: ShipDecided;
  /** What follows once every member merged: the other candidates close with their reasons. */
  afterShip: Action[];
  web: string | null;
  comparisonUrl: string | null;
  /** The executor kept the merge back (shadow mode): nothing merges, and the words say "would". */
  shadow: boolean;
}

export type SetShipPlan =
  | { kind: 'merge'; member: PullRef; actions: Action[] }
  | { kind: 'end'; end: 'merged' | 'person' | 'shadow'; actions: Action[] };

type Status = 'to merge' | 'merged' | 'refused' | 'not merged' | 'would merge';

const isMerged = (m: ShipMember): boolean => m.pull?.merged === true || m.answer?.ok === true;

/** GitHub's whole message on one line (a comment's bold headline holds no line break). */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Why a member cannot merge now, or null. */
function notMergeable(m: ShipMember): string | null {
  const name = refText(m.ref);
  if (m.pull === null) return `${name} could not be read`;
  if (m.pull.merged) return null;
  if (!m.pull.open) return `${name} is closed`;
  if (m.pull.headSha !== m.verified)
    return `${name}'s head moved since it was verified (${m.verified.slice(0, 7)}, now ${m.pull.headSha.slice(0, 7)})`;
  const status = (m.pull.status ?? 'UNKNOWN').toUpperCase();
  return MERGEABLE_NOW.has(status) ? null : `${name} cannot merge now (GitHub reports mergeStateStatus ${status})`;
}

/** "Merge order: acme/api#7 (merged), then acme/ui#9 (to merge)." */
export function mergeLine(members: readonly PullRef[], status: (ref: PullRef) => Status): string {
  return `Merge order: ${members.map((r) => `${refText(r)} (${status(r)})`).join(', then ')}.`;
}

/** Who shipped, as a loser's last sentence names it: "The set `good`'s members acme/api#7 and acme/ui#9". */
export const setShipped = (set: SetRecord): string =>
  `The set \`${set.name}\`'s members ${membersOf(set).map(refText).join(' and ')}`;

/** A single-repository candidate's outcome in the comparison when a set won: before, and once every member merged. */
export const singleOutcome = (set: SetRecord, merged: boolean): string =>
  merged
    ? `lost to ${setName(set, null)}: every member merged`
    : `loses to ${setName(set, null)} once its members merged`;

/** The comparison's headline when the set won, before anything merged. */
export function decidedHeadline(set: SetRecord, order: readonly PullRef[], web: string | null): string {
  return `The best candidate is ${setName(set, web)}: Arbiter merges its members one at a time in this order, each at its verified head: ${order.map(refText).join(', then ')}.`;
}

/** The decision-time words a winning set's ship rewrites later. */
export function decidedWords(
  set: SetRecord,
  order: readonly PullRef[],
  web: string | null,
): { headline: string; line: string } {
  return { headline: decidedHeadline(set, order, web), line: mergeLine(order, () => 'to merge') };
}

const list = (refs: PullRef[], web: string | null): string => refs.map((r) => memberLink(r, web)).join(', ');

/** The next merge of the set, or how its ship ended and everything that says so. */
export function planSetShip(view: SetShipView): SetShipPlan {
  const { members } = view;
  if (view.shadow) return end(view, 'shadow', null);
  const refused = members.find((m) => !isMerged(m) && m.answer?.ok === false);
  if (refused?.answer?.ok === false) {
    const a = refused.answer;
    return end(view, 'person', {
      refused: refused.ref,
      words: `GitHub refused to merge ${memberLink(refused.ref, view.web)} (${a.status}): "${oneLine(a.message)}"`,
    });
  }
  const next = members.find((m) => !isMerged(m));
  if (next === undefined) return end(view, 'merged', null);
  // Before the first merge, every member must be mergeable now; later, the next one (it may have moved since).
  const first = !members.some(isMerged);
  const blockers = (first ? members : [next]).map(notMergeable).filter((b): b is string => b !== null);
  if (blockers.length > 0)
    return end(view, 'person', { refused: next.ref, words: `${blockers.join('; ')}, so Arbiter did not merge it` });
  const key = (what: string): string =>
    candidateSetActionKey(view.change.repo, view.change.number, view.set.name, `ship/${view.scope}/${what}`);
  const actions: Action[] = [];
  if (next.pull?.draft === true)
    actions.push({ kind: 'mark-ready', key: key(`ready/${refText(next.ref)}@${next.verified}`), pr: next.ref.number });
  actions.push({
    kind: 'merge',
    key: candidateSetMergeKey(
      view.change.repo,
      view.change.number,
      view.set.name,
      next.ref.repo,
      next.ref.number,
      next.verified,
    ),
    pr: next.ref.number,
    sha: next.verified,
    method: next.method,
  });
  return { kind: 'merge', member: next.ref, actions };
}

/** How the ship ended: the comparison, each member's check and note, and the Change's state. */
function end(
  view: SetShipView,
  how: 'merged' | 'person' | 'shadow',
  stop: { refused: PullRef; words: string } | null,
): SetShipPlan {
  const { set, web, members } = view;
  const change = refText(view.change);
  const merged = members.filter(isMerged).map((m) => m.ref);
  const open = members.filter((m) => !isMerged(m)).map((m) => m.ref);
  const status = (ref: PullRef): Status => {
    if (how === 'shadow') return 'would merge';
    if (merged.some((r) => refText(r) === refText(ref))) return 'merged';
    return stop !== null && refText(stop.refused) === refText(ref) ? 'refused' : 'not merged';
  };
  const order = members.map((m) => m.ref);
  const line = mergeLine(order, status);
  const name = setName(set, web);
  const headline =
    how === 'merged'
      ? `Shipped ${name}: every member merged, in order (${order.map(refText).join(', then ')}).`
      : how === 'shadow'
        ? `Shadow mode: the best candidate is ${name}; Arbiter would merge its members in order (${order.map(refText).join(', then ')}), each at its verified head. Nothing was merged.`
        : `The ${name} did not fully ship: ${merged.length > 0 ? `${list(merged, web)} merged` : 'nothing merged'}; ${list(open, web)} did not. ${stop?.words ?? ''}. Nothing is reverted and nothing else is merged: a person merges the rest by hand, or reverts what merged, or cancels the Change.`;
  const key = (what: string): string =>
    candidateSetActionKey(view.change.repo, view.change.number, set.name, `ship/${view.scope}/${how}/${what}`);
  const actions: Action[] = [];
  const c = view.decided.comparison;
  const outcome =
    how === 'merged'
      ? singleOutcome(set, true)
      : how === 'person'
        ? `open: ${setName(set, null)} did not fully ship, and a person decides`
        : singleOutcome(set, false);
  // Replaced by functions: GitHub's words may hold `$`, which a replacement string would read as a pattern.
  if (c !== null)
    actions.push({
      ...c,
      key: key('comparison'),
      body: c.body
        .replace(`**${view.decided.headline}**`, () => `**${headline}**`)
        .replace(view.decided.line, () => line)
        .replaceAll(singleOutcome(set, false), () => outcome),
    });
  for (const m of members) {
    const done = status(m.ref) === 'merged';
    const title =
      how === 'shadow'
        ? `Shadow: would merge (set ${set.name})`
        : how === 'merged'
          ? `Selected: merged (set ${set.name})`
          : done
            ? `Merged; set ${set.name} did not fully ship`
            : `A person decides: set ${set.name} did not fully ship`;
    const summary = `${headline}\n\n${line}${
      stop !== null && refText(stop.refused) === refText(m.ref) && m.answer?.ok === false
        ? `\n\nGitHub's whole answer:\n\n> ${m.answer.message.split('\n').join('\n> ')}`
        : ''
    }`;
    const marker = markerKey('note', m.ref.number, `r${view.round}`);
    const k = (what: string): string => key(`${refText(m.ref)}/${what}`);
    actions.push({
      kind: 'in-repo',
      key: k('all'),
      repo: m.ref.repo,
      actions: [
        {
          kind: 'check-run',
          key: k('check'),
          pr: m.ref.number,
          headSha: m.verified,
          name: 'Arbiter / selection',
          status: 'completed',
          conclusion: how === 'person' && !done ? 'action_required' : 'success',
          title: title.slice(0, 250),
          summary,
          ...(view.decided.text ? { text: view.decided.text } : {}),
          ...(view.comparisonUrl ? { detailsUrl: view.comparisonUrl } : {}),
        },
        {
          kind: 'comment',
          key: k('note'),
          issue: m.ref.number,
          marker,
          body: `${markerFor(marker)}\nThis pull request is a member of ${name}, the best candidate of ${change}. ${line} ${
            how === 'merged'
              ? 'Every member merged.'
              : how === 'shadow'
                ? 'Shadow mode: nothing was merged.'
                : `${done ? 'This member merged; the set did not fully ship' : 'This member was not merged'}: see the comparison on ${change}. Nothing is reverted automatically.`
          }`,
        },
        ...(how === 'person' && !done
          ? [{ kind: 'label' as const, key: k('label'), issue: m.ref.number, labels: [LABEL_AWAITING] }]
          : []),
      ],
    });
  }
  if (how === 'merged') actions.push(...view.afterShip);
  if (how !== 'shadow')
    actions.push({
      kind: 'set-change-state',
      key: key('state'),
      change: view.change.number,
      state: how === 'merged' ? 'shipped' : 'human',
    });
  return { kind: 'end', end: how, actions };
}
