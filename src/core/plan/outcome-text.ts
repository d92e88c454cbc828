// What the selection says of each candidate: a loser's reason, true to the verdict, and the
// outcome column of the comparison. Pure: the verdict and the ranking are passed in.
import { belowWords, rankSets, setShips, setText } from './set-rank.ts';
import { singleOutcome } from './set-ship.ts';
import { combinedIntoReason, heldSources, heldWords } from '../combine.ts';
import { loserReason } from '../reasons.ts';
import type { RankedCandidate } from '../types.ts';
import type { Verdict } from '../plan-schema.ts';
import { byPr, type SelectionInput } from './verdict.ts';
import type { MergePath } from './merge-path.ts';
import { inMode, type ModeConfig } from '../render/mode-words.ts';

/** The comparison's outcome for a winner that waits on its merge path: what it waits for. */
const WAITS_FOR: Record<Exclude<MergePath['kind'], 'merge'>, string> = {
  'auto-merge': 'waits for required reviews (auto-merge)',
  enqueue: 'waits for the merge queue',
  queued: 'waits for the merge queue',
  'update-branch': 'waits for its updated branch to be verified',
  person: 'awaiting a person',
};

/** The comparison's outcome column: a loser's reason, or what the verdict does with the candidate. */
export function outcomeText(
  verdict: Verdict,
  pr: number,
  reasons: Map<number, string>,
  config: ModeConfig,
  path: MergePath | null = null,
): string {
  if (reasons.has(pr)) return reasons.get(pr)!;
  if (verdict.kind === 'ship' && verdict.winner === pr && path && path.kind !== 'merge') return WAITS_FOR[path.kind];
  if (verdict.kind === 'ship')
    return verdict.winner === pr ? inMode(config, { live: 'ships', shadow: 'would ship' }) : 'waiting';
  if (verdict.kind === 'repair')
    return verdict.target === pr
      ? `${inMode(config, { live: 'repair requested', shadow: 'would get a repair' })}: ${verdict.objective}`
      : 'waiting';
  return verdict.before.includes(pr) ? 'awaiting a person' : 'waiting';
}

export function reasonsFor(
  input: SelectionInput,
  verdict: Verdict,
  ranked: Map<number, RankedCandidate>,
): Map<number, string> {
  const evidence = byPr(input.siblings);
  const chosen = verdict.kind === 'ship' ? verdict.winner : verdict.kind === 'repair' ? verdict.target : verdict.winner;
  const anchor = chosen ?? (verdict.kind === 'human' ? verdict.before[0] : undefined);
  const reasons = new Map<number, string>();
  const sets = input.sets ? rankSets(input.sets.records, input.ranking) : null;
  const overSet =
    sets?.winner ?? (verdict.kind === 'human' && verdict.before.length === 0 ? sets?.tied?.sets[0] : undefined);
  if (overSet !== undefined && overSet !== null) {
    // Below a set: each single-repository loser is told which set and on what.
    // The head (before its first ":" or ",") is the loser's check title: the set's name only.
    // A set that ships closes the others once its members merged (core/plan/set-win.ts).
    const ships = sets?.winner
      ? setShips(sets.winner, input.change.criteria.length, {
          required: input.config.acceptance.required,
          policy: input.config.policy,
        })
      : false;
    const head = ships
      ? singleOutcome(overSet.record, false)
      : sets?.winner
        ? `Lost to set ${overSet.record.name}`
        : `Ranks below set ${overSet.record.name} (before a person)`;
    for (const pr of verdict.losers) {
      const name = setText(overSet.record);
      const loser = { what: 'one' as const, summary: ranked.get(pr)!, gateReason: evidence.get(pr)?.gate.reason };
      reasons.set(
        pr,
        `${head}: ${belowWords({ name, summary: overSet.summary }, loser, input.change.criteria.length)}.`,
      );
    }
    return reasons;
  }
  if (anchor === undefined) return reasons;
  const head =
    chosen === null && verdict.kind === 'human'
      ? `Ranks below ${verdict.before.map((n) => `#${n}`).join(', ')} (before a person)`
      : undefined;
  // A combined candidate before a person holds its sources open: they close only once it merged.
  const held = verdict.kind === 'human' ? heldSources(input.combined, verdict.before) : [];
  for (const pr of verdict.losers) {
    if (held.includes(pr) && input.combined) {
      reasons.set(pr, heldWords(input.combined.pr, pr, input.combined.sources, input.config.commands.prefix).reason);
      continue;
    }
    const combined = combinedIntoReason(input.combined, verdict.kind === 'ship' ? verdict.winner : null, pr);
    reasons.set(
      pr,
      combined ??
        loserReason({
          winner: ranked.get(anchor)!,
          loser: ranked.get(pr)!,
          loserEvidence: evidence.get(pr)!,
          criteriaCount: input.change.criteria.length,
          judge: input.judge,
          head,
          winnerEvidence: evidence.get(anchor),
          criteria: input.change.criteria,
        }),
    );
  }
  return reasons;
}

/**
 * The last sentence of a closed loser's comment: how to bring it back, and only what works. Before
 * anything shipped, a person reopens it and promotes it (people.ts brings a round's loser back;
 * a person's rejection is another matter). After `shipped` merged for the Change on this base,
 * Arbiter ships nothing more there, and a reopened loser is closed again as a late sibling.
 */
export function bringBackWords(prefix: string, change: number, shipped: number | null): string {
  if (shipped !== null) return shippedWords(`#${shipped}`, `#${change}`);
  return `To ship it instead, reopen it and comment \`${prefix} promote\` on it (write access) once its siblings have settled.`;
}

/** A loser's last words once another candidate shipped: nothing more ships for that Change on this base. */
export function shippedWords(shipped: string, change: string): string {
  return `${shipped} shipped for ${change}, so Arbiter ships no other candidate for it on this base branch; this one's branch stays, to reuse by hand.`;
}
