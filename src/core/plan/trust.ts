// What a trusted person's word records, planned (pure): an issue adopted, a pull request's head
// admitted, the selection label's trusted adder, a `/arbiter link`, and a head's config verdict.
// Each fact is a ledger record (the first stands), most with an event in the log.
import { recordAction, type Action } from '../actions.ts';
import { digest } from '../digest.ts';
import {
  factActKey,
  headConfigKey,
  trustAdmittedHeadKey,
  trustAdmittedKey,
  trustAdoptedKey,
  trustLinkedKey,
  trustSelectionLabelKey,
} from '../keys.ts';

/**
 * The event of a word on `fact` at `now`, keyed by what it says and when: a later word (or another
 * word at once) logs again, the same word at the same time once.
 */
const logged = (fact: string, now: string, event: string, data: Record<string, unknown>): Action => ({
  kind: 'event',
  key: factActKey(fact, 'event', digest({ event, data }), now),
  event,
  data,
  at: now,
});

/** A trusted account adopted the issue (the first adoption stands; each is logged). */
export function planAdoption(
  v: { repo: string; issue: number; by: string; via: 'label' | 'command' },
  now: string,
): Action[] {
  const fact = trustAdoptedKey(v.repo, v.issue);
  return [
    recordAction(fact, { by: v.by, via: v.via }),
    logged(fact, now, 'change.adopted', { issue: v.issue, by: v.by, via: v.via }),
  ];
}

/**
 * A trusted account admitted this head of the pull request for this Change (null: it links none,
 * so it covers nothing): that the PR was ever admitted, and this head's own admission.
 */
export function planAdmission(
  v: { repo: string; pr: number; by: string; headSha: string; change: number | null },
  now: string,
): Action[] {
  const head = trustAdmittedHeadKey(v.repo, v.pr, v.headSha, v.change);
  return [
    recordAction(trustAdmittedKey(v.repo, v.pr), { by: v.by }),
    recordAction(head, { by: v.by }),
    logged(head, now, 'candidate.admitted', { pr: v.pr, by: v.by, headSha: v.headSha, change: v.change }),
  ];
}

/** A trusted account added the selection label (the first one stands). */
export const planSelectionLabel = (v: { repo: string; pr: number; by: string }): Action[] => [
  recordAction(trustSelectionLabelKey(v.repo, v.pr), { by: v.by }),
];

/** A trusted account's `/arbiter link #N`: the PR's first link stands (a record); each is logged. */
export function planLinkRecord(v: { repo: string; pr: number; change: number; by: string }, now: string): Action[] {
  const fact = trustLinkedKey(v.repo, v.pr);
  return [
    recordAction(fact, { change: v.change, by: v.by }),
    logged(fact, now, 'candidate.linked', { pr: v.pr, change: v.change, by: v.by }),
  ];
}

/** What the head's `.github/arbiter.yml` was found to be (`error` null: it validates), read once per head. */
export const planHeadConfig = (v: { repo: string; headSha: string; error: string | null }): Action[] => [
  recordAction(headConfigKey(v.repo, v.headSha), { error: v.error }),
];
