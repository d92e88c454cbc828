// Portfolio search (DESIGN.md section 7), the pure part: slot names, the measurement policies as a
// lookup table (which wide-round candidates go deep, or which need another reading first), and the
// wording of readings. No I/O: readings and evidence are passed in.
import { agentOfLogin, entryCovers } from './agents.ts';
import { rankCandidates } from './rank.ts';
import type { CandidateEvidence, RankedCandidate } from './types.ts';

export type PortfolioPolicy = 'top-k' | 'successive-halving';

/** One reading of the scoring check on a candidate's head; `run` orders a head's readings (the check run id). */
export interface Reading {
  pr: number;
  run: number;
  value: number;
}

export interface PolicyInput {
  /** The wide round's siblings, with their (first-reading) gate evidence. */
  evidence: CandidateEvidence[];
  /** Every reading so far, in any order. */
  readings: Reading[];
  k: number;
  /** Successive halving stops asking for readings at this many per candidate. */
  maxReadings: number;
}

export type PolicyStep =
  /** These candidates need one more reading of the scoring check before the policy can choose. */
  | { kind: 'rerun'; prs: number[] }
  /** `deep` go on to the deep round in rank order; `out` close. */
  | { kind: 'chosen'; deep: number[]; out: number[]; ranking: RankedCandidate[] };

export const MAX_READINGS = 5;

/** At most this many approaches are explored at once (repository_dispatch fans out one event each). */
export const MAX_EXPLORE = 10;

const ARBITER_SLOT = /^\s*arbiter-slot:\s*([A-Za-z0-9][A-Za-z0-9._-]{0,63})\s*$/im;

/** The slot a PR body names (`Arbiter-slot: 42-1-2`), or null. */
export function slotOf(body: string | null | undefined): string | null {
  if (!body) return null;
  return ARBITER_SLOT.exec(body.length > 100_000 ? body.slice(0, 100_000) : body)?.[1] ?? null;
}

/** A `portfolio.approaches` entry: its text, or its text and the agent that takes its slot. */
export type ApproachEntry = string | { approach: string; agent: string };

export const approachText = (entry: ApproachEntry): string => (typeof entry === 'string' ? entry : entry.approach);
export const approachAgent = (entry: ApproachEntry): string | null => (typeof entry === 'string' ? null : entry.agent);

/** One spelling of a login for matching: GraphQL drops the `[bot]` REST keeps, and logins ignore case. */
const loginKey = (login: string): string =>
  login
    .trim()
    .replace(/\[bot\]$/i, '')
    .toLowerCase();

/**
 * Whether the agent a slot names is the author of a pull request: a known agent's name (`copilot`)
 * or any of its logins stands for every login of that agent; another login matches in all its forms.
 */
export const agentTakes = (agent: string, author: string): boolean => {
  if (loginKey(agent) === '') return false;
  if (entryCovers(agent, author)) return true;
  const known = agentOfLogin(agent);
  return known !== null && known === agentOfLogin(author);
};

/**
 * The composing slot a pull request without an `Arbiter-slot:` line fills: the first (in dispatch
 * order) whose approach names the PR's author as its agent. An agent that takes two slots of one
 * explore fills them in the order its PRs open. None: an ordinary candidate.
 */
export function slotForAgent(
  slots: readonly { slot: string; approach: string; state: string }[],
  approaches: readonly ApproachEntry[],
  author: string,
): string | null {
  const agentOf = new Map(approaches.map((a) => [approachText(a), approachAgent(a)]));
  const slot = slots.find((s) => {
    const agent = agentOf.get(s.approach);
    return s.state === 'composing' && agent != null && agentTakes(agent, author);
  });
  return slot?.slot ?? null;
}

/** The name of slot `index` (1-based) of a Change's `portfolio`-th explore. */
export const slotName = (change: number, portfolio: number, index: number): string => `${change}-${portfolio}-${index}`;

