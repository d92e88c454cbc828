// A person's rejection (`/arbiter reject <reason>`, or a changes-requested review) as a plan:
// the candidate leaves the running at once, whatever its round's state. Pure: the shell passes in
// whether the candidate was gated and whether the Change's one repair was granted to it.
import { markerFor } from '../render/markers.ts';
import type { Action } from '../actions.ts';
import { LABEL_AWAITING } from '../labels.ts';
import type { Receipt } from '../receipt.ts';

/** What became of the Change's one repair for this rejection. */
export type RepairChance = 'granted' | 'not-gated' | 'used' | 'spent' | 'source-rejected' | 'disabled';

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
  shadow: boolean;
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
  'not-gated': (pr) =>
    `#${pr} was not before a person (only the rejection of a candidate at the human gate starts the Change's repair)`,
  used: () => "the Change's one repair is already used",
  spent: (pr) => `the Change's one repair was already spent on #${pr} (a round asked for it), so no new repair starts`,
  'source-rejected': () => 'a combined candidate built from a rejected candidate gets no repair',
  disabled: () => 'repair is turned off in `.github/arbiter.yml` (`repair.enabled`)',
};

export function planRejection(input: RejectionInput): RejectionPlan {
  const { repo, change, pr, headSha, user, shadow } = input;
  const k = (suffix: string): string => `${repo}#${change}/reject/${pr}@${headSha}/${suffix}`;
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
    const note = shadow
      ? `Shadow mode: @${user} rejected #${pr} (${reason.slice(0, 300)}). Arbiter would ask for the Change's one repair of #${pr}; nothing was dispatched.`
      : `@${user} rejected #${pr} (${reason.slice(0, 300)}). Arbiter requested one repair; if nothing arrives within ${minutes} minutes, the change goes to a person.`;
    const summary = shadow
      ? `${text}\n\nShadow mode: Arbiter would take #${pr} out of the running and ask for one repair; it stays as it is.`
      : `${text}\n\n#${pr} is out of the running. It stays open for the repair's commits, which bring it back in the next round.`;
    actions.push(
      {
        kind: 'check-run',
        key: k('check'),
        pr,
        headSha,
        name: 'Arbiter / selection',
        status: 'completed',
        conclusion: 'neutral',
        title: shadow ? 'Shadow: would reject and ask for a repair' : 'Rejected: repair requested',
        summary,
      },
      state,
      { kind: 'receipt', key: k('receipt'), receipt },
      {
        kind: 'dispatch',
        key: `${repo}#${change}/repair-by-rejection`,
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
        marker: `repair:${change}`,
        body: `${markerFor(`repair:${change}`)}\n${note}`,
      },
    );
    const reply = shadow
      ? `Shadow mode: Arbiter would reject #${pr} and ask for the Change's one repair (${reason.slice(0, 200)}); no pull request was changed and nothing was dispatched.`
      : `Rejected #${pr}: it is out of the running and stays open for one repair, which was requested (${reason.slice(0, 200)}).`;
    return { actions, reply, keptForRepair: true };
  }
  const why = WHY_NO_REPAIR[input.repair](pr);
  const summary = shadow
    ? `${text}\n\nShadow mode: Arbiter would close this candidate; no repair would start: ${why}.`
    : `${text}\n\nNo repair was started: ${why}.`;
  const note = shadow
    ? `Shadow mode: Arbiter would close this candidate. ${text}. No repair would start: ${why}.`
    : `${text}. This candidate is out of the running and closed; no repair was started: ${why}.`;
  actions.push(
    {
      kind: 'check-run',
      key: k('check'),
      pr,
      headSha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      title: shadow ? 'Shadow: would reject' : 'Rejected',
      summary,
    },
    {
      kind: 'comment',
      key: k('note'),
      issue: pr,
      marker: `rejected:${pr}`,
      body: `${markerFor(`rejected:${pr}`)}\n${note}`,
    },
    {
      kind: 'receipt',
      key: k('receipt'),
      receipt: {
        kind: 'HUMAN_GATE',
        repo,
        change,
        round: input.round,
        at: input.now,
        data: { candidates: [pr], decision: 'rejected by a person', by: user, reason, repair: input.repair },
      },
    },
    { kind: 'close', key: k('close'), pr },
    state,
  );
  const reply = shadow
    ? `Shadow mode: Arbiter would reject #${pr} and close it; no pull request was changed. No repair would start: ${why}.`
    : `Rejected #${pr} and closed it (${reason.slice(0, 200)}). No repair was started: ${why}.`;
  return { actions, reply, keptForRepair: false };
}
