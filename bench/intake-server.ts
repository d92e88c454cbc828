// Child process for the intake benchmark: serves webhooks either with Arbiter's real server
// (store, queue, intake; delivery jobs run a no-op handler) or with a bare Probot app whose
// handler does nothing. Prints {"port":N} when listening, {"rss":…} when told to stop.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createNodeMiddleware, Probot } from 'probot';
import { readEnv } from '../src/env.ts';
import { startArbiter } from '../src/main.ts';
import { createStore } from '../src/store/store.ts';

import { BENCH_SECRET } from './intake-constants.ts';
const WEBHOOKS_PATH = '/api/github/webhooks';

/** `recorded`: deliveries in the store after the stop (null for the bare app, which keeps none). */
type Running = { port: number; stop(): Promise<{ recorded: number | null }> };

function key(): string {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  }).privateKey;
}

async function startBare(): Promise<Running> {
  const probot = new Probot({ appId: 1, privateKey: key(), secret: BENCH_SECRET, log: pino({ level: 'warn' }) });
  const middleware = await createNodeMiddleware(() => {}, { probot, webhooksPath: WEBHOOKS_PATH });
  const server = http.createServer((req, res) => {
    void middleware(req, res, () => res.writeHead(404).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    port,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve({ recorded: null }));
        server.closeAllConnections();
      }),
  };
}

async function startReal(): Promise<Running> {
  const dataDir = await mkdtemp(join(tmpdir(), 'arbiter-bench-intake-'));
  const env = readEnv({
    APP_ID: '1',
    PRIVATE_KEY: key(),
    WEBHOOK_SECRET: BENCH_SECRET,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ARBITER_APP_SLUG: 'arbiter',
    ARBITER_DATA_DIR: dataDir,
    // never contacted: the delivery jobs run a no-op handler
    GHE_HOST: '127.0.0.1:9',
    GHE_PROTOCOL: 'http',
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
  });
  const running = await startArbiter(env, { handle: async () => {} });
  return {
    port: running.port,
    async stop() {
      await running.stop();
      // Reopen the store the server used and count what it recorded.
      const store = await createStore({ databaseUrl: env.DATABASE_URL, dataDir });
      try {
        const res = await store.db.query('SELECT count(*)::int AS n FROM deliveries');
        const n = res.rows[0]?.n;
        return { recorded: typeof n === 'number' ? n : null };
      } finally {
        await store.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

const mode = process.argv[2];
const running = await (mode === 'bare' ? startBare() : startReal());
process.stdout.write(`${JSON.stringify({ port: running.port })}\n`);
process.once('SIGTERM', () => {
  const rss = process.resourceUsage().maxRSS;
  running.stop().then(
    ({ recorded }) => {
      process.stdout.write(`${JSON.stringify({ maxRssKb: rss, recorded })}\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`stop failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
});
