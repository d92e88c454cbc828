// Runs Arbiter as its own child process (sim/runner/app-entry.ts, compiled to plain JavaScript
// over the built `dist/main.js` when it is up to date, else the sources under tsx), waits for its health endpoint, talks to its sim-control
// endpoints, and kills it (SIGKILL) for restart faults.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { distIsFresh } from '../../scripts/dist.mjs';
import { compiledEntry } from './compiled-entry.ts';
import { ScenarioRunError } from './errors.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const TAIL_LINES = 40;

const Receipts = z.object({ receipts: z.array(z.object({ id: z.number().int(), recorded: z.unknown() })) });
const Idle = z.object({
  idle: z.boolean(),
  queued: z.number().optional(),
  active: z.number().optional(),
  inflight: z.number().optional(),
  /** Scenario time (ms) at which the earliest deferred job is due, or null. */
  deferredUntil: z.number().nullable().optional(),
});
export type IdleReport = z.infer<typeof Idle>;

/** A free TCP port on 127.0.0.1 (the app binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// App processes must not outlive the runner (a timed-out test, Ctrl-C): kill them when it goes.
const live = new Set<ChildProcess>();
let hooked = false;
function killLiveApps(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}
function hookRunnerExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', killLiveApps);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      killLiveApps();
      // Nobody else handles it: behave as if we had not listened (the default is to die).
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

export interface AppProcessOptions {
  env: Record<string, string>;
  port: number;
  /** Arguments after `node` (default: `defaultAppArgs()`). */
  args?: string[];
  startTimeoutMs?: number;
}

/**
 * How the app is started by default: on a fresh build, the runner's entry compiled to plain
 * JavaScript over dist/ (sim/runner/compiled-entry.ts), so no TypeScript loader runs in the app;
 * else (or with `ARBITER_SIM_APP=source`) the entry's sources under tsx, which load src/.
 */
export async function defaultAppArgs(): Promise<string[]> {
  if (appBuild() === 'dist') return [await compiledEntry()];
  return ['--import', 'tsx', 'sim/runner/app-entry.ts'];
}

/** Which build the default entry runs: `dist` or `source`. */
export function appBuild(): 'dist' | 'source' {
  return process.env['ARBITER_SIM_APP'] !== 'source' && distIsFresh() ? 'dist' : 'source';
}

/**
 * What the scenario runner drives: one Arbiter process (`AppProcess`) or several behind a
 * proxy (`ReplicaSet`, sim/runner/replicas.ts). `killNow` kills one process, `start` after it
 * brings that one back on the port `usePort` gave.
 */
export interface AppHost {
  readonly crashed: string | null;
  readonly baseUrl: string;
  /** Where GitHub sends webhooks. */
  readonly webhookUrl: string;
  /** A kill stops every delivery until the restart (true for one process; replicas keep serving). */
  readonly killStopsDeliveries: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
  killNow(): void;
  waitExited(): Promise<void>;
  usePort(port: number): void;
  /** Moves the app's clock and ticks it; `sweep: false` leaves the minute sweep out of this tick. */
  setClock(nowMs: number, opts?: { sweep?: boolean }): Promise<void>;
  idle(): Promise<IdleReport>;
  receipts(): Promise<{ id: number; recorded: unknown }[]>;
  stderrTail(): string;
}

/** One Arbiter process at a time; `restart` replaces it with a fresh one on the same env. */
export class AppProcess implements AppHost {
  readonly killStopsDeliveries = true;
  private child: ChildProcess | null = null;
  private tail: string[] = [];
  private expectingExit = false;
  /** Set when the process died without being asked to. */
  crashed: string | null = null;
  baseUrl: string;

  constructor(private readonly opts: AppProcessOptions) {
    this.baseUrl = `http://127.0.0.1:${opts.port}`;
  }

  /** The port the next start listens on (a restart takes a fresh one, so no other process can hold it). */
  usePort(port: number): void {
    this.opts.port = port;
    this.baseUrl = `http://127.0.0.1:${port}`;
  }

