// The intake route over HTTP (Probot's middleware and Arbiter's app function, in process), on
// PGlite and PostgreSQL: concurrent webhooks are all answered 2xx once their group committed and
// each is processed once; a failed commit answers every webhook in it 500 and keeps nothing, and
// the same webhooks delivered again are taken.
import http from 'node:http';
import pino from 'pino';
import { createNodeMiddleware, Probot } from 'probot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createArbiterApp, WEBHOOK_PATH, type ArbiterApp } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import type { Delivery } from '../../src/handlers/index.ts';
import { DELIVERY_QUEUE } from '../../src/jobs/delivery-job.ts';
import { createQueue, type Queue } from '../../src/jobs/queue.ts';
import { storeOver } from '../../src/store/store.ts';
import { issuePayload, postWebhook, testPrivateKey } from '../app/helpers.ts';
import { BACKENDS, openBackend, type OpenedBackend } from '../store/backends.ts';
import { faultyQueue, recordingDb } from './intake-faults.ts';
import { silentLog } from './test-deps.ts';
import { until } from './wait.ts';

const SECRET = 'intake-secret';

describe.each(BACKENDS)('the intake route on %s', (backend) => {
  let b: OpenedBackend;
  let bossSchema: string;
  let queue: Queue;
  let faults: ReturnType<typeof faultyQueue>;
  let rec: ReturnType<typeof recordingDb>;
  let arbiter: ArbiterApp;
  let server: http.Server;
  let port = 0;
  const handled: Delivery[] = [];

  beforeAll(async () => {
    b = await openBackend(backend, 'intakehttp');
    bossSchema = backend === 'postgres' ? `${b.where}_boss` : 'pgboss';
    queue = await createQueue(b.store.db, { log: silentLog, fast: true, schema: bossSchema });
    faults = faultyQueue(queue);
    rec = recordingDb(b.store.db);
    arbiter = createArbiterApp({
      store: storeOver(rec.db),
      queue: faults.queue,
      clock: new ManualClock(Date.UTC(2026, 0, 1)),
      llm: {
        complete: async () => {
          throw new Error('no model calls in intake tests');
        },
      },
      appSlug: 'arbiter',
      handle: async (_deps, d) => {
        handled.push(d);
      },
      sweep: async () => undefined,
      recover: async () => undefined,
    });
    const probot = new Probot({
      appId: 1,
      privateKey: testPrivateKey(),
      secret: SECRET,
      log: pino({ level: 'silent' }),
    });
    const middleware = await createNodeMiddleware(arbiter.appFn, { probot, webhooksPath: WEBHOOK_PATH });
    await arbiter.ready;
    server = http.createServer((req, res) => {
      void middleware(req, res, () => res.writeHead(404).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const addr = server.address();
    port = typeof addr === 'object' && addr ? addr.port : 0;
  });
  afterAll(async () => {
    await arbiter?.shutdown({ timeoutMs: 5_000 });
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (backend === 'postgres') await b.store.db.exec(`DROP SCHEMA IF EXISTS ${bossSchema} CASCADE`);
    await b?.dispose();
  });
  beforeEach(() => {
    faults.failing = false;
  });

  const post = (id: string, n = 1) =>
    postWebhook(port, { id, event: 'issues', payload: issuePayload(n), secret: SECRET });
  const recordedIds = async (prefix: string) =>
    (await b.store.db.query('SELECT id FROM deliveries WHERE id LIKE $1 ORDER BY id', [`${prefix}%`])).rows.map((r) =>
      String(r.id),
    );
  const jobsFor = async (prefix: string) =>
    (
      await b.store.db.query(
        `SELECT data->>'id' AS id FROM ${bossSchema}.job WHERE name = $1 AND data->>'id' LIKE $2 ORDER BY 1`,
        [DELIVERY_QUEUE, `${prefix}%`],
      )
    ).rows.map((r) => String(r.id));
  const handledIds = (prefix: string) =>
    handled
      .filter((d) => d.id.startsWith(prefix))
      .map((d) => d.id)
      .sort();

  it('answers concurrent webhooks 2xx, records and processes each once, with one job each', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `c-${String(i).padStart(2, '0')}`);
    // Every id once, and three of them a second time, all at once.
    const answers = await Promise.all([...ids, 'c-00', 'c-05', 'c-11'].map((id) => post(id)));
    expect(answers.map((a) => a.status < 300)).toEqual(Array(15).fill(true));
    await until('all processed', () => handledIds('c-').length >= ids.length);
    expect(await recordedIds('c-')).toEqual(ids);
    expect(await jobsFor('c-')).toEqual(ids);
    await until('jobs finished', async () => (await queue.counts()).queued + (await queue.counts()).active === 0);
    expect(handledIds('c-')).toEqual(ids);
    // However the requests fell into groups, each group was one transaction: one insert into
    // deliveries, if it held a redelivery a re-arm of those that failed for good and a look at
    // done_at, and one insert of jobs unless all were done already.
    const groups = rec.transactions.filter((t) => t[0] === 'INSERT INTO deliveries');
    expect(groups.length).toBeGreaterThan(0);
    for (const t of groups) {
      expect([
        ['INSERT INTO deliveries', 'WITH defaults as'],
        ['INSERT INTO deliveries', 'UPDATE deliveries SET', 'SELECT id, done_at', 'WITH defaults as'],
        ['INSERT INTO deliveries', 'UPDATE deliveries SET', 'SELECT id, done_at'],
      ]).toContainEqual(t);
    }
  });

  it('answers 500 to every webhook of a failed commit and keeps none; delivered again, they are taken', async () => {
    faults.failing = true;
    const failed = await Promise.all(['f-1', 'f-2', 'f-3'].map((id) => post(id)));
    expect(failed.map((a) => a.status)).toEqual([500, 500, 500]);
    expect(await recordedIds('f-')).toEqual([]);
    expect(await jobsFor('f-')).toEqual([]);

    faults.failing = false;
    const again = await Promise.all(['f-1', 'f-2', 'f-3'].map((id) => post(id)));
    expect(again.map((a) => a.status < 300)).toEqual([true, true, true]);
    await until('processed', () => handledIds('f-').length === 3);
    expect(await recordedIds('f-')).toEqual(['f-1', 'f-2', 'f-3']);
    expect(handledIds('f-')).toEqual(['f-1', 'f-2', 'f-3']);
  });

  it('only acknowledges a webhook already processed: no second job, no second run', async () => {
    expect((await post('p-1')).status).toBeLessThan(300);
    await until('processed', async () => (await b.store.getDelivery('p-1'))?.doneAt);
    await b.store.db.query(`DELETE FROM ${bossSchema}.job WHERE data->>'id' = 'p-1'`); // as if archived
    expect((await post('p-1')).status).toBeLessThan(300);
    expect(await jobsFor('p-')).toEqual([]);
    expect(handledIds('p-')).toEqual(['p-1']);
  });
});
