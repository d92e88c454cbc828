// Portfolio search's steps around the wide round (DESIGN.md section 7), as plans: an explore's
// dispatches, a candidate that fills its slot or brings its refine, and the sweep's expiries. Pure:
// the shell reads the explore, its slots and refines. The store's conditional records (a slot still
// composing, a refine still awaited, an explore still wide) answer through the executor, and a gated
// plan names what follows each answer.
import { markerFor } from '../render/markers.ts';
import type { Action, GatedPlan } from '../actions.ts';
import { slotForAgent, type ApproachEntry } from '../portfolio.ts';
import { changeActionKey, markerKey, portfolioActionKey } from '../keys.ts';

/** What `/arbiter explore` started: the explore, its slots, who asked. */
export interface ExploreDispatchView {
  repo: string;
  change: number;
  portfolio: { number: number; base: string; baseSha: string; wideRound: number };
  slots: { slot: string; approach: string; agent: string | null }[];
  by: string;
}

/** One `arbiter.candidate.requested` dispatch per slot, then the explore logged once. */
export function planExploreDispatch(view: ExploreDispatchView, now: string): Action[] {
  const { repo, change, portfolio: p } = view;
  const k = (...path: (string | number)[]): string => portfolioActionKey(repo, change, p.number, ...path);
  const dispatches: Action[] = view.slots.map((s) => ({
    kind: 'dispatch',
    key: k('request', s.slot),
    eventType: 'arbiter.candidate.requested',
    payload: {
      change,
      slot: s.slot,
      approach: s.approach,
      phase: 'wide',
      base: p.base,
      base_sha: p.baseSha,
      round: p.wideRound,
      // The agent that takes the slot, when `portfolio.approaches` names one (an assignment workflow reads it).
      ...(s.agent !== null ? { agent: s.agent } : {}),
    },
  }));
  const data = { change, portfolio: p.number, slots: view.slots.map((s) => s.slot), by: view.by };
  return [...dispatches, { kind: 'event', key: k('explore', 'event'), event: 'portfolio.explore', data, at: now }];
}

export interface SlotRead {
  slot: string;
  /** The explore it belongs to. */
  portfolio: number;
  approach: string;
  state: 'composing' | 'open' | 'dropped';
  pr: number | null;
}

/** A candidate recorded or with a new head, and what the store holds of the Change's explores. */
export interface PortfolioCandidateView {
  repo: string;
  candidate: { pr: number; change: number; headSha: string; author: string };
  /** The slot its body names (`Arbiter-slot:`), or null. */
  named: string | null;
  /** The slot of that name (in any explore of the Change), null when none has it. */
  namedSlot: SlotRead | null;
  /** The Change's latest explore: its phase, its slots, and this PR's refine in it (null: none awaited of it). */
  explore: {
    number: number;
    phase: 'wide' | 'deep' | 'done';
    slots: SlotRead[];
    deep: { headSha: string; state: 'awaiting' | 'arrived' | 'expired' } | null;
  } | null;
  approaches: readonly ApproachEntry[];
}

export interface PortfolioCandidatePlan {
  actions: Action[];
  /** The slot it fills, gated on the slot still composing (null: it fills none). */
  fill: GatedPlan | null;
}

/**
 * A new head on a deep candidate is its refinement; a PR naming a composing slot fills it, and one
 * without the line fills the composing slot whose approach names its author as the agent. A slot
 * that is not open to it leaves it an ordinary candidate, and the PR is told so once.
 */
