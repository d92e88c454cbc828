// The selection's verdict (DESIGN.md section 6): who wins on the ranking, judge, evidence and policy,
// and what happens to them (ship, one repair, or a person). Pure: no I/O, no clock.
import { assessRisk } from '../policy.ts';
import { unjudgedChallengers } from '../rank.ts';
import { criteriaWord, failedRequired, judgeNoWinnerWords, missingCounts } from '../reasons.ts';
import type { CandidateEvidence, Criterion, Ranking } from '../types.ts';
import type { SelectionInputs } from '../receipt.ts';
import type { Verdict } from '../plan-schema.ts';
import { planMergePath, type MergePath } from './merge-path.ts';
import { rankSets, setVerdict } from './set-rank.ts';

/** The planner's inputs: what a receipt records, and the ranking of the siblings. */
export type SelectionInput = SelectionInputs & { ranking: Ranking };

export const byPr = (list: CandidateEvidence[]): Map<number, CandidateEvidence> => new Map(list.map((e) => [e.pr, e]));

function criteriaBy(e: CandidateEvidence, criteria: Criterion[], statuses: string[]): Criterion[] {
  const ids = new Set((e.acceptance?.results ?? []).filter((r) => statuses.includes(r.status)).map((r) => r.id));
  return criteria.filter((c) => ids.has(c.id));
}

/** The winner's merge path, from what GitHub said of it in the decision's read (merge-path.ts). */
export function mergePathOf(input: SelectionInput, winner: number): MergePath {
  return planMergePath({
    pr: winner,
    method: input.config.policy.mergeMethod,
    branch: input.branch,
    merge: input.merge?.[String(winner)],
    prefix: input.config.commands.prefix,
  });
}

