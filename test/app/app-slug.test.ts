// createArbiterApp under Probot's createNodeMiddleware: without ARBITER_APP_SLUG it asks GitHub
// (`GET /app`, with the app's JWT) for its slug once at start; deps carry it.
import { rmSync } from 'node:fs';
import nock from 'nock';
import pino from 'pino';
import { createNodeMiddleware, Probot, ProbotOctokit } from 'probot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArbiterApp } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { createQueue, type Queue } from '../../src/jobs/queue.ts';
import { createStore, type StoreWithDb } from '../../src/store/store.ts';
import { freshPgliteDir } from '../store/backends.ts';
import { testPrivateKey } from './helpers.ts';

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
      Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({ ...o, retry: { enabled: false }, throttle: { enabled: false } })),
    });
    const arbiter = createArbiterApp({ store, queue, clock: new ManualClock(0), llm: { complete: async () => ({ ok: false, gap: 'model-error' }) } });
    await createNodeMiddleware(arbiter.appFn, { probot });
    const deps = await arbiter.ready;
    expect(deps.appSlug).toBe('arbiter-test');
    scope.done();
    await arbiter.shutdown();
  });
});
