// The wide round's records around its decision (DESIGN.md section 7), as plans: the readings of the
// scoring check kept as they come (GitHub keeps only a run's latest output), the decision logged,
// and the round's end (the explore's next phase, the round done). Pure: the shell reads the runs,
// the re-run requests and the readings kept so far.
import { recordAction, type Action } from '../actions.ts';
import { digest } from '../digest.ts';
import { portfolioActionKey, roundDoneKey } from '../keys.ts';
import type { Reading } from '../portfolio.ts';

/** A completed run of the scoring check on a head, as GitHub shows it now. */
export interface ScoringRunRead {
  id: number;
  /** The score in its output; null when it reports none. */
  score: number | null;
  /** When it last completed (a run its app updates in place completes again), or null. */
  completedAt: string | null;
}

/** A re-run of the scoring check asked for: the run it named, and when. */
export interface RerunAsked {
  rerun: number;
  at: string;
}

export interface ReadingsView {
  repo: string;
  change: number;
  portfolio: number;
  /** The readings kept so far. */
  known: Reading[];
  /** Each sibling's completed runs (in run order) and its re-run requests (request n asks for reading n). */
  siblings: { pr: number; done: ScoringRunRead[]; requests: RerunAsked[] }[];
}

/**
 * A completed run answers a re-run request when it is a newer run than the one asked about, or that
 * same run completed again after the request (a CI app may update the run in place).
 */
const answers = (run: ScoringRunRead, q: RerunAsked): boolean =>
  run.id > q.rerun ||
  (run.id === q.rerun && run.completedAt !== null && Date.parse(run.completedAt) > Date.parse(q.at));

/**
 * Every reading there is, keyed by the request it answers (not by check run: a run updated in place
 * is still a reading per request): reading 0 is the first scored run's, reading n answers request n.
 * The new ones are kept by one action.
 */
export function planReadings(view: ReadingsView): { readings: Reading[]; actions: Action[] } {
  const fresh: Reading[] = [];
  for (const s of view.siblings) {
    const have = new Set(view.known.filter((r) => r.pr === s.pr).map((r) => r.run));
    const first = s.done.find((r) => r.score !== null);
    if (!have.has(0) && first?.score != null) fresh.push({ pr: s.pr, run: 0, value: first.score });
    s.requests.forEach((q, i) => {
      const answer = have.has(i + 1) ? undefined : s.done.find((r) => r.score !== null && answers(r, q));
      if (answer?.score != null) fresh.push({ pr: s.pr, run: i + 1, value: answer.score });
    });
  }
  const readings = [...view.known.map(({ pr, run, value }) => ({ pr, run, value })), ...fresh];
  if (fresh.length === 0) return { readings, actions: [] };
  const { repo, change, portfolio } = view;
  const key = portfolioActionKey(repo, change, portfolio, 'readings', digest(fresh));
  return { readings, actions: [{ kind: 'put-readings', key, change, portfolio, readings: fresh }] };
}

export interface WideEndView {
  repo: string;
  change: number;
  portfolio: number;
  /** The wide round's row id, and the run that carried its decision out. */
  roundId: number;
  token: string;
  /** Whether the executor's filter kept part of the decision back (shadow mode): no refine went out. */
  withheld: boolean;
}

/** The wide round carried out: the explore goes deep, or is done when nothing was sent (no refine is awaited); the round is done. */
export function planWideEnd(view: WideEndView): Action[] {
  const { repo, change, portfolio } = view;
  const to = view.withheld ? 'done' : 'deep';
  const key = portfolioActionKey(repo, change, portfolio, 'wide', 'end');
  return [
    { kind: 'portfolio-phase', key, change, portfolio, from: 'wide', to },
    recordAction(roundDoneKey(view.roundId), { token: view.token }),
  ];
}

/** The wide round's decision, logged once. */
export const wideDecidedEvent = (
  repo: string,
  change: number,
  portfolio: number,
  round: number,
  at: string,
): Action => ({
  kind: 'event',
  key: portfolioActionKey(repo, change, portfolio, 'wide', 'decided'),
  event: 'round.decided',
  data: { change, round, verdict: 'portfolio-wide' },
  at,
});
