// `npm start` as a real process: with no credentials it serves Probot's setup page from app.yml;
// with a malformed variable it exits 1 naming it; with credentials it answers health and stops
// cleanly on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPgliteDir } from '../store/backends.ts';
import { until } from '../jobs/wait.ts';
import { freePort, testPrivateKey } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CREDENTIAL_VARS = [
  'APP_ID',
  'PRIVATE_KEY',
  'PRIVATE_KEY_PATH',
  'WEBHOOK_SECRET',
  'DATABASE_URL',
  'WEBHOOK_PROXY_URL',
  'NODE_ENV',
];
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `src`: the sources through tsx (`npm run dev`); `build`: `npm start`'s own command, no TypeScript loader. */
const COMMANDS = {
  src: ['--import', 'tsx', 'src/main.ts'],
  build: ['--max-semi-space-size=4', 'scripts/start.mjs'],
};

function start(
  env: Record<string, string>,
  command: keyof typeof COMMANDS = 'src',
): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CREDENTIAL_VARS.includes(k)));
  const child = spawn(process.execPath, COMMANDS[command], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

describe('npm start', () => {
  it('serves the setup page when there are no credentials', { timeout: 120_000 }, async () => {
    const port = await freePort();
    // NO_SMEE_SETUP: the setup flow would otherwise ask smee.io for a channel (network) and
    // write it into the project's .env.
    const p = start({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NO_SMEE_SETUP: 'true' });
    const page = await until(
      'setup page',
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
        return res?.status === 200 ? res.text() : undefined;
      },
      90_000,
    );
    expect(page).toContain('Register GitHub App');
    expect(page).toContain('name="manifest"');
    p.child.kill('SIGTERM');
    await p.exited;
  });

  it('exits 1 naming a malformed variable', { timeout: 60_000 }, async () => {
    const p = start({ APP_ID: 'abc', PRIVATE_KEY: 'x', WEBHOOK_SECRET: 's' });
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('APP_ID');
    const q = start({ APP_ID: '5' });
    expect(await q.exited).toBe(1);
    expect(q.output()).toMatch(/PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET missing/);
  });

  it(
    'starts with credentials from the build (no TypeScript loader), answers health, and stops on SIGTERM with exit 0',
    { timeout: 180_000 },
    async () => {
      const port = await freePort();
      const dir = await freshPgliteDir('main');
      dirs.push(dir);
      const p = start(
        {
          PORT: String(port),
          HOST: '127.0.0.1',
          APP_ID: '1',
          PRIVATE_KEY: testPrivateKey(),
          WEBHOOK_SECRET: 'secret',
          ARBITER_DATA_DIR: dir,
          ARBITER_APP_SLUG: 'arbiter',
          // GitHub is never called: at start the app lists its webhook's deliveries, here from a closed port.
          GHE_HOST: '127.0.0.1:1',
          GHE_PROTOCOL: 'http',
          LOG_LEVEL: 'warn',
        },
        'build',
      );
      const health = await until(
        'healthy',
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/arbiter/health`).catch(() => undefined);
          return res?.status === 200 ? res.json() : undefined;
        },
        90_000,
      );
      expect(health).toMatchObject({ ok: true, backend: 'pglite' });
      // Scenario controls are not mounted outside scenario mode.
      expect((await fetch(`http://127.0.0.1:${port}/arbiter/sim/idle`)).status).toBe(404);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    },
  );
});
