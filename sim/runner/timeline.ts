// Turns a scenario into an ordered list of time steps, each a list of acts (pure data).
// The runner executes the acts of one step, then waits until everything is quiet.
import type { CheckSpec, Scenario } from '../scenario-schema.ts';

/** Which head a scripted check belongs to: the candidate's first head, or the head a push event made. */
export type HeadKey = `open:${number}` | `push:${number}` | `agent:${number}` | `refine:${number}` | `sha:${string}`;

export type Act =
  | { kind: 'branch'; candidate: number }
  | { kind: 'open'; candidate: number }
  | { kind: 'start'; candidate: number; head: HeadKey; check: CheckSpec }
  | { kind: 'check'; candidate: number; head: HeadKey; check: CheckSpec }
  | { kind: 'event'; index: number }
  | { kind: 'restart' }
  | { kind: 'tick' }
  /** A scripted agent opens its draft PR for a slot (sim/runner/agents.ts). */
  | { kind: 'agent-open'; agent: number; slot: string; approach: string }
  /** A scripted agent pushes its refinement to its PR. */
  | { kind: 'agent-push'; agent: number }
  /** The check's app starts a new run of a check Arbiter asked to run again, or re-opens the same run (`inPlace`). */
  | { kind: 'rerun'; candidate: number; sha: string; name: string; app: string; inPlace: boolean };

export interface Step {
  at: number;
  acts: Act[];
}

// Within one time, acts run in this order: branches are cut, PRs open (agents' too, and re-runs
// are requested), late CI registers, CI reports, people act, and a scheduled restart comes last so
// it interrupts whatever those acts started.
const ORDER: Record<Act['kind'], number> = {
  tick: 0,
  branch: 1,
  open: 2,
  'agent-open': 2,
  'agent-push': 2,
  rerun: 2,
  start: 3,
  check: 4,
  event: 5,
  restart: 6,
};

/** The steps of a scenario, by ascending time; time 0 is always present. */
export function buildTimeline(s: Scenario): Step[] {
  const entries: { at: number; act: Act; seq: number }[] = [];
  const add = (at: number, act: Act) => entries.push({ at, act, seq: entries.length });
  add(0, { kind: 'tick' });
  for (const c of s.candidates) {
    add(c.baseAt, { kind: 'branch', candidate: c.number });
    add(c.openAt, { kind: 'open', candidate: c.number });
    for (const check of c.checks) {
      if (check.startAt !== undefined)
        add(check.startAt, { kind: 'start', candidate: c.number, head: `open:${c.number}`, check });
      if (!check.never && check.at !== undefined)
        add(check.at, { kind: 'check', candidate: c.number, head: `open:${c.number}`, check });
    }
  }
  s.events.forEach((e, index) => {
    add(e.at, { kind: 'event', index });
    for (const check of e.push?.checks ?? []) {
      if (check.startAt !== undefined)
        add(check.startAt, { kind: 'start', candidate: e.push!.on, head: `push:${index}`, check });
      if (!check.never && check.at !== undefined)
        add(check.at, { kind: 'check', candidate: e.push!.on, head: `push:${index}`, check });
    }
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
 * The timeline as it unfolds: the scenario's steps plus acts scheduled while it runs (agents that
 * answer dispatches, re-runs), taken in time order. An act added for a time already reached runs next.
 */
export class Agenda {
  private readonly entries: { at: number; act: Act; seq: number }[] = [];
  private seq = 0;

  constructor(steps: Step[]) {
    for (const step of steps) {
      if (step.acts.length === 0) this.entries.push({ at: step.at, act: { kind: 'tick' }, seq: this.seq++ });
      for (const act of step.acts) this.entries.push({ at: step.at, act, seq: this.seq++ });
    }
  }

  /** The time of the earliest act still to come, or null. */
  nextAt(): number | null {
    return this.entries.length === 0 ? null : Math.min(...this.entries.map((e) => e.at));
  }

  /** Acts still to come. */
  get size(): number {
    return this.entries.length;
  }

  add(at: number, act: Act): void {
    this.entries.push({ at, act, seq: this.seq++ });
  }

  /** The acts of the earliest time still to come (not before `now`), or null when none is left. */
  next(now: number): Step | null {
    if (this.entries.length === 0) return null;
    this.entries.sort((a, b) => a.at - b.at || ORDER[a.act.kind] - ORDER[b.act.kind] || a.seq - b.seq);
    const at = Math.max(now, this.entries[0].at);
    const taken = this.entries.filter((e) => Math.max(now, e.at) === at);
    this.entries.splice(0, taken.length);
    return { at, acts: taken.map((e) => e.act).filter((a) => a.kind !== 'tick') };
  }
}
