// Runs a bench script as its own Node process (`node --import tsx <script>`), reads the one JSON
// line it prints, and makes sure it never outlives the bench (timeout, exit and signal cleanup).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

export class BenchChildError extends Error {
  override readonly name = 'BenchChildError';
}

const live = new Set<ChildProcess>();
let hooked = false;
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const c of live) c.kill('SIGKILL');
  });
}

export interface Child {
  /** The first line of stdout that parses as JSON. */
  ready: Promise<unknown>;
  /** Resolves with the last JSON line printed before the process exited. */
  exited: Promise<{ code: number | null; last: unknown }>;
  stop(): Promise<void>;
  stderrTail(): string;
}

/** Starts `bench/<script>` with args and extra env; `timeoutMs` kills it if it runs longer. */
export function startChild(script: string, args: string[], env: Record<string, string>, timeoutMs: number): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url)), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  hookExit();
  live.add(child);
  const tail: string[] = [];
  let buffered = '';
  let last: unknown = null;
  let resolveReady!: (v: unknown) => void;
  let rejectReady!: (e: Error) => void;
  const ready = new Promise<unknown>((res, rej) => {
    resolveReady = res;
    rejectReady = rej;
  });
  ready.catch(() => undefined);
  let seen = false;
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      try {
        last = JSON.parse(line);
      } catch {
        continue;
      }
      if (!seen) {
        seen = true;
        resolveReady(last);
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    tail.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim()),
    );
    if (tail.length > 30) tail.splice(0, tail.length - 30);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exited = new Promise<{ code: number | null; last: unknown }>((resolve) => {
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      if (!seen)
        rejectReady(
          new BenchChildError(
            `${script} exited (code ${code}, signal ${signal}) before it was ready:\n${tail.join('\n')}`,
          ),
        );
      resolve({ code, last });
    });
  });
  return {
    ready,
    exited,
    stderrTail: () => tail.join('\n'),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(force);
    },
  };
}

/** Runs a script to completion and returns its last JSON line. */
export async function runChild(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<unknown> {
  const c = startChild(script, args, env, timeoutMs);
  const { code, last } = await c.exited;
  if (code !== 0) throw new BenchChildError(`${script} ${args.join(' ')} exited with ${code}:\n${c.stderrTail()}`);
  return last;
}
