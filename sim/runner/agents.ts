// Scripted agents and scripted re-runs: after each step the runner asks what Arbiter dispatched
// (`arbiter.candidate.requested`, `arbiter.candidate.refine`) and which check runs it asked to run
// again, and turns each into acts later on the clock: a draft PR that opens, a push, a new run of a
// scoring check with its next reading.
import { z } from 'zod';
import type { GitHubEmulator } from '../github/index.ts';
import type { AgentSpec, CheckSpec, Scenario } from '../scenario-schema.ts';
import type { Act, HeadKey } from './timeline.ts';

export interface Scheduled {
  at: number;
  act: Act;
}

const Requested = z.object({ slot: z.string(), approach: z.string() });
const Refine = z.object({ pr: z.number().int() });

/** The text a scripted scoring check reports on its `run`-th run (0-based): its reading, the last repeating. */
export function outputOf(check: CheckSpec, run: number): CheckSpec['output'] {
  if (!check.readings) return check.output;
  return { title: `score: ${check.readings[Math.min(run, check.readings.length - 1)]}` };
}

export class AgentScripts {
  private seenDispatches = 0;
  private seenRerequests = 0;
  /** The scripted check of each head and name, so a re-run knows what it reports. */
  private readonly specs = new Map<string, { pr: number; check: CheckSpec; runs: number }>();

  constructor(
    private readonly scenario: Scenario,
    private readonly emulator: GitHubEmulator,
  ) {}

  agent(pr: number): AgentSpec | undefined {
    return this.scenario.agents.find((a) => a.number === pr);
  }

  /** Remembers the scripted checks of a head as it starts them. */
  noteChecks(sha: string, pr: number, checks: CheckSpec[]): void {
    for (const check of checks)
      if (check.kind === 'check') this.specs.set(`${sha}\0${check.name}`, { pr, check, runs: 1 });
  }

  /** Acts for everything Arbiter asked since the last call, `now` being the current scenario time. */
  poll(now: number): Scheduled[] {
    const out: Scheduled[] = [];
    const dispatches = this.emulator.state(this.scenario.repo).dispatches;
    for (const d of dispatches.slice(this.seenDispatches)) {
      if (d.event_type === 'arbiter.candidate.requested') out.push(...this.answerRequest(now, d.client_payload));
      if (d.event_type === 'arbiter.candidate.refine') out.push(...this.answerRefine(now, d.client_payload));
    }
    this.seenDispatches = dispatches.length;
    const rerequests = this.emulator.rerequests(this.scenario.repo);
    for (const r of rerequests.slice(this.seenRerequests)) {
      const spec = this.specs.get(`${r.headSha}\0${r.name}`);
      if (!spec) continue;
      const check: CheckSpec = { ...spec.check, readings: undefined, output: outputOf(spec.check, spec.runs) };
      spec.runs++;
      const mode = spec.check.rerun ?? 'new-run';
      const app = spec.check.app ?? 'ci';
      // A job re-run (GitHub Actions) is already queued by GitHub; a rerequest is the app's to answer.
      if (r.via === 'rerequest')
        out.push({
          at: now,
          act: { kind: 'rerun', candidate: spec.pr, sha: r.headSha, name: r.name, app, inPlace: mode === 'in-place' },
        });
      if (mode === 'never') continue;
      out.push({
        at: now + spec.check.rerunAfter,
        act: { kind: 'check', candidate: spec.pr, head: `sha:${r.headSha}`, check },
      });
    }
    this.seenRerequests = rerequests.length;
    return out;
  }

  private answerRequest(now: number, payload: unknown): Scheduled[] {
    const p = Requested.safeParse(payload);
    if (!p.success) return [];
    const agent = this.scenario.agents.find((a) => a.approach === p.data.approach);
    if (!agent || agent.never) return [];
    const at = now + agent.delay;
    const head: HeadKey = `agent:${agent.number}`;
    return [
      {
        at,
        act: { kind: 'agent-open', agent: agent.number, slot: agent.slot ?? p.data.slot, approach: p.data.approach },
      },
      ...agent.checks.flatMap((check) =>
        check.never || check.at === undefined
          ? []
          : [{ at: at + check.at, act: { kind: 'check' as const, candidate: agent.number, head, check } }],
      ),
    ];
  }

  private answerRefine(now: number, payload: unknown): Scheduled[] {
    const p = Refine.safeParse(payload);
    if (!p.success) return [];
    const refine = this.agent(p.data.pr)?.refine;
    if (!refine || refine.never) return [];
    const at = now + refine.delay;
    const head: HeadKey = `refine:${p.data.pr}`;
    return [
      { at, act: { kind: 'agent-push', agent: p.data.pr } },
      ...refine.checks.flatMap((check) =>
        check.never || check.at === undefined
          ? []
          : [{ at: at + check.at, act: { kind: 'check' as const, candidate: p.data.pr, head, check } }],
      ),
    ];
  }
}
