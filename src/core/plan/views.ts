// Every view is current (issue 25): when a decided round reaches a new state (its winner merged,
// the Change cancelled, its repair timed out), the comparison on the Change, the gate comments and
// the notes are rendered again from the round's recorded inputs. Pure: the recorded plan and the
// state in, the comment writes out; each keyed by the state, and an unchanged body is no write.
import type { Action } from '../actions.ts';
import { viewKey, repairMarker } from '../keys.ts';
import type { SelectionPlan } from '../plan-schema.ts';
import { rankCandidates } from '../rank.ts';
import { winnerSummary } from '../reasons.ts';
import { blocks, details, prLink } from '../render/markdown.ts';
import { markerFor } from '../render/markers.ts';
import { comparisonBody, comparisonRows } from './comparison.ts';
import { setsInRound } from './set-round.ts';
import { gateMarker, tiedGateMarker } from './human-gate.ts';
import { reasonsFor } from './outcome-text.ts';

/** What happened to a decided round since. */
export type RoundEnd =
  /** `mergeCommit`: the merge commit GitHub reports (null when unknown); `by`: the person who promoted it. */
  | { kind: 'merged'; pr: number; mergeCommit: string | null; by: string | null }
  /** A person promoted `pr` and GitHub merges it later (auto-merge or the merge queue). */
  | { kind: 'promoted'; pr: number; by: string }
  /** `how`: one sentence, "Cancelled by @alice." */
  | { kind: 'cancelled'; how: string }
  /** The repair of `pr` never arrived: `before` wait for a person, for `why`. */
  | { kind: 'repair-timeout'; pr: number; before: number[]; why: string };

export interface RoundViewInput {
  /** The round's recorded selection plan; its receipt carries the planner's inputs. */
  decided: SelectionPlan;
  end: RoundEnd;
  prefix: string;
  /** The Change's one repair, when one was requested (its note on the Change is rendered again). */
  repair?: { pr: number } | null;
}

const short = (sha: string): string => sha.slice(0, 7);

/** The comparison's headline and each candidate's outcome for the state the round reached. */
function wording(
  input: RoundViewInput,
  repoUrl: string | null,
  summary: (pr: number) => string | null,
  lost: (pr: number) => boolean,
): { headline: string; outcome: (pr: number, was: string | undefined) => string } {
  const { end } = input;
  const change = input.decided.receipt.change;
  if (end.kind === 'merged') {
    const commit = end.mergeCommit
      ? ` as ${repoUrl ? `[${short(end.mergeCommit)}](${repoUrl}/commit/${end.mergeCommit})` : short(end.mergeCommit)}`
      : '';
    const why = summary(end.pr);
    // A loser a person reopened and promoted overrules the round: the headline says so.
    const by = end.by ? (lost(end.pr) ? `, brought back and promoted by @${end.by}` : `, promoted by @${end.by}`) : '';
    return {
      headline: `#${end.pr} merged${commit}${by}${why ? `: ${why}` : ''}.`,
      outcome: (pr, was) =>
        pr === end.pr
          ? `merged${end.mergeCommit ? ` (${short(end.mergeCommit)})` : ''}`
          : (was ?? `closed: #${end.pr} shipped`),
    };
  }
  if (end.kind === 'promoted') {
    return {
      headline: `#${end.pr} was promoted by @${end.by}: GitHub merges it once its required reviews are in or its merge queue takes it.`,
      outcome: (pr, was) =>
        pr === end.pr ? `promoted by @${end.by}: waits for GitHub to merge it` : (was ?? 'waiting'),
    };
  }
  if (end.kind === 'cancelled') {
    const said = end.how.replace(/\.$/, '');
    return {
      headline: `${/^cancelled/i.test(said) ? said : `Cancelled: ${said}`}. Every open candidate was closed; nothing ships.`,
      outcome: (_pr, was) => was ?? 'closed: the Change was cancelled',
    };
  }
  const waiting = end.before.map((pr) => prLink(repoUrl, pr)).join(', ');
  return {
    headline: `${waiting} ${end.before.length === 1 ? 'waits' : 'wait'} for a person: ${end.why.charAt(0).toLowerCase()}${end.why.slice(1)} Approve it, or comment \`${input.prefix} promote\` on it to ship it; \`${input.prefix} cancel\` on #${change} stops the Change.`,
    outcome: (pr, was) =>
      end.before.includes(pr) ? 'waits for a person: the requested repair did not arrive' : (was ?? 'waiting'),
  };
}

const stateOf = (end: RoundEnd): string =>
  end.kind === 'merged'
    ? `merged@${end.mergeCommit ?? end.pr}`
    : end.kind === 'promoted'
      ? `promoted/${end.pr}`
      : end.kind;

