// Process entry (`npm start`): reads the environment, then either serves Probot's setup flow (no
// credentials yet) or starts Arbiter: store, queue, Probot webhooks, health, and graceful shutdown.
import { existsSync } from 'node:fs';
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { createNodeMiddleware, Probot, run } from 'probot';
import SmeeClient from 'smee-client';
import { createArbiterApp, WEBHOOK_PATH, type ArbiterAppOptions } from './app.ts';
import { systemClock, type Clock } from './clock.ts';
import { EnvError, readEnv, type Env } from './env.ts';
import { arbiterOctokit, pacing } from './github/client.ts';
import { tokenMeteredFetch } from './github/request-meter.ts';
import { createQueue, type QueueOptions } from './jobs/queue.ts';
import { createAnthropicClient } from './llm/client.ts';
import { metricsHandler } from './metrics.ts';
import { createStore } from './store/store.ts';

export interface RunningArbiter {
  port: number;
  server: http.Server;
  /** Stops taking webhooks and jobs, lets jobs in flight finish, closes the store. */
  stop(): Promise<void>;
}

/** What a caller other than `npm start` changes: the scenario runner's entry and tests. */
export interface StartOverrides extends Partial<
  Pick<
    ArbiterAppOptions,
    'handle' | 'sweep' | 'recover' | 'routes' | 'scheduleSweep' | 'intakeDeadlineMs' | 'checkEventWaitSeconds'
  >
> {
  /**
   * The production client's pacing on compressed time (src/github/client.ts `pacing(scale)`): the
   * scenario runner, whose clock is virtual, passes a scale below 1. Default 1 (production).
   */
  pacingScale?: number;
  log?: pino.Logger;
  /** Default: the system clock. */
  clock?: Clock;
  /** Queue timing and recovery (see QueueOptions). */
  queue?: Pick<
    QueueOptions,
    | 'fast'
    | 'recoverActiveAtStart'
    | 'manualClock'
    | 'pollingIntervalSeconds'
    | 'expireInSeconds'
    | 'maintenanceIntervalSeconds'
  >;
}

/** Starts the real server with credentials. Exported for tests; `main()` calls it. */
export async function startArbiter(env: Env, overrides: StartOverrides = {}): Promise<RunningArbiter> {
  const creds = env.credentials;
  if (!creds) throw new EnvError('startArbiter needs APP_ID, PRIVATE_KEY and WEBHOOK_SECRET');
  const log = overrides.log ?? pino({ level: env.LOG_LEVEL, base: { app: 'arbiter' } });
  const store = await createStore({ databaseUrl: env.DATABASE_URL, dataDir: env.ARBITER_DATA_DIR });
  try {
    const queue = await createQueue(store.db, { log, schema: env.ARBITER_QUEUE_SCHEMA, ...overrides.queue });
    const probot = new Probot({
      appId: creds.appId,
      privateKey: creds.privateKey,
      secret: creds.webhookSecret,
      baseUrl: env.githubBaseUrl,
      log,
      // The one client (src/github/client.ts): metered, paced per installation, never sleeping on a rate limit.
      Octokit: arbiterOctokit(pacing(overrides.pacingScale ?? 1)),
      request: { fetch: tokenMeteredFetch() },
    });
    const arbiter = createArbiterApp({
      store,
      queue,
      clock: overrides.clock ?? systemClock,
      llm: createAnthropicClient({ apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL, log }),
      appSlug: env.ARBITER_APP_SLUG,
      webhookSecret: creds.webhookSecret,
      workers: env.ARBITER_WORKERS,
      dashboards: env.ARBITER_DASHBOARD,
      trustedAgents: env.ARBITER_TRUST_AGENTS,
      checkEventWaitSeconds: overrides.checkEventWaitSeconds ?? env.ARBITER_CHECK_EVENT_WAIT,
      scheduleSweep: overrides.scheduleSweep ?? true,
      ...(overrides.handle ? { handle: overrides.handle } : {}),
      ...(overrides.sweep ? { sweep: overrides.sweep } : {}),
      ...(overrides.recover ? { recover: overrides.recover } : {}),
      ...(overrides.routes ? { routes: overrides.routes } : {}),
      ...(overrides.intakeDeadlineMs ? { intakeDeadlineMs: overrides.intakeDeadlineMs } : {}),
    });
    const middleware = await createNodeMiddleware(arbiter.appFn, { probot, webhooksPath: WEBHOOK_PATH });
    await arbiter.serving;
    // Never without its token: this port is the public webhook port (readEnv refuses ARBITER_METRICS=1 alone).
    const metrics = metricsHandler({ token: env.ARBITER_METRICS_TOKEN, counts: () => queue.counts() });
    const server = http.createServer(async (req, res) => {
      if (await metrics(req, res).catch(() => false)) return;
      void middleware(req, res, () => {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(env.PORT, env.HOST, () => resolve());
    });
    const addr = server.address();
    const port = typeof addr === 'object' && addr !== null ? addr.port : env.PORT;
    log.info({ port, backend: store.db.kind }, 'Arbiter is listening');

    let smee: SmeeClient | undefined;
    if (env.WEBHOOK_PROXY_URL) {
      smee = new SmeeClient({
        source: env.WEBHOOK_PROXY_URL,
        target: `http://127.0.0.1:${port}${WEBHOOK_PATH}`,
        logger: { info: (m: string) => log.info(m), error: (m: string) => log.error(m) },
      });
      await smee.start();
    }

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        await smee?.stop().catch(() => undefined);
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await arbiter.shutdown();
        server.closeIdleConnections();
        await closed;
        await store.close();
      })());
    return { port, server, stop };
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

/** No credentials yet: Probot's setup flow registers the app from app.yml and writes .env. */
async function startSetup(env: Env): Promise<void> {
  // Our own smee-client, so the setup flow never fetches one with npx.
  await run(() => undefined, {
    env: { ...process.env, PORT: String(env.PORT), ...(env.HOST ? { HOST: env.HOST } : {}) },
    SmeeClient,
  });
}

export async function main(): Promise<void> {
  // .env (written by the setup flow) fills in what the real environment does not set.
  if (existsSync('.env')) process.loadEnvFile('.env');
  let env: Env;
  try {
    env = readEnv();
  } catch (err) {
    if (err instanceof EnvError) {
      process.stderr.write(`arbiter: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  if (!env.credentials) {
    await startSetup(env);
    return;
  }
  stopOnSignals(await startArbiter(env));
}

/** SIGTERM or SIGINT: a graceful stop, then exit (forced after 30 s). */
export function stopOnSignals(running: RunningArbiter): void {
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`arbiter: ${signal}, shutting down\n`);
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    running.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`arbiter: shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

const isEntry = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isEntry) {
  main().catch((err: unknown) => {
    process.stderr.write(
      `arbiter: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  });
}
