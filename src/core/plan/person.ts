// A person's decisions as plans. A rejection (`/arbiter reject <reason>`, or a changes-requested
// review): the candidate leaves the running at once, whatever its round's state; the shell passes in
// whether the candidate was gated and whether the Change's one repair was granted to it. A promotion:
// the merge at the verified head, or a refusal saying why. A cancel: every candidate closed. An
// admission: which head is vouched for, for which Change, and the reply. Pure.
import { linkedChange, type LinkSources } from '../link.ts';
import { markerFor } from '../render/markers.ts';
import { inMode, type ModeConfig } from '../render/mode-words.ts';
import type { Action } from '../actions.ts';
import { LABEL_AWAITING } from '../labels.ts';
import { CancelInputs, RejectionInputs, type Receipt } from '../receipt.ts';
import { OPEN_STATES, type CandidateState } from '../types.ts';
import { changeActionKey, markerKey, rejectionActionKey, repairMarker } from '../keys.ts';
import { plannedActions } from '../replay-lines.ts';
import { humanGateReceipt } from './human-gate.ts';

/** What became of the Change's one repair for this rejection. */
export type RepairChance = 'granted' | 'not-gated' | 'used' | 'spent' | 'source-rejected' | 'combined' | 'disabled';

export interface RejectionInput {
  repo: string;
  change: number;
  pr: number;
  headSha: string;
  base: string;
  round: number;
  user: string;
  reason: string;
  repair: RepairChance;
  /** The PR carries `arbiter:awaiting-approval` (removed: its reason ends). */
  awaiting: boolean;
  /** The configured mode, for the words only: the executor's filter decides what shadow mode does. */
  config: ModeConfig;
  /** `repair.timeout` in seconds, for the note on the Change. */
  repairTimeout: number;
  now: string;
}

export interface RejectionPlan {
  actions: Action[];
  /** The reply to the person, in the mode's words. */
  reply: string;
  /** True when the candidate stays open for its repair's commits. */
  keptForRepair: boolean;
}

const WHY_NO_REPAIR: Record<Exclude<RepairChance, 'granted'>, (pr: number) => string> = {
  'not-gated': (pr) => `#${pr} was not before a person (only a rejection at the human gate starts the Change's repair)`,
  used: () => "the Change's one repair is already used",
  spent: (pr) => `the Change's one repair was already spent on #${pr} (a round asked for it), so no new repair starts`,
  'source-rejected': () => 'a combined candidate built from a rejected candidate gets no repair',
  combined: (pr) => `#${pr} is the combined candidate Arbiter built, which no agent repairs`,
  disabled: () => 'repair is turned off in `.github/arbiter.yml` (`repair.enabled`)',
};