export function planPortfolioCandidate(view: PortfolioCandidateView, now: string): PortfolioCandidatePlan {
  const { repo, candidate: c, explore: p } = view;
  const actions: Action[] = [];
  if (p?.phase === 'deep' && p.deep?.state === 'awaiting' && p.deep.headSha !== c.headSha) {
    const key = portfolioActionKey(repo, c.change, p.number, 'deep', c.pr, 'arrived');
    actions.push({ kind: 'settle-deep', key, change: c.change, portfolio: p.number, pr: c.pr, state: 'arrived' });
  }
  const fill = (slot: string, portfolio: number, by: Record<string, string>, otherwise: Action[]): GatedPlan => {
    const k = (...path: (string | number)[]): string =>
      portfolioActionKey(repo, c.change, portfolio, 'slot', slot, 'fill', c.pr, ...path);
    const data = { change: c.change, slot, pr: c.pr, ...by };
    return {
      actions: [...actions, { kind: 'settle-slot', key: k(), change: c.change, slot, to: { state: 'open', pr: c.pr } }],
      gate: k(),
      then: [{ kind: 'event', key: k('event'), event: 'portfolio.slot-filled', data, at: now }],
      otherwise,
    };
  };
  const named = view.named;
  if (named === null) {
    // An agent that cannot write the trailer (Copilot, assigned the issue) fills the slot its approach names it for.
    if (p?.phase !== 'wide' || p.slots.some((s) => s.pr === c.pr)) return { actions, fill: null };
    const slot = slotForAgent(p.slots, view.approaches, c.author);
    return slot === null ? { actions, fill: null } : { actions: [], fill: fill(slot, p.number, { by: 'agent' }, []) };
  }
  const slot = view.namedSlot;
  if (slot?.pr === c.pr) return { actions, fill: null };
  const why = slot
    ? `slot \`${named}\` is ${slot.state}${slot.pr !== null ? ` (filled by #${slot.pr})` : ''}`
    : `#${c.change} has no slot \`${named}\``;
  const marker = markerKey('unlinked-slot', c.pr);
  const unlinked: Action = {
    kind: 'comment',
    key: changeActionKey(repo, c.change, 'unlinked-slot', c.pr, named),
    issue: c.pr,
    marker,
    body: `${markerFor(marker)}\n\`Arbiter-slot: ${named}\` names no open slot (${why}), so #${c.pr} is an ordinary candidate for #${c.change}.`,
  };
  if (slot?.state === 'composing') return { actions: [], fill: fill(named, slot.portfolio, {}, [unlinked]) };
  return { actions: [...actions, unlinked], fill: null };
}

/** A slot still composing after `portfolio.composeTimeout`: dropped with the reason, and that logged. */
export interface SlotExpiredView {
  repo: string;
  change: number;
  portfolio: number;
  slot: string;
  /** `portfolio.composeTimeout`, in seconds. */
  timeout: number;
}

export function planSlotExpired(view: SlotExpiredView, now: string): GatedPlan {
  const { repo, change, slot } = view;
  const k = (...path: string[]): string =>
    portfolioActionKey(repo, change, view.portfolio, 'slot', slot, 'drop', ...path);
  const key = k();
  const reason = `no pull request within ${view.timeout} s (\`portfolio.composeTimeout\`)`;
  return {
    actions: [{ kind: 'settle-slot', key, change, slot, to: { state: 'dropped', reason } }],
    gate: key,
    then: [
      { kind: 'event', key: k('event'), event: 'portfolio.slot-dropped', data: { change, slot, reason }, at: now },
    ],
    otherwise: [],
  };
}

/** An explore whose slots all reported or were dropped, and the open candidates of its base. */
export interface ExploreEmptyView {
  repo: string;
  change: number;
  portfolio: number;
  slots: { slot: string; state: 'composing' | 'open' | 'dropped' }[];
  open: number;
}

/** No slot composes and no candidate came: the explore ends (from its wide round), said once on the Change. */
export function planExploreEmpty(view: ExploreEmptyView): GatedPlan | null {
  const { repo, change, portfolio } = view;
  if (view.open > 0 || view.slots.some((s) => s.state === 'composing')) return null;
  const key = portfolioActionKey(repo, change, portfolio, 'empty', 'phase');
  const marker = markerKey('portfolio-empty', change, portfolio);
  return {
    actions: [{ kind: 'portfolio-phase', key, change, portfolio, from: 'wide', to: 'done' }],
    gate: key,
    then: [
      {
        kind: 'comment',
        key: portfolioActionKey(repo, change, portfolio, 'empty'),
        issue: change,
        marker,
        body: `${markerFor(marker)}\nExplore ${portfolio} of #${change} ended: no agent opened a pull request within \`portfolio.composeTimeout\` (${view.slots.map((s) => `\`${s.slot}\``).join(', ')} dropped).`,
      },
    ],
    otherwise: [],
  };
}

/** A refine awaited past `portfolio.composeTimeout`, and the round it would open after. */
export interface RefineExpiredView {
  repo: string;
  change: number;
  portfolio: number;
  pr: number;
  /**
   * The group's current round, when it is still the explore's decided wide round: no refinement
   * arrived at all, so the normal selection opens now (null: a later round is open already).
   */
  wideDecided: { base: string; round: number } | null;
}

/** The refine expired: the candidate competes as it is; logged, and the next round opened when none came. */
export function planRefineExpired(view: RefineExpiredView, now: string): GatedPlan {
  const { repo, change, portfolio, pr } = view;
  const k = (...path: string[]): string => portfolioActionKey(repo, change, portfolio, 'deep', pr, 'expired', ...path);
  const key = k();
  const w = view.wideDecided;
  return {
    actions: [{ kind: 'settle-deep', key, change, portfolio, pr, state: 'expired' }],
    gate: key,
    then: [
      { kind: 'event', key: k('event'), event: 'portfolio.refine-expired', data: { change, pr }, at: now },
      ...(w ? [{ kind: 'open-round' as const, key: k('round'), change, base: w.base, from: w.round, at: now }] : []),
    ],
    otherwise: [],
  };
}
