// Benchmark 1, GitHub requests per selection: groups of 2, 5, 20 and 100 siblings through the
// real app (runScenario), reads and writes counted by the emulator per phase: the siblings
// opening, all but one sibling verifying, and the last sibling settling plus the selection step.
import { runScenario } from '../sim/runner/index.ts';
import { GitHubEmulator } from '../sim/github/index.ts';
import { groupScenario } from './group-scenario.ts';
import { ReadLogProxy } from './read-log-proxy.ts';
import { judgeTranscript } from './transcript-checks.ts';

const SETTLE_AT = 2;
const LAST_AT = 3;

export interface Counts {
  reads: number;
  writes: number;
}

export interface GroupRequests {
  size: number;
  seconds: number;
  /** t=0: the Change and every sibling open, CI starts. */
  open: Counts;
  /** t=2: every sibling but the last gets its CI results (gate, acceptance, waiting). */
  verify: Counts;
  /** t=3: the last sibling's CI results, its gate and acceptance, then the selection step and its outcome. */
  last: Counts;
  /** `last` minus one sibling's share of `verify`: the selection step and its outcome alone (estimate). */
  selection: Counts;
  total: Counts;
  correct: boolean;
  problems: string[];
  duplicateWrites: number;
  /** Requests of the t=3 window by route shape (through a logging proxy; JWT and token requests included). */
  lastByRoute: Record<string, number>;
  /** The same for the t=2 window (every sibling but the last verifying). */
  verifyByRoute: Record<string, number>;
  error?: string;
}

const diff = (a: Counts, b: Counts): Counts => ({ reads: b.reads - a.reads, writes: b.writes - a.writes });

/** Runs one group; the emulator is observed mid-run through a wrapped `GitHubEmulator.start`. */
export async function runGroup(size: number, opts: { timeoutMs: number }): Promise<GroupRequests> {
  const { scenario, plan } = groupScenario(size, { settleAt: SETTLE_AT, lastAt: LAST_AT });
  let emulator: GitHubEmulator | null = null;
  const proxy = new ReadLogProxy();
  await proxy.start();
  const start = GitHubEmulator.start;
  GitHubEmulator.start = async (o) => {
    emulator = await start.call(GitHubEmulator, o);
    proxy.target = emulator.url;
    return emulator;
  };
  const byRoute: Record<string, Record<string, number>> = {};
  const zero: Counts = { reads: 0, writes: 0 };
  const marks: Record<string, Counts> = {};
  const snapshot = (): Counts => (emulator ? emulator.counters() : zero);
  const log = (line: string) => {
    for (const at of [SETTLE_AT, LAST_AT])
      if (!marks[at] && line.startsWith(`t=${at} `) && line.includes('CI:')) {
        marks[at] = snapshot();
        byRoute[at] = proxy.take();
      }
  };
  let end: Counts = zero;
  const t0 = Date.now();
  try {
    const t = await runScenario(scenario, {
      log,
      quietTimeoutMs: opts.timeoutMs,
      appEnv: { GHE_HOST: `127.0.0.1:${proxy.port}` },
      inspect: (e) => {
        end = e.counters();
        byRoute.end = proxy.take();
      },
    });
    const seconds = (Date.now() - t0) / 1000;
    const a = marks[SETTLE_AT] ?? zero;
    const b = marks[LAST_AT] ?? zero;
    const verify = diff(a, b);
    const last = diff(b, end);
    const share = (n: number) => n / Math.max(1, size - 1);
    const verdict = judgeTranscript(t, plan.winner, plan.candidates);
    return {
      size,
      seconds,
      open: a,
      verify,
      last,
      selection: {
        reads: Math.max(0, Math.round(last.reads - share(verify.reads))),
        writes: Math.max(0, Math.round(last.writes - share(verify.writes))),
      },
      total: end,
      ...verdict,
      lastByRoute: byRoute.end ?? {},
      verifyByRoute: byRoute[LAST_AT] ?? {},
    };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return {
      size,
      seconds: (Date.now() - t0) / 1000,
      open: zero,
      verify: zero,
      last: zero,
      selection: zero,
      total: snapshot(),
      correct: false,
      problems: [msg.split('\n')[0]],
      duplicateWrites: 0,
      lastByRoute: {},
      verifyByRoute: {},
      error: msg,
    };
  } finally {
    GitHubEmulator.start = start;
    await proxy.stop();
  }
}

/**
 * Runs the groups in order within a budget: each wait for quiet may take the rest of it, and a
 * group that would start after it is spent is reported as not measured.
 */
export async function benchRequests(
  sizes: number[],
  opts: { budgetMs: number },
  say: (line: string) => void,
): Promise<GroupRequests[]> {
  const out: GroupRequests[] = [];
  const deadline = Date.now() + opts.budgetMs;
  for (const size of sizes) {
    const left = deadline - Date.now();
    if (left < 10_000) {
      const zero = { reads: 0, writes: 0 };
      out.push({
        size,
        seconds: 0,
        open: zero,
        verify: zero,
        last: zero,
        selection: zero,
        total: zero,
        correct: false,
        problems: ['not measured: the section budget was spent'],
        duplicateWrites: 0,
        lastByRoute: {},
        verifyByRoute: {},
        error: 'not measured: budget spent',
      });
      say(`requests: ${size} siblings not measured (budget spent)`);
      continue;
    }
    say(`requests: a group of ${size} siblings through the app`);
    const r = await runGroup(size, { timeoutMs: left });
    say(
      `requests: ${size} siblings: ${r.seconds.toFixed(0)} s, selection ${r.selection.reads} reads / ${r.selection.writes} writes${r.correct ? '' : `, WRONG: ${r.problems.join('; ')}`}`,
    );
    out.push(r);
  }
  return out;
}