export function planRejection(input: RejectionInput): RejectionPlan {
  const { repo, change, pr, headSha, user, config } = input;
  const k = (suffix: string): string => rejectionActionKey(repo, change, pr, headSha, suffix);
  const reason = input.reason.slice(0, 500);
  const text = `Rejected by @${user}: ${reason}`;
  const state: Action = { kind: 'set-state', key: k('state'), pr, state: 'rejected', reason: text };
  const actions: Action[] = input.awaiting
    ? [{ kind: 'unlabel', key: k('unlabel'), issue: pr, label: LABEL_AWAITING }]
    : [];
  if (input.repair === 'granted') {
    const receipt: Receipt = {
      kind: 'ACCEPTANCE_REPAIR',
      repo,
      change,
      round: input.round,
      at: input.now,
      data: { candidate: pr, headSha, objective: reason, trigger: 'rejection', by: user },
    };
    const minutes = Math.round(input.repairTimeout / 60);
    const note = inMode(config, {
      live: `@${user} rejected #${pr} (${reason.slice(0, 300)}). Arbiter requested one repair; if nothing arrives within ${minutes} minutes, the change goes to a person.`,
      shadow: `Shadow mode: @${user} rejected #${pr} (${reason.slice(0, 300)}). Arbiter would ask for the Change's one repair of #${pr}; nothing was dispatched.`,
    });
    const summary = inMode(config, {
      live: `${text}\n\n#${pr} is out of the running. It stays open for the repair's commits, which bring it back in the next round.`,
      shadow: `${text}\n\nShadow mode: Arbiter would take #${pr} out of the running and ask for one repair; it stays as it is.`,
    });
    actions.push(
      {
        kind: 'check-run',
        key: k('check'),
        pr,
        headSha,
        name: 'Arbiter / selection',
        status: 'completed',
        conclusion: 'neutral',
        title: inMode(config, {
          live: 'Rejected: repair requested',
          shadow: 'Shadow: would reject and ask for a repair',
        }),
        summary,
      },
      state,
      { kind: 'receipt', key: k('receipt'), receipt },
      {
        kind: 'dispatch',
        key: changeActionKey(repo, change, 'repair-by-rejection'),
        eventType: 'arbiter.repair',
        payload: {
          change,
          candidate: pr,
          base: input.base,
          head_sha: headSha,
          objective: reason,
          reason: text.slice(0, 500),
          round: input.round,
          by: user,
        },
      },
      {
        kind: 'comment',
        key: k('note'),
        issue: change,
        marker: repairMarker(change),
        body: `${markerFor(repairMarker(change))}\n${note}`,
      },
      // The Change waits for the repair's commits, no longer for a person.
      { kind: 'set-change-state', key: k('change-state'), change, state: 'open' },
    );
    const reply = inMode(config, {
      live: `Rejected #${pr}: it is out of the running and stays open for one repair, which was requested (${reason.slice(0, 200)}).`,
      shadow: `Shadow mode: Arbiter would reject #${pr} and ask for the Change's one repair (${reason.slice(0, 200)}); no pull request was changed and nothing was dispatched.`,
    });
    return {
      actions: plannedActions(actions, { planner: 'rejection', inputs: RejectionInputs.parse(input) }),
      reply,
      keptForRepair: true,
    };
  }
  const why = WHY_NO_REPAIR[input.repair](pr);
  const summary = inMode(config, {
    live: `${text}\n\nNo repair was started: ${why}.`,
    shadow: `${text}\n\nShadow mode: Arbiter would close this candidate; no repair would start: ${why}.`,
  });
  const note = inMode(config, {
    live: `${text}. This candidate is out of the running and closed; no repair was started: ${why}.`,
    shadow: `Shadow mode: Arbiter would close this candidate. ${text}. No repair would start: ${why}.`,
  });
  actions.push(
    {
      kind: 'check-run',
      key: k('check'),
      pr,
      headSha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      title: inMode(config, { live: 'Rejected', shadow: 'Shadow: would reject' }),
      summary,
    },
    {
      kind: 'comment',
      key: k('note'),
      issue: pr,
      marker: markerKey('rejected', pr),
      body: `${markerFor(markerKey('rejected', pr))}\n${note}`,
    },
    humanGateReceipt(
      k('receipt'),
      { repo, change, round: input.round, now: input.now },
      { candidates: [pr], decision: 'rejected by a person', by: user, reason, repair: input.repair },
    ),
    { kind: 'close', key: k('close'), pr },
    state,
  );
  const reply = inMode(config, {
    live: `Rejected #${pr} and closed it (${reason.slice(0, 200)}). No repair was started: ${why}.`,
    shadow: `Shadow mode: Arbiter would reject #${pr} and close it; no pull request was changed. No repair would start: ${why}.`,
  });
  return {
    actions: plannedActions(actions, { planner: 'rejection', inputs: RejectionInputs.parse(input) }),
    reply,
    keptForRepair: false,
  };
}

/** A person's verb refused, with the code and the reason the reply gives. */
export type Refusal = { code: string; message: string };

/** The candidates a cancel closes: every open one, and a rejected one kept open for the Change's repair. */
export function cancelledCandidates<C extends { pr: number; state: CandidateState }>(
  candidates: C[],
  repairOf: number | null,
): C[] {
  return candidates.filter((c) => OPEN_STATES.has(c.state) || (c.state === 'rejected' && repairOf === c.pr));
}

export interface CancelInput {
  repo: string;
  change: number;
  /** The job's token: a Change reopened and cancelled again is cancelled again. */
  token: string;
  user: string;
  /** What cancelled it, in the notes and checks. */
  how: string;
  /** The candidates closed, and whether each carries `arbiter:awaiting-approval` (its reason ends too). */
  candidates: { pr: number; headSha: string; awaiting: boolean }[];
  /** The configured mode, for the words only: the executor's filter decides what shadow mode does. */
  config: ModeConfig;
  now: string;
}

/**
 * Cancels a Change: CANCEL receipt, every candidate's check completed, noted, closed and withdrawn,
 * and last the Change's state (kept back with the closures in shadow mode: nothing was cancelled).
 */
