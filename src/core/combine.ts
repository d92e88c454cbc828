// The combined candidate (DESIGN.md section 6): whether two siblings that each meet part of the
// criteria should be combined, into what, and what follows the build's outcome. Pure.
import { z } from 'zod';
import { markerFor } from './render/markers.ts';
import type { Action } from './actions.ts';
import { unjudgedChallengers } from './rank.ts';
import type { CandidateEvidence, Criterion, Ranking } from './types.ts';
import type { Receipt } from './receipt.ts';
import { changeActionKey, combinedMarker, combineKey } from './keys.ts';
import { plannedActions } from './replay-lines.ts';

export interface CombineInput {
  repo: string;
  change: { number: number; title: string; criteria: Criterion[] };
  round: number;
  base: string;
  siblings: CandidateEvidence[];
  ranking: Ranking;
  config: { enabled: boolean; branchPrefix: string };
  /** A combine was attempted for this Change already (at most one per Change, whatever came of it). */
  attempted: boolean;
}

const CombineSide = z.object({
  pr: z.number().int().positive(),
  headSha: z.string(),
  /** Criteria this side meets. */
  met: z.array(z.string()),
  changedPaths: z.array(z.string()),
});
export type CombineSide = z.infer<typeof CombineSide>;

export const CombineProposal = z.object({
  change: z.number().int().positive(),
  round: z.number().int().positive(),
  /** The best promotable candidate. */
  a: CombineSide,
  /** The promotable sibling that brings the most criteria A does not meet. */
  b: CombineSide.extend({ brings: z.array(z.string()) }),
  /** Criteria met by A or B, in the Change's order. */
  together: z.array(z.string()),
  branch: z.string(),
  base: z.string(),
});
export type CombineProposal = z.infer<typeof CombineProposal>;

const metIds = (e: CandidateEvidence): string[] =>
  (e.acceptance?.results ?? []).filter((r) => r.status === 'met').map((r) => r.id);

const side = (e: CandidateEvidence): CombineSide => ({
  pr: e.pr,
  headSha: e.headSha,
  met: metIds(e),
  changedPaths: e.changedPaths,
});

/**
 * A proposal when no promotable candidate meets every criterion, the best promotable one (A) and
 * another promotable one (B) together meet more than A alone, every promotable sibling was fully
 * judged, and the Change has had no combine yet (so neither side can be a combined candidate).
 */
export function proposeCombine(input: CombineInput): CombineProposal | null {
  const { ranking, change } = input;
  if (!input.config.enabled || input.attempted || change.criteria.length === 0) return null;
  const evidence = new Map(input.siblings.map((e) => [e.pr, e]));
  const promotable = ranking.ordered
    .filter((c) => c.promotable)
    .map((c) => evidence.get(c.pr))
    .filter((e) => e !== undefined);
  if (promotable.some((e) => e.acceptance?.status === 'pass')) return null;
  // A sibling the acceptance check could not fully judge may meet everything once judged.
  if (unjudgedChallengers(ranking).length > 0) return null;
  const first = promotable[0];
  if (!first || first.acceptance === null) return null;
  const a = side(first);
  let best: (CombineSide & { brings: string[] }) | null = null;
  for (const e of promotable.slice(1)) {
    if (e.acceptance === null) continue;
    const b = side(e);
    const brings = b.met.filter((id) => !a.met.includes(id));
    // Rank order breaks a tie between two siblings that bring as much.
    if (brings.length > (best?.brings.length ?? 0)) best = { ...b, brings };
  }
  if (best === null) return null;
  const union = new Set([...a.met, ...best.met]);
  return {
    change: change.number,
    round: input.round,
    a,
    b: best,
    together: change.criteria.map((c) => c.id).filter((id) => union.has(id)),
    branch: `${input.config.branchPrefix}${change.number}`,
    base: input.base,
  };
}

/** What building a combined candidate takes: a branch at the base head, each side's head merged, a draft PR. */
export interface CombineBuild {
  change: number;
  branch: string;
  base: string;
  sides: { pr: number; sha: string }[];
  title: string;
  body: string;
}

