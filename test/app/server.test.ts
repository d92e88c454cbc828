// The real Probot server over HTTP, in process, on PGlite and on PostgreSQL: signed webhooks are
// recorded once and become one job, a bad signature leaves no trace, health answers, and the
// scenario runner's control routes (mounted as extra routes, as sim/runner/app-entry.ts does) work.
import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { simControlHandler } from '../../sim/runner/sim-control.ts';
import { startArbiter, type RunningArbiter } from '../../src/main.ts';
import type { Delivery } from '../../src/handlers/index.ts';
import { BACKENDS, dropSchema, freshPgliteDir, TEST_DATABASE_URL, uniqueSchema } from '../store/backends.ts';
import pg from 'pg';
import { until } from '../jobs/wait.ts';
import { issuePayload, postWebhook, serverEnv } from './helpers.ts';
import { createStore } from '../../src/store/store.ts';

const SECRET = 'test-secret';
describe.each(BACKENDS)('on %s', (backend) => {
  const handled: Delivery[] = [];
  const sweeps: number[] = [];
  let dir = '';
  let schema = '';
  let app: RunningArbiter;
  let release: (() => void) | undefined;
  const bossSchema = () => (backend === 'postgres' ? `${schema}_boss` : 'pgboss');
  const openStore = () =>
    backend === 'postgres' ? createStore({ databaseUrl: TEST_DATABASE_URL, schema }) : createStore({ dataDir: dir });

  beforeAll(async () => {
    let where: Record<string, string>;
    if (backend === 'postgres') {
      schema = uniqueSchema('server');
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`CREATE SCHEMA ${schema}`);
      await c.end();
      const url = new URL(TEST_DATABASE_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      where = { DATABASE_URL: url.toString(), ARBITER_QUEUE_SCHEMA: `${schema}_boss` };
    } else {
      dir = await freshPgliteDir('server');
      where = { ARBITER_DATA_DIR: dir };
    }
    const env = serverEnv(SECRET, {
      ...where,
    });
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    app = await startArbiter(env, {
      log: pino({ level: 'silent' }),
      clock,
      queue: { fast: true, recoverActiveAtStart: true, manualClock: true },
      scheduleSweep: false,
      routes: (controls) => simControlHandler({ ...controls, clock }),
      handle: async (deps, d) => {
        handled.push(d);
        if (d.name === 'slow') await new Promise<void>((r) => (release = r));
      },
      sweep: async (deps) => {
        sweeps.push(deps.clock.now().getTime());
      },
      recover: async () => undefined,
    });
  });

  afterAll(async () => {
    release?.();
    await app?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (schema) {
      await dropSchema(schema);
      await dropSchema(`${schema}_boss`);
    }
  });

  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${app.port}${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  describe('Arbiter over HTTP', () => {
    it('is healthy', async () => {
      const h = await get('/arbiter/health');
      expect(h.status).toBe(200);
      expect(h.body).toMatchObject({
        ok: true,
        store: 'ok',
        backend,
        queue: { queued: expect.any(Number), active: expect.any(Number) },
      });
      // The start-up pass of the webhook-delivery recovery may still be running; then nothing is.
      await until(
        'idle after start',
        async () => ((await get('/arbiter/health')).body.queue as { active: number; queued: number }).active === 0,
      );
    });

    it('records a delivery delivered twice once, as one job, and processes it once', async () => {
      const first = await postWebhook(app.port, {
        id: 'dlv-twice',
        event: 'issues',
        payload: issuePayload(42),
        secret: SECRET,
      });
      const second = await postWebhook(app.port, {
        id: 'dlv-twice',
        event: 'issues',
        payload: issuePayload(42),
        secret: SECRET,
      });
      expect(first.status).toBeLessThan(300);
      expect(second.status).toBeLessThan(300);
      await until('processed', () => handled.some((d) => d.id === 'dlv-twice'));
      await until('idle', async () => (await get('/arbiter/sim/idle')).body.idle === true);
      expect(handled.filter((d) => d.id === 'dlv-twice')).toHaveLength(1);
      expect(handled.find((d) => d.id === 'dlv-twice')).toMatchObject({
        name: 'issues',
        payload: { issue: { number: 42 } },
      });
      // A third copy after processing is acknowledged and does nothing.
      expect(
        (await postWebhook(app.port, { id: 'dlv-twice', event: 'issues', payload: issuePayload(42), secret: SECRET }))
          .status,
      ).toBeLessThan(300);
      await until('idle again', async () => (await get('/arbiter/sim/idle')).body.idle === true);
      expect(handled.filter((d) => d.id === 'dlv-twice')).toHaveLength(1);
    });

    it('answers a badly signed webhook 400 and records nothing', async () => {
      const bad = await postWebhook(app.port, {
        id: 'dlv-forged',
        event: 'issues',
        payload: issuePayload(7),
        secret: SECRET,
        signature: 'sha256=' + '0'.repeat(64),
      });
      expect(bad.status).toBe(400);
      const wrongSecret = await postWebhook(app.port, {
        id: 'dlv-forged2',
        event: 'issues',
        payload: issuePayload(7),
        secret: 'other',
      });
      expect(wrongSecret.status).toBe(400);
      await new Promise((r) => setTimeout(r, 300));
      expect(handled.some((d) => d.id.startsWith('dlv-forged'))).toBe(false);
    });

    it('reports busy while a job runs, and idle after', async () => {
      await postWebhook(app.port, { id: 'dlv-slow', event: 'slow', payload: { zen: 'x' }, secret: SECRET });
      await until('slow job started', () => handled.some((d) => d.id === 'dlv-slow'));
      const busy = await get('/arbiter/sim/idle');
      expect(busy.body).toMatchObject({ idle: false, active: 1, inflight: 0 });
      release?.();
      await until('idle', async () => (await get('/arbiter/sim/idle')).body.idle === true);
    });

    it('moves the virtual clock forward only, running the sweep before answering', async () => {
      const t = Date.UTC(2026, 0, 1, 0, 10);
      const res = await fetch(`http://127.0.0.1:${app.port}/arbiter/sim/clock`, {
        method: 'POST',
        body: JSON.stringify({ now: t }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true, now: t });
      expect(sweeps.at(-1)).toBe(t);
      const back = await fetch(`http://127.0.0.1:${app.port}/arbiter/sim/clock`, {
        method: 'POST',
        body: JSON.stringify({ now: t - 1000 }),
      });
      expect(await back.json()).toEqual({ ok: true, now: t });
      // A driver that steps more often than production's minute schedule moves the clock without
      // the sweep (the realistic bench sweeps on its minutes only).
      const quiet = await fetch(`http://127.0.0.1:${app.port}/arbiter/sim/clock`, {
        method: 'POST',
        body: JSON.stringify({ now: t + 10_000, sweep: false }),
      });
      expect(await quiet.json()).toEqual({ ok: true, now: t + 10_000 });
      expect(sweeps.at(-1)).toBe(t);
      const bad = await fetch(`http://127.0.0.1:${app.port}/arbiter/sim/clock`, {
        method: 'POST',
        body: '{"now":"soon"}',
      });
      expect(bad.status).toBe(400);
    });

    it('answers other paths 404', async () => {
      const res = await fetch(`http://127.0.0.1:${app.port}/nope`);
      expect(res.status).toBe(404);
    });
  });

  describe('after the server stopped', () => {
    it('left exactly one delivery job per delivered id in the store', async () => {
      release?.();
      await app.stop();
      const store = await openStore();
      try {
        const deliveries = await store.db.query('SELECT id, done_at IS NOT NULL AS done FROM deliveries ORDER BY id');
        expect(deliveries.rows).toEqual([
          { id: 'dlv-slow', done: true },
          { id: 'dlv-twice', done: true },
        ]);
        const jobs = await store.db.query(
          `SELECT data->>'id' AS id, count(*)::int AS n FROM ${bossSchema()}.job WHERE name = 'delivery' GROUP BY 1 ORDER BY 1`,
        );
        expect(jobs.rows).toEqual([
          { id: 'dlv-slow', n: 1 },
          { id: 'dlv-twice', n: 1 },
        ]);
      } finally {
        await store.close();
      }
    });
  });
});
