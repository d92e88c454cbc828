// The human gate as actions, one shape wherever a Change goes to a person (a decided round, a repair
// that never arrived): the gate comment, the selection check that asks for action with the Promote
// button, the label, the review request; and the HUMAN_GATE receipt every planner records when a
// decision goes to a person. Pure: evidence, reviewers and wording are passed in.
import type { Action, CheckRunButton } from '../actions.ts';
import { LABEL_AWAITING } from '../labels.ts';
import type { Receipt } from '../receipt.ts';
import { renderHumanGate, renderTiedGate } from '../render/human-gate.ts';
import { inMode, type ModeConfig } from '../render/mode-words.ts';
import type { CandidateEvidence, Criterion } from '../types.ts';

/** The marker of a candidate's gate comment: one per PR, re-rendered in place round after round. */
export const gateMarker = (pr: number): string => `gate:${pr}`;
/** The marker of a tie's one gate comment, on the Change. */
export const tiedGateMarker = (change: number, base: string): string => `gate:${change}@${base}`;

/** What a HUMAN_GATE receipt records: the candidates, and the hand-over or the person's decision. */
export type HumanGateData = Extract<Receipt, { kind: 'HUMAN_GATE' }>['data'];

/** The HUMAN_GATE receipt of a decision that went to a person, as the action that records it under `key`. */
export function humanGateReceipt(
  key: string,
  at: { repo: string; change: number; round: number; now: string },
  data: HumanGateData,
): Action {
  const { repo, change, round, now } = at;
  return { kind: 'receipt', key, receipt: { kind: 'HUMAN_GATE', repo, change, round, at: now, data } };
}

export interface HumanGatePlanInput {
  repo: string;
  change: { number: number; criteria: Criterion[] };
  base: string;
  /** Every candidate before the person, and the best of them (null: a person chooses among them). */
  before: number[];
  winner: number | null;
  why: string;
  evidence: ReadonlyMap<number, CandidateEvidence>;
  /** Each candidate's head (its check is written there). */
  heads: ReadonlyMap<number, string>;
  titles?: Record<string, string>;
  repoUrl: string | null;
  prefix: string;
  reviewers: { users: string[]; teams: string[] };
  /** The configured mode, for the words only (the filter keeps the label and the review request back). */
  config: ModeConfig;
  losers: number[];
  buttons: CheckRunButton[];
  /** The check's title for a candidate (default: "Selected: awaiting approval" / "A person must choose"). */
  title?: (pr: number) => string;
  /** The receipt text, folded into the first candidate's check only. */
  text?: string;
  /** Ask for the reviews again even on a head already gated (a repair that timed out: the person is needed anew). */
  askAgain?: boolean;
  /** The plan's key for a suffix (its round or trigger). */
  key: (suffix: string) => string;
}

/** What goes before a person: one gate comment per candidate (one shared comment on the Change for a tie), its check, label and review request. */
export function planHumanGate(input: HumanGatePlanInput): Action[] {
  const { repo, change, before, reviewers } = input;
  const { users, teams } = reviewers;
  // Mentions notify: only the people whose review is requested (the renderer names nobody in shadow mode).
  const mentions = [...users.map((u) => `@${u}`), ...teams.map((t) => `@${repo.split('/')[0]}/${t}`)];
  const tied = input.winner === null && before.length > 1;
  const comparisonUrl = input.repoUrl ? `${input.repoUrl}/issues/${change.number}` : undefined;
  const actions: Action[] = [];
  for (const pr of before) {
    const evidence = input.evidence.get(pr);
    const gate = renderHumanGate({
      marker: gateMarker(pr),
      pr,
      winner: input.winner,
      candidates: before,
      change: change.number,
      title: input.titles?.[pr],
      why: input.why,
      criteria: change.criteria,
      evidence,
      prefix: input.prefix,
      // A tie mentions the reviewers once, in the shared comment on the Change.
      mentions: tied ? [] : mentions,
      losers: input.losers,
      repoUrl: input.repoUrl,
      config: input.config,
    });
    // While a person must act the run asks for action (not a green success), wherever GitHub shows it
    // (an action_required run needs a details_url: the comparison on the Change).
    actions.push({
      kind: 'check-run',
      key: input.key(`check/selection/${pr}`),
      pr,
      headSha: input.heads.get(pr) ?? evidence?.headSha ?? '',
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: comparisonUrl ? 'action_required' : 'neutral',
      title:
        input.title?.(pr) ??
        inMode(input.config, {
          live: input.winner === pr ? 'Selected: awaiting approval' : 'A person must choose',
          shadow: 'Shadow: a person would decide',
        }),
      summary: gate.split('\n').slice(1).join('\n').trim(),
      text: pr === before[0] ? input.text : undefined,
      buttons: input.buttons,
      ...(comparisonUrl ? { detailsUrl: comparisonUrl } : {}),
    });
    actions.push({ kind: 'label', key: input.key(`label-awaiting/${pr}`), issue: pr, labels: [LABEL_AWAITING] });
    if (users.length + teams.length > 0) {
      // Keyed by the head, not the round: a round that changes nothing (a recheck) does not ask the same people again.
      const head = `${repo}#${change.number}@${input.base}/gate/${pr}@${input.heads.get(pr) ?? evidence?.headSha ?? ''}`;
      const key = input.askAgain ? input.key(`review/${pr}`) : `${head}/review`;
      actions.push({ kind: 'request-review', key, pr, reviewers: users, teams });
    }
    if (!tied) {
      actions.push({
        kind: 'comment',
        key: input.key(`gate-note/${pr}`),
        issue: pr,
        marker: gateMarker(pr),
        body: gate,
      });
    }
  }
  if (tied) {
    const marker = tiedGateMarker(change.number, input.base);
    actions.push({
      kind: 'comment',
      key: input.key('gate-note/tied'),
      issue: change.number,
      marker,
      body: renderTiedGate({
        marker,
        candidates: before,
        change: change.number,
        titles: input.titles,
        why: input.why,
        criteria: change.criteria,
        evidence: input.evidence,
        prefix: input.prefix,
        mentions,
        losers: input.losers,
        repoUrl: input.repoUrl,
        config: input.config,
      }),
    });
  }
  return actions;
}
