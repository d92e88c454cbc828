// The wide round's outcome as a plan (DESIGN.md section 7): nothing ships; the policy's top k go
// deep (one `arbiter.candidate.refine` dispatch each), the others close with the reason, and the
// receipts keep every reading. Pure: evidence, readings and the policy's choice are passed in.
import type { ArbiterConfig } from '../../config/schema.ts';
import { renderComparisonComment, type ComparisonRow } from '../render/markdown.ts';
import { markerFor } from '../render/markers.ts';
import { inMode } from '../render/mode-words.ts';
import type { Action } from '../actions.ts';
import { LABEL_LOST } from '../labels.ts';
import { describeReadings, mean, type PolicyStep, type PortfolioPolicy } from '../portfolio.ts';
import { failedRequired, loserReason } from '../reasons.ts';
import { bringBackWords } from './outcome-text.ts';
import type { CandidateEvidence, Criterion } from '../types.ts';
import type { Receipt } from '../receipt.ts';
import { WideInputs } from '../planner-inputs.ts';
import { plannedActions } from '../replay-lines.ts';

/** A slot as the comparison shows it. */
export interface SlotView {
  slot: string;
  approach: string;
  state: 'composing' | 'open' | 'dropped';
  pr: number | null;
  reason: string;
  /** A linked pull request that answered this slot but is not a candidate: its author is not trusted. */
  untrusted?: { pr: number; author: string; reason: string } | null;
}

/** A re-run of the scoring check asked for and never answered within `portfolio.composeTimeout`. */
export interface Unanswered {
  pr: number;
  askedAt: string;
}

export interface WideInput {
  repo: string;
  change: { number: number; title: string; criteria: Criterion[] };
  portfolio: number;
  round: number;
  policy: PortfolioPolicy;
  k: number;
  siblings: CandidateEvidence[];
  step: Extract<PolicyStep, { kind: 'chosen' }>;
  /** The readings each candidate's rank rests on, in run order. */
  readings: Map<number, number[]>;
  /** Re-runs that never answered: the round was decided on the readings it had. */
  unanswered: Unanswered[];
  slots: SlotView[];
  /** Candidates whose `Arbiter-slot` named no open slot: ordinary candidates, said so. */
  unlinked: { pr: number; slot: string }[];
  /** `commands.prefix` names the command that brings a closed candidate back (default `/arbiter`). */
  config: Pick<ArbiterConfig, 'mode'> & { commands?: Pick<ArbiterConfig['commands'], 'prefix'> };
  /** The scoring check's name (`gate.score`), as the notes name it. */
  scoreCheck: string;
  now: string;
}

export interface WidePlan {
  actions: Action[];
  wide: Receipt;
  deep: Receipt;
}

/** Bounds of a refine dispatch: GitHub takes at most 10 top-level keys; lists and texts stay short. */
const MAX_LISTED = 10;
const MAX_TEXT = 200;

const clip = (text: string): string => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

function unmetCriteria(e: CandidateEvidence, criteria: Criterion[]): { id: string; text: string }[] {
  const open = new Set(
    (e.acceptance?.results ?? []).filter((r) => r.status !== 'met' && r.status !== 'uncheckable').map((r) => r.id),
  );
  return criteria
    .filter((c) => open.has(c.id))
    .slice(0, MAX_LISTED)
    .map((c) => ({ id: c.id, text: clip(c.text) }));
}

const rounded = (v: number | null): number | null => (v === null ? null : Math.round(v * 10_000) / 10_000);