/** Decides who wins and what happens to them. */
export function decide(input: SelectionInput): Verdict {
  const { ranking, judge, config, change } = input;
  // The Change's candidate sets are candidates too: one at the top decides the round.
  const bySets = input.sets
    ? setVerdict(rankSets(input.sets.records, ranking), ranking, {
        criteria: change.criteria.length,
        prefix: config.commands.prefix,
        web: input.sets.web,
        order: input.sets.order ?? [],
        required: config.acceptance.required,
        policy: config.policy,
      })
    : null;
  if (bySets !== null) return bySets;
  const evidence = byPr(input.siblings);
  const all = ranking.ordered.map((c) => c.pr);
  if (ranking.top.length === 0) {
    const best = ranking.ordered[0];
    if (best && input.repairAvailable && config.repair.enabled) {
      const e = evidence.get(best.pr)!;
      const failed = failedRequired(e);
      const objective = e.gate.timedOut
        ? `make its checks finish (${e.gate.reason.replace(/^timed out: /, '')})`
        : failed.length > 0
          ? `make required check ${failed.map((n) => `\`${n}\``).join(', ')} pass`
          : e.gate.reason;
      return { kind: 'repair', target: best.pr, losers: [], objective, unmet: [] };
    }
    return {
      kind: 'human',
      winner: null,
      before: all,
      losers: [],
      why: 'No candidate is promotable: every one failed a required check or timed out.',
    };
  }
  const total = change.criteria.length;
  // A sibling whose criteria were not all judged must not lose to one that was: were its gaps
  // met, it could rank first. Nothing ships or is closed on such a comparison; a person decides.
  const unjudged = unjudgedChallengers(ranking);
  if (unjudged.length > 0) {
    const names = unjudged.map((c) => `#${c.pr} (${c.gaps} of ${total} ${criteriaWord(total)} not judged)`).join(', ');
    const first = ranking.top.map((n) => `#${n}`).join(', ');
    const before = [...ranking.top, ...unjudged.map((c) => c.pr)];
    const budgetSpent = unjudged.some((c) =>
      evidence.get(c.pr)?.acceptance?.results.some((r) => r.status === 'gap' && r.gap === 'budget'),
    );
    const raise = budgetSpent
      ? ` The model budget ran out: raise \`acceptance.budget.perChange\` in \`.github/arbiter.yml\` first.`
      : '';
    return {
      kind: 'human',
      winner: ranking.tiedAtTop ? null : ranking.top[0],
      before,
      losers: all.filter((n) => !before.includes(n)),
      why: `${first} ${ranking.tiedAtTop ? 'rank' : 'ranks'} first on the evidence judged, but ${names} could rank above once judged: the acceptance check could not judge every criterion (model error or budget). Re-run it with \`${config.commands.prefix} recheck\` on those, or choose one with \`${config.commands.prefix} promote\`.${raise}`,
    };
  }
  let winner: number;
  if (ranking.tiedAtTop) {
    // Only a valid model verdict settles a tie: a rubric tie broken by an order with no evidence
    // behind it (a PR number, the caller's rank) never picks the candidate Arbiter merges.
    if (!judge || judge.winner === null || !ranking.top.includes(judge.winner) || judge.source !== 'llm-judge') {
      const tied = ranking.top.map((n) => `#${n}`).join(', ');
      const why = judge
        ? `${tied} are tied on every evidence key and the judge did not settle it (${judgeNoWinnerWords(judge)}). Choose one with \`${config.commands.prefix} promote\` on it, or cancel the change.`
        : `${tied} are tied on every evidence key. Choose one with \`${config.commands.prefix} promote\` on it, or cancel the change.`;
      return {
        kind: 'human',
        winner: null,
        before: ranking.top,
        losers: all.filter((n) => !ranking.top.includes(n)),
        why,
      };
    }
    winner = judge.winner;
  } else {
    winner = ranking.top[0];
  }
  const losers = all.filter((n) => n !== winner);
  const e = evidence.get(winner)!;
  const met = criteriaBy(e, change.criteria, ['met']);
  const acceptance = e.acceptance;
  const allMet = acceptance !== null && acceptance.status === 'pass';
  const noCriteriaOk = acceptance !== null && acceptance.status === 'none' && !config.acceptance.required;
  if (allMet || noCriteriaOk) {
    const risk = assessRisk(config.policy, e);
    if (risk.mayShip) {
      const path = mergePathOf(input, winner);
      if (path.kind !== 'person') return { kind: 'ship', winner, losers, risk };
      // The evidence says ship, GitHub says not yet: a person, with GitHub's reason and the act to give.
      const all = total === 0 ? 'passes its checks' : `meets every criterion (${met.length} of ${total})`;
      return {
        kind: 'human',
        winner,
        before: [winner],
        losers,
        why: `Best candidate #${winner} ${all}, but ${path.why}. To ship it: ${path.ask}; or cancel the change.`,
      };
    }
    return {
      kind: 'human',
      winner,
      before: [winner],
      losers,
      why: `Best candidate #${winner} is ${risk.risk} risk (${risk.reasons.join('; ')}), which the policy does not ship without a person. Approve to ship it or cancel the change.`,
    };
  }
  const notMet = criteriaBy(e, change.criteria, ['not_met']);
  if (notMet.length > 0 && input.repairAvailable && config.repair.enabled) {
    return {
      kind: 'repair',
      target: winner,
      losers,
      objective: `meet ${notMet.map((c) => c.id).join(', ')}`,
      unmet: notMet,
    };
  }
  if (acceptance === null || acceptance.status === 'none') {
    return {
      kind: 'human',
      winner,
      before: [winner],
      losers,
      why: `Best candidate #${winner} has no acceptance result (the Change lists no acceptance criteria). Approve to ship it or cancel the change.`,
    };
  }
  const words = missingCounts(e, change.criteria);
  return {
    kind: 'human',
    winner,
    before: [winner],
    losers,
    why: `Best candidate #${winner} meets ${met.length} of ${total} ${criteriaWord(total)} (${words}). Approve to ship it or cancel the change.`,
  };
}
