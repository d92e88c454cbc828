// A person closed a candidate's pull request (not Arbiter, not a merge): it is withdrawn, planned.
// Its state records what happened on GitHub (kept in shadow mode, as every record of a closure),
// the closure is logged, its selection check says so, and its own checks still running end. Pure:
// the handler reads the candidate and what its own checks show.
import { checkAction, type Action } from '../actions.ts';
import { withdrawalActionKey } from '../keys.ts';
import { planOwnChecksEnd, type OwnChecksView } from './own-checks-end.ts';

export interface WithdrawnView {
  repo: string;
  candidate: { pr: number; change: number; headSha: string };
  /** Who closed it. */
  by: string;
  /** What its own checks show (read for planOwnChecksEnd). */
  ownChecks: OwnChecksView;
}

export function planWithdrawn(view: WithdrawnView, now: string): Action[] {
  const { repo, candidate: c, by } = view;
  const k = (what: string): string => withdrawalActionKey(repo, c.change, c.pr, c.headSha, now, what);
  const withdrawn = `Withdrawn: closed by @${by}`;
  return [
    { kind: 'set-state', key: k('state'), pr: c.pr, state: 'withdrawn', reason: `closed by @${by}`, observed: true },
    { kind: 'event', key: k('event'), event: 'candidate.withdrawn', data: { pr: c.pr, by }, at: now },
    checkAction(repo, {
      pr: c.pr,
      headSha: c.headSha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      title: withdrawn,
      summary: `@${by} closed this candidate; it leaves the comparison for #${c.change}.`,
    }),
    ...planOwnChecksEnd(view.ownChecks, withdrawn, repo),
  ];
}