export function planWideRound(input: WideInput): WidePlan {
  const { repo, change, round, step, k } = input;
  const key = (suffix: string): string => `${repo}#${change.number}/p${input.portfolio}/wide/${suffix}`;
  const evidence = new Map(input.siblings.map((e) => [e.pr, e]));
  // Averages are shown to two decimals, as the readings are.
  const ranked = new Map(
    step.ranking.map((c) => [c.pr, { ...c, score: c.score === null ? null : Number(c.score.toFixed(2)) }]),
  );
  const slotOfPr = new Map(input.slots.filter((s) => s.pr !== null).map((s) => [s.pr!, s]));
  const readingsOf = (pr: number): number[] => input.readings.get(pr) ?? [];
  const lastDeep = ranked.get(step.deep[step.deep.length - 1]);
  const reasons = new Map<number, string>();
  for (const pr of step.out) {
    const beat = lastDeep
      ? loserReason({
          winner: lastDeep,
          loser: ranked.get(pr)!,
          loserEvidence: evidence.get(pr)!,
          criteriaCount: change.criteria.length,
          judge: null,
          head: `#${lastDeep.pr} ranks above`,
        })
      : 'nothing went deep.';
    reasons.set(pr, `Not in the top ${k} of the wide round: ${beat} Readings: ${describeReadings(readingsOf(pr))}.`);
  }
  const readingsData = Object.fromEntries(step.ranking.map((c) => [String(c.pr), readingsOf(c.pr)]));
  const averages = Object.fromEntries(step.ranking.map((c) => [String(c.pr), rounded(mean(readingsOf(c.pr)))]));
  const slots = input.slots.map((s) => ({
    slot: s.slot,
    approach: s.approach,
    state: s.state,
    pr: s.pr,
    reason: s.reason,
  }));
  const wide: Receipt = {
    kind: 'PORTFOLIO_WIDE',
    repo,
    change: change.number,
    round,
    at: input.now,
    data: {
      portfolio: input.portfolio,
      policy: input.policy,
      k,
      readings: readingsData,
      averages,
      unanswered: input.unanswered,
      ranking: step.ranking.map(({ pr, rank, promotable, met, gaps, score, passing }) => ({
        pr,
        rank,
        promotable,
        met,
        gaps,
        score: rounded(score),
        passing,
      })),
      deep: step.deep,
      out: step.out.map((pr) => ({ pr, reason: reasons.get(pr) })),
      slots,
      unlinked: input.unlinked,
      mode: input.config.mode,
    },
  };
  const refines = step.deep.map((pr) => {
    const e = evidence.get(pr)!;
    const slot = slotOfPr.get(pr);
    return {
      change: change.number,
      slot: slot?.slot ?? null,
      approach: slot ? clip(slot.approach) : null,
      phase: 'deep',
      pr,
      head_sha: e.headSha,
      score: averages[String(pr)],
      failed_checks: failedRequired(e).slice(0, MAX_LISTED),
      unmet: unmetCriteria(e, change.criteria),
      round: round + 1,
    };
  });
  const deep: Receipt = {
    kind: 'PORTFOLIO_DEEP',
    repo,
    change: change.number,
    round,
    at: input.now,
    data: {
      portfolio: input.portfolio,
      policy: input.policy,
      k,
      readings: readingsData,
      deep: refines.map(({ change: _c, phase: _p, ...rest }) => rest),
      dispatches: refines.length,
    },
  };

  const deepList = step.deep.map((n) => `#${n}`).join(', ') || 'nobody';
  const outList = step.out.map((n) => `#${n}`).join(', ');
  const headline = `Wide round (${input.policy}, k = ${k}): ${deepList} ${step.deep.length === 1 ? 'goes' : 'go'} deep${outList ? `; ${outList} ${step.out.length === 1 ? 'closes' : 'close'}` : ''}. Nothing ships from a wide round.`;
  const detail: string[] = [];
  for (const c of step.ranking) {
    const slot = slotOfPr.get(c.pr);
    const who = slot ? ` (slot \`${slot.slot}\`: ${clip(slot.approach)})` : '';
    detail.push(
      `#${c.pr}${who}: readings ${describeReadings(readingsOf(c.pr))}${step.deep.includes(c.pr) ? ' → deep round' : ''}`,
    );
  }
  for (const u of input.unanswered)
    detail.push(
      `#${u.pr}: the re-run of \`${input.scoreCheck}\` asked at ${u.askedAt} never answered within \`portfolio.composeTimeout\`; ranked on the readings it has.`,
    );
  const prefix = input.config.commands?.prefix ?? '/arbiter';
  for (const s of input.slots.filter((x) => x.state !== 'open')) {
    const answered = s.untrusted
      ? `; #${s.untrusted.pr} by @${s.untrusted.author} answered it, but ${s.untrusted.reason}: a maintainer admits it with \`${prefix} admit\` on #${s.untrusted.pr}`
      : '';
    detail.push(`Slot \`${s.slot}\` (${clip(s.approach)}): ${s.state}${s.reason ? `: ${s.reason}` : ''}${answered}`);
  }
  for (const u of input.unlinked)
    detail.push(
      `#${u.pr} names slot \`${u.slot}\`, which is not an open slot of #${change.number}: it is an ordinary candidate.`,
    );
  const rows: ComparisonRow[] = step.ranking.map((c) => ({
    evidence: { ...evidence.get(c.pr)!, gate: { ...evidence.get(c.pr)!.gate, score: rounded(c.score) } },
    rank: c.rank,
    outcome: step.deep.includes(c.pr) ? 'deep round' : 'not in the top k',
  }));
  const actions: Action[] = [
    { kind: 'receipt', key: key('receipt/wide'), receipt: wide },
    { kind: 'receipt', key: key('receipt/deep'), receipt: deep },
    {
      kind: 'comment',
      key: key('comparison'),
      issue: change.number,
      // Its own comment, kept: the normal comparison of the deep round comes later and is another.
      marker: `comparison:${change.number}:wide:${input.portfolio}`,
      body: renderComparisonComment({
        change: change.number,
        round,
        headline,
        notes: detail,
        criteria: change.criteria,
        rows,
        receipt: wide,
        config: input.config,
      }).replace(
        markerFor(`comparison:${change.number}`),
        markerFor(`comparison:${change.number}:wide:${input.portfolio}`),
      ),
    },
  ];
  // A closed candidate's comment ends with how to bring it back (shadow mode closes nothing).
  const back = inMode(input.config, { live: ` ${bringBackWords(prefix, change.number, null)}`, shadow: '' });
  for (const pr of step.out) {
    const reason = reasons.get(pr)!;
    const e = evidence.get(pr)!;
    actions.push(
      {
        kind: 'check-run',
        key: key(`check/${pr}`),
        pr,
        headSha: e.headSha,
        name: 'Arbiter / selection',
        status: 'completed',
        conclusion: 'neutral',
        title: `Not in the top ${k} of the wide round`,
        summary: reason,
      },
      {
        kind: 'comment',
        key: key(`note/${pr}`),
        issue: pr,
        marker: `note:${pr}:r${round}`,
        body: `${markerFor(`note:${pr}:r${round}`)}\n${reason} See the comparison on #${change.number}.${back}`,
      },
      { kind: 'label', key: key(`label-lost/${pr}`), issue: pr, labels: [LABEL_LOST] },
      { kind: 'close', key: key(`close/${pr}`), pr },
      { kind: 'set-state', key: key(`state/${pr}`), pr, state: 'rejected', reason },
    );
  }
  // The refines are awaited before they are asked for: an answer never finds its deep round unrecorded.
  if (step.deep.length > 0)
    actions.push({
      kind: 'record-deep',
      key: key('deep'),
      change: change.number,
      portfolio: input.portfolio,
      deep: step.deep.map((pr) => ({ pr, headSha: evidence.get(pr)!.headSha })),
      dispatchedAt: input.now,
    });
  for (const payload of refines) {
    const e = evidence.get(payload.pr)!;
    const summary = `${headline}\n\nArbiter asked the agent to refine #${payload.pr} (readings ${describeReadings(readingsOf(payload.pr))}). Its next push opens round ${round + 1}, the normal selection.`;
    actions.push(
      {
        kind: 'check-run',
        key: key(`check/${payload.pr}`),
        pr: payload.pr,
        headSha: e.headSha,
        name: 'Arbiter / selection',
        status: 'in_progress',
        title: 'Deep round: refinement requested',
        summary,
      },
      { kind: 'dispatch', key: key(`refine/${payload.pr}`), eventType: 'arbiter.candidate.refine', payload },
    );
  }
  // Shadow mode is the executor's one filter (src/core/shadow.ts): the plan is the same in both modes.
  return { wide, deep, actions: plannedActions(actions, { planner: 'portfolio-wide', inputs: recordedInputs(input) }) };
}

/** The inputs as the wide receipt keeps them: readings by PR, and only the config values the plan reads. */
function recordedInputs(input: WideInput): WideInputs {
  const { readings, config, step, ...rest } = input;
  return {
    ...rest,
    step: {
      kind: 'chosen',
      deep: step.deep,
      out: step.out,
      ranking: step.ranking.map(({ pr, rank, promotable, met, gaps, score, passing }) => ({
        pr,
        rank,
        promotable,
        met,
        gaps,
        score,
        passing,
      })),
    },
    readings: Object.fromEntries([...readings].map(([pr, values]) => [String(pr), values])),
    // The schema keeps only the values the plan reads (the caller may pass the whole config).
    config: WideInputs.shape.config.parse(config),
  };
}
