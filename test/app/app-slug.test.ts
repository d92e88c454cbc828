// createArbiterApp under Probot's createNodeMiddleware: without ARBITER_APP_SLUG it asks GitHub
// (`GET /app`, with the app's JWT) for its slug once at start; deps carry it.
import { rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import pino from 'pino';
import { createNodeMiddleware, Probot } from 'probot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArbiterApp, WEBHOOK_PATH } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { createQueue, type Queue } from '../../src/jobs/queue.ts';
import { createStore, type StoreWithDb } from '../../src/store/store.ts';
import { freshPgliteDir } from '../store/backends.ts';
import { until } from '../jobs/wait.ts';
import { issuePayload, postWebhook, testPrivateKey } from './helpers.ts';
import { arbiterOctokit } from '../../src/github/client.ts';

const log = pino({ level: 'silent' });
let dir: string;
let store: StoreWithDb;
let queue: Queue;

beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  dir = await freshPgliteDir('slug');
  store = await createStore({ dataDir: dir });
  queue = await createQueue(store.db, { log, fast: true });
});
afterAll(async () => {
  await queue?.stop({ graceful: false });
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('the app slug', () => {
  it('comes from GET /app when not configured', async () => {
    const scope = nock('https://api.github.com')
      .get('/app')
      .matchHeader('authorization', /^bearer /i)
      .reply(200, { id: 1, slug: 'arbiter-test', name: 'Arbiter test' });
    const probot = new Probot({
      appId: 1,
      privateKey: testPrivateKey(),
      secret: 's',
      log,
      Octokit: arbiterOctokit(),
    });
    const arbiter = createArbiterApp({
      store,
      queue,
      clock: new ManualClock(0),
      llm: { complete: async () => ({ ok: false, gap: 'model-error' }) },
      recover: async () => undefined,
    });
    await createNodeMiddleware(arbiter.appFn, { probot });
    const deps = await arbiter.ready;
    expect(deps.appSlug).toBe('arbiter-test');
    scope.done();
    await arbiter.shutdown();
  });
});

describe('GitHub unreachable at start', () => {
  it(
    'serves health (degraded, with the reason), records a signed webhook, and processes it once GitHub answers',
    { timeout: 60_000 },
    async () => {
      let letGitHubAnswer!: () => void;
      const gate = new Promise<void>((resolve) => (letGitHubAnswer = resolve));
      // GET /app fails twice (a 503, then no answer at all), then answers once the test lets it.
      const scope = nock('https://api.github.com')
        .get('/app')
        .reply(503, { message: 'Service Unavailable' })
        .get('/app')
        .replyWithError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' })
        .get('/app')
        .reply(async () => {
          await gate;
          return [200, { id: 1, slug: 'arbiter-late', name: 'Arbiter' }];
        });
      const probot = new Probot({
        appId: 1,
        privateKey: testPrivateKey(),
        secret: 'late-secret',
        log,
        Octokit: arbiterOctokit(),
      });
      const handled: { id: string; slug: string }[] = [];
      // Its own queue: the test above stopped the shared one.
      const lateQueue = await createQueue(store.db, { log, fast: true, schema: 'pgboss_late' });
      const arbiter = createArbiterApp({
        store,
        queue: lateQueue,
        clock: new ManualClock(0),
        llm: { complete: async () => ({ ok: false, gap: 'model-error' }) },
        slugRetryMs: 50,
        handle: async (deps, d) => {
          handled.push({ id: d.id, slug: deps.appSlug });
        },
        sweep: async () => undefined,
        recover: async () => undefined,
      });
      const middleware = await createNodeMiddleware(arbiter.appFn, { probot, webhooksPath: WEBHOOK_PATH });
      const server = http.createServer((req, res) => void middleware(req, res, () => res.writeHead(404).end()));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      try {
        await arbiter.serving;
        await until('degraded', async () => arbiter.degraded() ?? undefined, 10_000);
        const health = await fetch(`http://127.0.0.1:${port}/arbiter/health`);
        const report = (await health.json()) as { status: string; reason: string | null };
        expect(health.status).toBe(200);
        expect(report.status).toBe('degraded');
        expect(report.reason).toMatch(/GET \/app/);
        expect(handled).toEqual([]);
        const posted = await postWebhook(port, {
          id: 'late-1',
          event: 'issues',
          payload: issuePayload(5),
          secret: 'late-secret',
        });
        expect(posted.status).toBeLessThan(300);
        expect((await store.getDelivery('late-1'))?.id).toBe('late-1');
        letGitHubAnswer();
        const deps = await arbiter.ready;
        expect(deps.appSlug).toBe('arbiter-late');
        await until('the webhook processed', async () => (handled.length > 0 ? true : undefined), 30_000);
        expect(handled).toEqual([{ id: 'late-1', slug: 'arbiter-late' }]);
        expect(arbiter.degraded()).toBeNull();
        scope.done();
      } finally {
        await arbiter.shutdown();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  );
});
