// Idle memory of `npm start` on the embedded default (PGlite): starts it once to create the data
// folder, stops it, starts it again on the reopened folder, waits with no traffic, and sums the
// resident memory of every process of the tree (npm, the shell, node). The app's own /metrics
// splits what Node's heap holds from the rest (PGlite's WebAssembly memory, code, buffers).
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDist, distIsFresh } from '../scripts/dist.mjs';
import { freePort } from '../sim/runner/app-process.ts';
import { REPO_ROOT } from './child.ts';

export interface ProcessRss {
  pid: number;
  command: string;
  rssMb: number;
}

export interface MemoryResult {
  /** Sum over every process of `npm start`, reopened data folder, idle. */
  idleTotalMb: number;
  processes: ProcessRss[];
  /** The first start, which creates the data folder (initdb), for comparison. */
  firstStartTotalMb: number;
  /** From the app's /metrics on the idle, reopened start. */
  app: { rssMb: number; heapUsedMb: number; heapTotalMb: number; externalMb: number } | null;
  idleSeconds: number;
  error?: string;
}

const MB = 1024 * 1024;
const METRICS_TOKEN = 'arbiter-bench-metrics';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every process whose ancestry reaches `root` (Linux /proc), with its resident memory. */
export function processTree(root: number): ProcessRss[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(entry), ppid);
    } catch {
      // the process ended meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  const out: ProcessRss[] = [];
  for (const pid of parent.keys()) {
    if (!inTree(pid)) continue;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      out.push({ pid, command: command.slice(0, 80), rssMb: kb / 1024 });
    } catch {
      // ended meanwhile
    }
  }
  return out.sort((a, b) => a.pid - b.pid);
}

async function waitHealthy(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    const res = await fetch(`http://127.0.0.1:${port}/arbiter/health`).catch(() => null);
    if (res?.status === 200) return;
    await sleep(200);
  }
  throw new Error(`npm start was not healthy within ${timeoutMs / 1000} s`);
}

function startNpm(env: Record<string, string>): { child: ChildProcess; stop: () => Promise<void> } {
  // detached: its own process group, so the whole tree (npm, sh, node) is signalled at once.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    stop: async () => {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
      const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const total = (ps: ProcessRss[]) => ps.reduce((s, p) => s + p.rssMb, 0);

function gauge(text: string, name: string): number | null {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

export async function benchMemory(opts: { idleSeconds: number }, say: (line: string) => void): Promise<MemoryResult> {
  const result: MemoryResult = {
    idleTotalMb: 0,
    processes: [],
    firstStartTotalMb: 0,
    app: null,
    idleSeconds: opts.idleSeconds,
  };
  if (!distIsFresh()) {
    say('memory: building dist/ first (npm run build), outside the measurement');
    buildDist();
  }
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'arbiter-bench-memory-'));
  const port = await freePort();
  const env: Record<string, string> = {
    APP_ID: '1',
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: 'bench-secret',
    ARBITER_APP_SLUG: 'arbiter',
    ARBITER_DATA_DIR: dataDir,
    ARBITER_METRICS_TOKEN: METRICS_TOKEN,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // No GitHub or Anthropic is reached: nothing arrives, and the sweep finds no repository.
    DATABASE_URL: '',
  };
  try {
    for (const phase of ['first', 'reopened'] as const) {
      const app = startNpm(env);
      try {
        await waitHealthy(port, app.child, 120_000);
        say(`memory: ${phase} start healthy; idle for ${opts.idleSeconds} s`);
        await sleep(opts.idleSeconds * 1000);
        const ps = processTree(app.child.pid ?? -1);
        if (phase === 'first') {
          result.firstStartTotalMb = total(ps);
          continue;
        }
        result.processes = ps;
        result.idleTotalMb = total(ps);
        const text = await (
          await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
        ).text();
        const mb = (name: string) => (gauge(text, name) ?? 0) / MB;
        result.app = {
          rssMb: mb('arbiter_process_resident_memory_bytes'),
          heapUsedMb: mb('arbiter_nodejs_heap_size_used_bytes'),
          heapTotalMb: mb('arbiter_nodejs_heap_size_total_bytes'),
          externalMb: mb('arbiter_nodejs_external_memory_bytes'),
        };
      } finally {
        await app.stop();
      }
    }
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  return result;
}