/** The combined candidate to build (core/plan/combine-build.ts plans its steps). */
export function combineBuild(p: CombineProposal, changeTitle: string): CombineBuild {
  return {
    change: p.change,
    branch: p.branch,
    base: p.base,
    sides: [
      { pr: p.a.pr, sha: p.a.headSha },
      { pr: p.b.pr, sha: p.b.headSha },
    ],
    title: `Combined candidate for #${p.change}: ${changeTitle}`.slice(0, 250),
    body: [
      `Candidate-for: #${p.change}`,
      '',
      `Combines #${p.a.pr} and #${p.b.pr}.`,
      '',
      `#${p.a.pr} (${p.a.headSha.slice(0, 7)}) meets ${p.a.met.join(', ')}; ` +
        `#${p.b.pr} (${p.b.headSha.slice(0, 7)}) brings ${p.b.brings.join(', ')}.`,
      `Arbiter merged both heads into \`${p.branch}\`, cut from \`${p.base}\`; ` +
        'this pull request is compared with them like any sibling.',
    ].join('\n'),
  };
}

/** What building the combined candidate came to (the executor's recorded result). */
export const CombineOutcome = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('opened'),
    pr: z.number().int().positive(),
    headSha: z.string(),
    baseSha: z.string(),
    merges: z.array(z.object({ pr: z.number().int(), sha: z.string().nullable() })),
  }),
  z.object({ outcome: z.literal('conflict'), with: z.number().int(), baseSha: z.string(), message: z.string() }),
  z.object({
    outcome: z.literal('refused'),
    step: z.enum(['branch', 'merge', 'pull']),
    status: z.number().int(),
    message: z.string(),
  }),
]);
export type CombineOutcome = z.infer<typeof CombineOutcome>;

/** A Change's combine as the store keeps it: the proposal and what came of it. */
export const CombineRecord = z.object({ proposal: CombineProposal, outcome: CombineOutcome });
export type CombineRecord = z.infer<typeof CombineRecord>;

/** The combined candidate of a Change and the siblings it combines, when one was opened. */
export function combinedOf(record: CombineRecord | null): { pr: number; sources: number[] } | null {
  if (record === null || record.outcome.outcome !== 'opened') return null;
  return { pr: record.outcome.pr, sources: [record.proposal.a.pr, record.proposal.b.pr] };
}

/** Paths both sides change: where a file-level conflict between them can be. */
const overlap = (p: CombineProposal): string[] =>
  p.a.changedPaths.filter((path) => p.b.changedPaths.includes(path)).sort();

/** The line the comparison carries when no combined candidate came of the proposal. */
export function combineFailureNote(
  p: CombineProposal,
  outcome: Exclude<CombineOutcome, { outcome: 'opened' }>,
): string {
  if (outcome.outcome === 'conflict') {
    if (outcome.with === p.a.pr) {
      return `No combined candidate: #${p.a.pr} does not merge cleanly into \`${p.base}\` as it is now.`;
    }
    const paths = overlap(p);
    const where = paths.length > 0 ? ` in ${paths.map((x) => `\`${x}\``).join(', ')}` : '';
    return `No combined candidate: #${p.a.pr} and #${p.b.pr} conflict${where}.`;
  }
  const what = {
    branch: `create the branch \`${p.branch}\``,
    merge: `merge into \`${p.branch}\``,
    pull: `open the pull request from \`${p.branch}\``,
  }[outcome.step];
  const refused = `GitHub refused to ${what} (${outcome.status}: ${outcome.message})`;
  return `No combined candidate of #${p.a.pr} and #${p.b.pr}: ${refused}.`;
}

/**
 * The build the executor kept back (shadow mode): what live mode would do, said as "would", is where
 * the shadow round ends: combine A and B, and ship the combined candidate if it passes. As in live
 * mode it plans no repair and no comparison of A and B; shadow mode builds nothing, so no next round
 * compares three. A and B's selection checks complete as neutral: a shadow check never holds a merge.
 */