export function planCancel(input: CancelInput): { actions: Action[]; reply: string } {
  const { change, config, candidates } = input;
  const text = inMode(config, {
    live: input.how,
    shadow: `Shadow mode: ${input.how} Arbiter would close this candidate.`,
  });
  const k = (suffix: string): string => changeActionKey(input.repo, change, 'cancel', input.token, suffix);
  const actions: Action[] = [
    {
      kind: 'receipt',
      key: k('receipt'),
      receipt: {
        kind: 'CANCEL',
        repo: input.repo,
        change,
        round: 0,
        at: input.now,
        data: { by: input.user, closed: candidates.map((c) => c.pr) },
      },
    },
  ];
  for (const c of candidates) {
    actions.push(
      {
        kind: 'check-run',
        key: k(`check/${c.pr}`),
        pr: c.pr,
        headSha: c.headSha,
        name: 'Arbiter / selection',
        status: 'completed',
        conclusion: 'neutral',
        title: inMode(config, { live: 'Change cancelled', shadow: 'Shadow: would cancel' }),
        summary: text,
      },
      {
        kind: 'comment',
        key: k(`note/${c.pr}`),
        issue: c.pr,
        marker: markerKey('cancel', c.pr),
        body: `${markerFor(markerKey('cancel', c.pr))}\n${text} The change #${change} ${inMode(config, { live: 'will not ship', shadow: 'would not ship' })}.`,
      },
      ...(c.awaiting
        ? [{ kind: 'unlabel' as const, key: k(`unlabel/${c.pr}`), issue: c.pr, label: LABEL_AWAITING }]
        : []),
      { kind: 'close', key: k(`close/${c.pr}`), pr: c.pr },
      { kind: 'set-state', key: k(`state/${c.pr}`), pr: c.pr, state: 'withdrawn', reason: text },
    );
  }
  actions.push({ kind: 'set-change-state', key: k('change-state'), change, state: 'cancelled' });
  const list = candidates.map((c) => `#${c.pr}`).join(', ');
  const reply = inMode(config, {
    live:
      candidates.length > 0
        ? `Cancelled #${change}: closed ${list}.`
        : `Cancelled #${change}; it had no open candidates.`,
    shadow: `Shadow mode: Arbiter would cancel #${change}${candidates.length > 0 ? ` and close ${list}` : ''}; no pull request was changed.`,
  });
  return { actions: plannedActions(actions, { planner: 'cancel', inputs: CancelInputs.parse(input) }), reply };
}

/** A reply to a person's verb. */
export type PersonReply = { ok: true; message: string } | ({ ok: false } & Refusal);

export interface AdmissionInput {
  pr: number;
  by: string;
  prefix: string;
  /** `selection.label`, which a non-draft pull request may carry to be recorded. */
  label: string | null;
  isPullRequest: boolean;
  /** The Change the pull request is already an open candidate for (null: none, or not read). */
  candidateFor: number | null;
  /** The pull request as GitHub shows it now (null: not found, or not read). */
  pull: { open: boolean; body: string | null; headSha: string; links?: LinkSources } | null;
}

export type AdmissionPlan =
  /** Nothing is admitted: the reply says why. */
  | { kind: 'answer'; reply: PersonReply }
  /** The head is admitted, but it links no Change: the reply asks for the link. */
  | { kind: 'unlinked'; headSha: string; reply: PersonReply }
  /** The head is admitted for `change`; the reply depends on whether the Change is tracked and the candidate recorded. */
  | {
      kind: 'admit';
      headSha: string;
      change: number;
      replies: { notAChange: PersonReply; notRecorded: PersonReply; admitted: PersonReply };
    };

/**
 * A maintainer's `admit`: vouches for this head of a pull request whose author has no write access,
 * for the Change it links (a new head or a new link needs a new admission). Pure: the shell reads
 * the candidate row and the pull request, records the admission, and records the candidate.
 */
export function planAdmission(input: AdmissionInput): AdmissionPlan {
  const { pr, prefix } = input;
  const refuse = (code: string, message: string): AdmissionPlan => ({
    kind: 'answer',
    reply: { ok: false, code, message },
  });
  if (!input.isPullRequest)
    return refuse(
      'not_a_pull_request',
      `#${pr} is an issue; \`${prefix} admit\` applies to a pull request (\`${prefix} track\` adopts an issue).`,
    );
  if (input.candidateFor !== null)
    return {
      kind: 'answer',
      reply: { ok: true, message: `#${pr} is already a candidate for #${input.candidateFor}.` },
    };
  if (!input.pull || !input.pull.open) return refuse('not_open', `#${pr} is not open, so it cannot be admitted.`);
  const { headSha } = input.pull;
  const change = linkedChange(input.pull.body, input.pull.links);
  if (change === null)
    return {
      kind: 'unlinked',
      headSha,
      reply: {
        ok: false,
        code: 'not_linked',
        message: `#${pr} links no Change, so there is nothing to admit it for: add a \`Candidate-for: #N\` line to its description (or run \`${prefix} link #N\`), then run \`${prefix} admit\` again.`,
      },
    };
  const label = input.label;
  return {
    kind: 'admit',
    headSha,
    change,
    replies: {
      notAChange: {
        ok: false,
        code: 'not_a_change',
        message: `#${pr} is admitted, but #${change} is not a Change Arbiter tracks; \`${prefix} track\` on #${change} adopts it.`,
      },
      notRecorded: {
        ok: false,
        code: 'not_recorded',
        message: `#${pr} is admitted but is not recorded yet: a candidate must be a draft when it is first recorded${label ? ` (or carry \`${label}\`)` : ''}.`,
      },
      admitted: {
        ok: true,
        message: `Admitted on @${input.by}'s word: #${pr} is a candidate for #${change}, compared with its siblings like any other.`,
      },
    },
  };
}