/** The views of a decided round, rendered again for the state it reached (nothing when its inputs were not recorded). */
export function planRoundViews(input: RoundViewInput): Action[] {
  const { decided, end } = input;
  const inputs = decided.receipt.data.inputs;
  if (!inputs) return [];
  const { repo, round, base } = inputs;
  const change = inputs.change.number;
  const key = (what: string): string => viewKey(repo, change, base, round, stateOf(end), what);
  const repoUrl = inputs.display?.repoUrl ?? null;
  const ranking = rankCandidates(inputs.siblings);
  const ranked = new Map(ranking.ordered.map((c) => [c.pr, c]));
  const reasons = reasonsFor({ ...inputs, ranking }, decided.verdict, ranked);
  const summary = (pr: number): string | null => {
    const c = ranked.get(pr);
    return c ? winnerSummary(c, inputs.change.criteria.length) : null;
  };
  const words = wording(input, repoUrl, summary, (pr) => decided.verdict.losers.includes(pr));
  const chosen = end.kind === 'cancelled' ? null : end.pr;
  const rows = comparisonRows(inputs, ranking, (pr) => words.outcome(pr, reasons.get(pr)), chosen);
  const actions: Action[] = [
    {
      kind: 'comment',
      key: key('comparison'),
      issue: change,
      marker: `comparison:${change}@${base}`,
      // The sets' lines are the planner's, as in the round's own comparison.
      body: comparisonBody(
        { ...inputs, notes: [...(inputs.notes ?? []), ...setsInRound({ ...inputs, ranking }).notes] },
        decided.receipt,
        words.headline,
        rows,
      ),
    },
  ];
  const comparisonLink = `the comparison on #${change}`;
  // The gate comments this round wrote: a person no longer needs to act on them.
  if (end.kind !== 'repair-timeout') {
    const settled =
      end.kind === 'merged'
        ? `#${end.pr} was merged${end.by ? ` on @${end.by}'s word` : ''}`
        : end.kind === 'promoted'
          ? `@${end.by} promoted #${end.pr}; GitHub merges it once its required reviews are in or its merge queue takes it`
          : end.how.replace(/\.$/, '');
    for (const a of decided.actions) {
      if (a.kind !== 'comment' || !a.marker.startsWith('gate:')) continue;
      const gated = a.marker === tiedGateMarker(change, base) ? null : a.issue;
      if (gated !== null && a.marker !== gateMarker(gated)) continue;
      actions.push({
        kind: 'comment',
        key: key(`gate/${a.issue}`),
        issue: a.issue,
        marker: a.marker,
        // What was asked stays, folded below (its mentions were there already: an edit notifies nobody).
        body: blocks(
          markerFor(a.marker),
          `### Arbiter: nothing waits for a person any more`,
          `${settled}. See ${comparisonLink}.`,
          details('What a person was asked', a.body.replace(markerFor(a.marker), '').trim()),
        ),
      });
    }
  }
  if (end.kind === 'merged') {
    const marker = `winner:${end.pr}`;
    const commit = end.mergeCommit ? ` as ${short(end.mergeCommit)}` : '';
    const why = summary(end.pr);
    actions.push({
      kind: 'comment',
      key: key(`winner/${end.pr}`),
      issue: end.pr,
      marker,
      body: decided.verdict.losers.includes(end.pr)
        ? `${markerFor(marker)}\nThis candidate lost ${comparisonLink}, and was merged${commit} because @${end.by ?? 'a person'} reopened and promoted it.`
        : `${markerFor(marker)}\nThis candidate won ${comparisonLink}${why ? ` (${why})` : ''} and was merged${commit}${end.by ? `, promoted by @${end.by}` : ''}.`,
    });
  }
  const repairOf = input.repair?.pr ?? (decided.verdict.kind === 'repair' ? decided.verdict.target : null);
  if (repairOf !== null && (end.kind !== 'merged' || end.pr !== repairOf)) {
    const marker = repairMarker(change);
    const now =
      end.kind === 'repair-timeout'
        ? `Nothing arrived in time, so ${end.before.map((pr) => `#${pr}`).join(', ')} ${end.before.length === 1 ? 'waits' : 'wait'} for a person: see the gate and ${comparisonLink}.`
        : end.kind === 'cancelled'
          ? `It is no longer awaited: ${end.how.replace(/\.$/, '')}.`
          : `It is no longer awaited: #${end.pr} was ${end.kind === 'merged' ? 'merged' : `promoted by @${end.by}`}.`;
    actions.push({
      kind: 'comment',
      key: key('repair-note'),
      issue: change,
      marker,
      body: `${markerFor(marker)}\nArbiter asked for one repair of #${repairOf}. ${now}`,
    });
  }
  return actions;
}