export function planCombineWithheld(input: { repo: string; proposal: CombineProposal; now: string }): Action[] {
  const { repo, proposal: p } = input;
  const k = (suffix: string): string => changeActionKey(repo, p.change, 'combine', `r${p.round}`, 'shadow', suffix);
  const sides = `#${p.a.pr} (meets ${p.a.met.join(', ')}) and #${p.b.pr} (brings ${p.b.brings.join(', ')})`;
  const said =
    `Shadow mode: no candidate meets every criterion, but Arbiter would combine ${sides} into a combined ` +
    `candidate on \`${p.branch}\`: together they meet ${p.together.join(', ')}. Live mode would verify it ` +
    `like any candidate and ship the combined pull request if it passes, closing #${p.a.pr} and #${p.b.pr} ` +
    'as combined into it. In shadow mode it opens nothing, so this is where the shadow comparison of this ' +
    'change ends.';
  const waiting = (side: CombineSide): Action => ({
    kind: 'check-run',
    key: k(`check/${side.pr}`),
    pr: side.pr,
    headSha: side.headSha,
    name: 'Arbiter / selection',
    status: 'completed',
    conclusion: 'neutral',
    title: `Shadow: would combine #${p.a.pr} and #${p.b.pr}`,
    summary: said,
  });
  const marker = combinedMarker(p.change);
  const receipt = combineReceipt({ repo, proposal: p, outcome: null, now: input.now });
  const inputs = { repo, proposal: p, outcome: null, now: input.now };
  return plannedActions(
    [
      { kind: 'receipt', key: k('receipt'), receipt },
      waiting(p.a),
      waiting(p.b),
      { kind: 'comment', key: k('note'), issue: p.change, marker, body: `${markerFor(marker)}\n${said}` },
    ],
    { planner: 'combine', inputs },
  );
}

/** No combined candidate came of the build: its receipt, with the reason (the comparison carries the note). */
export function planCombineEnded(input: {
  repo: string;
  proposal: CombineProposal;
  outcome: Exclude<CombineOutcome, { outcome: 'opened' }>;
  now: string;
}): Action[] {
  const receipt = combineReceipt(input);
  const key = `${combineKey(input.repo, input.proposal.change)}/receipt`;
  return plannedActions([{ kind: 'receipt', key, receipt }], { planner: 'combine', inputs: input });
}

/** The combine plan a COMBINED_CANDIDATE receipt recorded, planned again from its inputs (`npm run replay`). */
export function planCombineReceipt(input: {
  repo: string;
  proposal: CombineProposal;
  outcome: CombineOutcome | null;
  now: string;
}): Action[] {
  const { repo, proposal, outcome, now } = input;
  if (outcome === null) return planCombineWithheld({ repo, proposal, now });
  if (outcome.outcome === 'opened') return planCombined({ repo, proposal, outcome, now });
  return planCombineEnded({ repo, proposal, outcome, now });
}

/**
 * The COMBINED_CANDIDATE receipt: A, B, what each brought, and what came of it. Its mode is the
 * build's: a build the filter kept back (shadow mode) has no outcome; any outcome is GitHub's answer
 * to a build that ran, in live mode.
 */
export function combineReceipt(input: {
  repo: string;
  proposal: CombineProposal;
  outcome: CombineOutcome | null;
  now: string;
}): Receipt {
  const { proposal: p, outcome } = input;
  return {
    kind: 'COMBINED_CANDIDATE',
    repo: input.repo,
    change: p.change,
    round: p.round,
    at: input.now,
    data: {
      outcome: outcome?.outcome ?? 'not-built',
      mode: outcome === null ? 'shadow' : 'live',
      a: { pr: p.a.pr, headSha: p.a.headSha, brought: p.a.met },
      b: { pr: p.b.pr, headSha: p.b.headSha, brought: p.b.brings, met: p.b.met },
      together: p.together,
      branch: p.branch,
      combined: outcome?.outcome === 'opened' ? outcome.pr : null,
      baseSha: outcome && outcome.outcome !== 'refused' ? outcome.baseSha : null,
      merges: outcome?.outcome === 'opened' ? outcome.merges : [],
      reason: outcome && outcome.outcome !== 'opened' ? combineFailureNote(p, outcome) : null,
    },
  };
}