  get webhookUrl(): string {
    return `${this.baseUrl}/api/github/webhooks`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  stderrTail(): string {
    return this.tail.join('\n');
  }

  /**
   * Starts the app and waits until it answers. The port came from `freePort`, which lets it go
   * before the app binds it: another test worker's app may take it in between (seen once in a CI
   * run: the runner then drove the other worker's app). Then this app cannot listen, or another
   * process answers for it; it is started again on a fresh port (the caller re-reads `webhookUrl`).
   */
  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.spawnOnce();
        if (await this.answersItself()) return;
      } catch (e) {
        if (!this.tail.some((line) => line.includes('EADDRINUSE')) || attempt === 3) throw e;
      }
      if (attempt === 3)
        throw new ScenarioRunError(`another process answers on port ${this.opts.port}, three ports running`);
      this.killNow();
      await this.waitExited();
      this.tail = [];
      this.usePort(await freePort());
    }
  }

  /** Whether the process answering on the port is the one started (true when the app cannot say). */
  private async answersItself(): Promise<boolean> {
    const res = await fetch(`${this.baseUrl}/arbiter/sim/pid`).catch(() => null);
    if (!res || res.status !== 200) return true;
    const answer = z.object({ pid: z.number() }).safeParse(await res.json().catch(() => null));
    return !answer.success || answer.data.pid === this.child?.pid;
  }

  private async spawnOnce(): Promise<void> {
    this.expectingExit = false;
    this.crashed = null;
    const args = this.opts.args ?? (await defaultAppArgs());
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.opts.env, PORT: String(this.opts.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    hookRunnerExit();
    live.add(child);
    const keep = (chunk: Buffer) => {
      // ARBITER_SIM_ECHO=1 shows the app's own log lines while a scenario runs (for debugging).
      if (process.env['ARBITER_SIM_ECHO'] === '1') process.stderr.write(chunk);
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.tail.push(line);
      if (this.tail.length > TAIL_LINES) this.tail.splice(0, this.tail.length - TAIL_LINES);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', (code, signal) => {
      live.delete(child);
      if (this.child === child) this.child = null;
      if (!this.expectingExit) this.crashed = `Arbiter exited unexpectedly (code ${code}, signal ${signal})`;
    });
    await this.waitHealthy(this.opts.startTimeoutMs ?? 120_000);
  }

  private async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.crashed) throw new ScenarioRunError(`${this.crashed} while starting`, this.stderrTail());
      try {
        const res = await fetch(`${this.baseUrl}/arbiter/health`);
        const body: unknown = await res.json().catch(() => null);
        const ok = z.object({ ok: z.literal(true) }).safeParse(body);
        if (res.status === 200 && ok.success) return;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    throw new ScenarioRunError(`Arbiter did not become healthy within ${timeoutMs / 1000} s`, this.stderrTail());
  }

  /** SIGKILL, synchronously: the process never runs another line (used inside emulator.onWrite). */
  killNow(): void {
    this.expectingExit = true;
    this.child?.kill('SIGKILL');
  }

  async waitExited(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.child = null;
      return;
    }
    await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  }

  /** Asks the process to stop (SIGTERM), then kills it if it takes longer than a few seconds. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.expectingExit = true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  /** A fetch to the app; a failure because the app died says so, with its output. */
  private async call(path: string, init?: RequestInit): Promise<Response> {
    try {
      return await fetch(`${this.baseUrl}${path}`, init);
    } catch (e) {
      // the exit event can trail the broken connection by a moment
      for (let i = 0; i < 50 && !this.crashed && this.child; i++) await sleep(20);
      if (this.crashed) throw new ScenarioRunError(this.crashed, this.stderrTail());
      // Alive: a keep-alive connection the app closed just as it was reused (seen under load).
      // The calls are idempotent (read idle, set the clock to a time), so once more on a fresh one.
      if (this.child) {
        const again = await fetch(`${this.baseUrl}${path}`, init).catch(() => null);
        if (again) return again;
      }
      throw new ScenarioRunError(`could not reach Arbiter at ${path}: ${describeFetchError(e)}`, this.stderrTail());
    }
  }

  async setClock(nowMs: number, opts: { sweep?: boolean } = {}): Promise<void> {
    const res = await this.post('/arbiter/sim/clock', { now: nowMs, ...opts });
    if (res.status !== 200)
      throw new ScenarioRunError(
        `POST /arbiter/sim/clock answered ${res.status}: ${res.text.slice(0, 300)}`,
        this.stderrTail(),
      );
    // The app's clock never goes backwards: one that started ahead of the scenario would
    // silently run every timeout on the wrong time, so say so.
    const answer = z.object({ now: z.number() }).safeParse(JSON.parse(res.text || 'null'));
    if (answer.success && answer.data.now !== nowMs)
      throw new ScenarioRunError(
        `the app's clock is at ${new Date(answer.data.now).toISOString()} after being set to ${new Date(nowMs).toISOString()}: its sim clock must start at or before the scenario epoch`,
        this.stderrTail(),
      );
  }

  async idle(): Promise<IdleReport> {
    const res = await this.call('/arbiter/sim/idle');
    const parsed = Idle.safeParse(await res.json().catch(() => null));
    if (res.status !== 200 || !parsed.success)
      throw new ScenarioRunError(`GET /arbiter/sim/idle answered ${res.status} without { idle }`, this.stderrTail());
    return parsed.data;
  }

  /** Every receipt the app's store recorded, as recorded (GET /arbiter/sim/receipts). */
  async receipts(): Promise<{ id: number; recorded: unknown }[]> {
    const res = await this.call('/arbiter/sim/receipts');
    const parsed = Receipts.safeParse(await res.json().catch(() => null));
    if (res.status !== 200 || !parsed.success)
      throw new ScenarioRunError(
        `GET /arbiter/sim/receipts answered ${res.status} without { receipts }`,
        this.stderrTail(),
      );
    return parsed.data.receipts;
  }

  private async post(path: string, body: unknown): Promise<{ status: number; text: string }> {
    const res = await this.call(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  }
}

/** A failed fetch's message with its cause (undici says only "fetch failed"; the cause says why). */
function describeFetchError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause: unknown = e.cause;
  if (cause instanceof Error) {
    const code = 'code' in cause && typeof cause.code === 'string' ? ` ${cause.code}` : '';
    return `${e.message} (${cause.message}${code})`;
  }
  return e.message;
}
