// Turns a scenario into an ordered list of time steps, each a list of acts (pure data).
// The runner executes the acts of one step, then waits until everything is quiet.
import type { CheckSpec, Scenario } from '../scenario-schema.ts';

/** Which head a scripted check belongs to: the candidate's first head, or the head a push event made. */
export type HeadKey = `open:${number}` | `push:${number}`;

export type Act =
  | { kind: 'branch'; candidate: number }
  | { kind: 'open'; candidate: number }
  | { kind: 'check'; candidate: number; head: HeadKey; check: CheckSpec }
  | { kind: 'event'; index: number }
  | { kind: 'restart' }
  | { kind: 'tick' };

export interface Step {
  at: number;
  acts: Act[];
}

// Within one time, acts run in this order: branches are cut, PRs open, CI reports, people act,
// and a scheduled restart comes last so it interrupts whatever those acts started.
const ORDER: Record<Act['kind'], number> = { tick: 0, branch: 1, open: 2, check: 3, event: 4, restart: 5 };

/** The steps of a scenario, by ascending time; time 0 is always present. */
export function buildTimeline(s: Scenario): Step[] {
  const entries: { at: number; act: Act; seq: number }[] = [];
  const add = (at: number, act: Act) => entries.push({ at, act, seq: entries.length });
  add(0, { kind: 'tick' });
  for (const c of s.candidates) {
    add(c.baseAt, { kind: 'branch', candidate: c.number });
    add(c.openAt, { kind: 'open', candidate: c.number });
    for (const check of c.checks) if (!check.never && check.at !== undefined) add(check.at, { kind: 'check', candidate: c.number, head: `open:${c.number}`, check });
  }
  s.events.forEach((e, index) => {
    add(e.at, { kind: 'event', index });
    for (const check of e.push?.checks ?? [])
      if (!check.never && check.at !== undefined) add(check.at, { kind: 'check', candidate: e.push!.on, head: `push:${index}`, check });
  });
  for (const r of s.faults.restart) if ('at' in r) add(r.at, { kind: 'restart' });
  if (s.until !== undefined) add(s.until, { kind: 'tick' });

  entries.sort((a, b) => a.at - b.at || ORDER[a.act.kind] - ORDER[b.act.kind] || a.seq - b.seq);
  const steps: Step[] = [];
  for (const e of entries) {
    const last = steps[steps.length - 1];
    if (last && last.at === e.at) last.acts.push(e.act);
    else steps.push({ at: e.at, acts: [e.act] });
  }
  return steps.map((st) => ({ at: st.at, acts: st.acts.filter((a) => a.kind !== 'tick') }));
}


/**
 * Adds acts at a later time to a running timeline (the combined candidate's CI, known only once
 * Arbiter opens it). Steps stay in time order; acts at an existing time join that step.
 */
export function insertActs(steps: Step[], at: number, acts: Act[]): void {
  if (acts.length === 0) return;
  const same = steps.find((s) => s.at === at);
  if (same) {
    same.acts.push(...acts);
    return;
  }
  const later = steps.findIndex((s) => s.at > at);
  steps.splice(later === -1 ? steps.length : later, 0, { at, acts: [...acts] });
}