/**
 * After the combined PR opened: A and B wait for it (`Arbiter / selection`), the Change is told,
 * and the receipt is kept. The round it was built in hands over to the next, which holds all three.
 */
export function planCombined(input: {
  repo: string;
  proposal: CombineProposal;
  outcome: Extract<CombineOutcome, { outcome: 'opened' }>;
  now: string;
}): Action[] {
  const { repo, proposal: p, outcome } = input;
  const k = (suffix: string): string => `${combineKey(repo, p.change)}/after/${suffix}`;
  const c = outcome.pr;
  const summary = [
    `No candidate for #${p.change} meets every criterion, but #${p.a.pr} (meets ${p.a.met.join(', ')}) ` +
      `and #${p.b.pr} (brings ${p.b.brings.join(', ')}) together meet ${p.together.join(', ')}.`,
    '',
    `Arbiter merged both heads into \`${p.branch}\` and opened #${c}, a combined candidate. It is verified like ` +
      `any sibling (CI, acceptance); the round is decided once it has settled. If #${c} wins, this pull request ` +
      'closes as combined into it.',
  ].join('\n');
  const waiting = (side: CombineSide): Action => ({
    kind: 'check-run',
    key: k(`check/${side.pr}`),
    pr: side.pr,
    headSha: side.headSha,
    name: 'Arbiter / selection',
    status: 'in_progress',
    title: `Waiting for the combined candidate #${c}`,
    summary,
  });
  const marker = combinedMarker(p.change);
  const receipt = combineReceipt({ repo, proposal: p, outcome, now: input.now });
  const sides = `#${p.a.pr} (${p.a.met.join(', ')}) and #${p.b.pr} (brings ${p.b.brings.join(', ')})`;
  const actions: Action[] = [
    { kind: 'receipt', key: k('receipt'), receipt },
    waiting(p.a),
    waiting(p.b),
    {
      kind: 'comment',
      key: k('note'),
      issue: p.change,
      marker,
      body:
        `${markerFor(marker)}\nNo candidate meets every criterion, but ${sides} together meet ` +
        `${p.together.length} of them: Arbiter combined them into #${c}. ` +
        `The comparison follows once #${c} has settled.`,
    },
  ];
  return plannedActions(actions, { planner: 'combine', inputs: input });
}

/** The reason a source of the winning combined candidate closes with. */
export function combinedIntoReason(
  combined: { pr: number; sources: number[] } | null | undefined,
  winner: number | null,
  pr: number,
): string | null {
  if (!combined || winner !== combined.pr || !combined.sources.includes(pr)) return null;
  return `Combined into #${combined.pr}: #${combined.pr} holds this candidate's changes and won the comparison.`;
}

/**
 * The sources a combined candidate holds while it waits for a person: they stay open (never closed
 * "Combined into" before it merged), so a person who rejects it can still choose one of them.
 */
export function heldSources(
  combined: { pr: number; sources: number[] } | null | undefined,
  before: readonly number[],
): number[] {
  return combined && before.includes(combined.pr) ? combined.sources.filter((pr) => !before.includes(pr)) : [];
}

/** What a source held by a combined candidate before a person says: the comparison's outcome and its check. */
export function heldWords(
  c: number,
  pr: number,
  sources: number[],
  prefix: string,
): { reason: string; summary: string } {
  const other = sources.filter((n) => n !== pr).map((n) => `#${n}`);
  const with_ = other.length > 0 ? ` with ${other.join(', ')}` : '';
  return {
    reason: `Held as part of #${c}: open until #${c} merges`,
    summary:
      `#${c} combines this candidate${with_} and waits for a person. This pull request stays open until #${c} ` +
      `merges, then closes as combined into it. Should #${c} be rejected or closed, this candidate can still ` +
      `be chosen: \`${prefix} promote\` here.`,
  };
}