/** Each candidate's readings in run order, whatever order they arrived in. */
export function readingsByPr(readings: Reading[]): Map<number, number[]> {
  const sorted = [...readings].sort((a, b) => a.pr - b.pr || a.run - b.run || a.value - b.value);
  const out = new Map<number, number[]>();
  for (const r of sorted) out.set(r.pr, [...(out.get(r.pr) ?? []), r.value]);
  return out;
}

export const mean = (values: number[]): number | null =>
  values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;

const fixed = (v: number): string => v.toFixed(2);

/** "0.91, 0.72, 0.70 → 0.78"; one reading is just "0.91"; none is "no reading". */
export function describeReadings(values: number[]): string {
  if (values.length === 0) return 'no reading';
  if (values.length === 1) return fixed(values[0]);
  return `${values.map(fixed).join(', ')} → ${fixed(mean(values)!)}`;
}

/**
 * Ranks `prs` with the usual keys, the score being the mean of each one's first `depth` readings
 * (a candidate without readings keeps its gate score), and keeps the best `keep`, with every
 * candidate tied with the last one kept: a cut never separates equal evidence.
 */
function best(
  input: PolicyInput,
  byPr: Map<number, number[]>,
  prs: number[],
  depth: number,
  keep: number,
): RankedCandidate[] {
  const evidence = input.evidence
    .filter((e) => prs.includes(e.pr))
    .map((e) => {
      const values = (byPr.get(e.pr) ?? []).slice(0, depth);
      return values.length === 0 ? e : { ...e, gate: { ...e.gate, score: mean(values) } };
    });
  const ordered = rankCandidates(evidence).ordered;
  const last = ordered[Math.min(keep, ordered.length) - 1];
  return last ? ordered.filter((c) => c.rank <= last.rank) : [];
}

function chosen(input: PolicyInput, byPr: Map<number, number[]>, prs: number[], depth: number): PolicyStep {
  const all = input.evidence.map((e) => e.pr);
  const deep = best(input, byPr, prs, depth, input.k).map((c) => c.pr);
  const ranking = best(input, byPr, all, depth, all.length);
  return { kind: 'chosen', deep, out: ranking.map((c) => c.pr).filter((pr) => !deep.includes(pr)), ranking };
}

/** `top-k`: one reading each; the best k go deep. */
function topK(input: PolicyInput): PolicyStep {
  return chosen(
    input,
    readingsByPr(input.readings),
    input.evidence.map((e) => e.pr),
    1,
  );
}

/**
 * `successive-halving`: while more than k survive, every survivor gets one more reading, each is
 * scored by the mean of its readings so far, and the better half survives (never fewer than k).
 * A candidate that reports no score at all is never re-run (nothing would come of it).
 */
function successiveHalving(input: PolicyInput): PolicyStep {
  const byPr = readingsByPr(input.readings);
  let survivors = input.evidence.map((e) => e.pr);
  let depth = 1;
  while (survivors.length > input.k && depth < input.maxReadings) {
    depth++;
    const missing = survivors.filter((pr) => {
      const n = byPr.get(pr)?.length ?? 0;
      return n > 0 && n < depth;
    });
    if (missing.length > 0) return { kind: 'rerun', prs: missing.sort((a, b) => a - b) };
    survivors = best(input, byPr, survivors, depth, Math.max(input.k, Math.ceil(survivors.length / 2))).map(
      (c) => c.pr,
    );
  }
  return chosen(input, byPr, survivors, depth);
}

/** The measurement policies: how many readings each takes and who goes deep. A lookup table (STYLE.md 6). */
export const POLICIES: Record<PortfolioPolicy, (input: PolicyInput) => PolicyStep> = {
  'top-k': topK,
  'successive-halving': successiveHalving,
};

/** The readings a policy's choice rests on, per candidate: as many as the survivors were measured. */
export function readingsUsed(
  step: Extract<PolicyStep, { kind: 'chosen' }>,
  readings: Reading[],
  policy: PortfolioPolicy,
): Map<number, number[]> {
  const byPr = readingsByPr(readings);
  return new Map(
    step.ranking.map((c) => [c.pr, policy === 'top-k' ? (byPr.get(c.pr) ?? []).slice(0, 1) : (byPr.get(c.pr) ?? [])]),
  );
}
