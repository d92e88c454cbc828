// Reliability: PostgreSQL stops answering under a running Arbiter (the real server, in process).
// The database sits behind a TCP proxy that the test blackholes: connections stay open and no
// byte comes back, as when the network path to the database is gone. A webhook is then answered
// 503 well within GitHub's 10 s (so GitHub records the delivery as failed and the hook-deliveries
// recovery finds it), health says the store fails, and once the path is back the same delivery is
// taken and processed. The shared PostgreSQL server itself is never stopped.
import net from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/handlers/index.ts';
import { startArbiter, type RunningArbiter } from '../../src/main.ts';
import { issuePayload, postWebhook, serverEnv } from '../app/helpers.ts';
import { until } from '../jobs/wait.ts';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../store/backends.ts';

const SECRET = 'db-down-secret';

/** A TCP proxy to PostgreSQL that forwards, or blackholes (holds every byte, answers nothing). */
async function databaseProxy(target: URL) {
  const pairs = new Set<{ client: net.Socket; server: net.Socket }>();
  let holding = false;
  const connect = (pair: { client: net.Socket; server: net.Socket }) => {
    pair.client.pipe(pair.server);
    pair.server.pipe(pair.client);
  };
  const proxy = net.createServer((client) => {
    const server = net.connect(Number(target.port || 5432), target.hostname);
    const pair = { client, server };
    pairs.add(pair);
    const drop = () => {
      client.destroy();
      server.destroy();
      pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    server.on('error', drop).on('close', drop);
    if (!holding) connect(pair);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as net.AddressInfo).port;
  return {
    port,
    blackhole() {
      holding = true;
      for (const p of pairs) {
        p.client.unpipe(p.server);
        p.server.unpipe(p.client);
        p.client.pause();
        p.server.pause();
      }
    },
    restore() {
      holding = false;
      for (const p of pairs) connect(p);
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.server.destroy();
      }
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe('PostgreSQL stops answering under a running Arbiter', () => {
  const handled: Delivery[] = [];
  let schema = '';
  let proxy: Awaited<ReturnType<typeof databaseProxy>>;
  let app: RunningArbiter;

  beforeAll(async () => {
    schema = uniqueSchema('dbdown');
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    await c.query(`CREATE SCHEMA ${schema}`);
    await c.end();
    proxy = await databaseProxy(new URL(TEST_DATABASE_URL));
    const url = new URL(TEST_DATABASE_URL);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const env = serverEnv(SECRET, {
      DATABASE_URL: url.toString(),
      ARBITER_QUEUE_SCHEMA: `${schema}_boss`,
    });
    app = await startArbiter(env, {
      log: pino({ level: 'silent' }),
      // The queue's short polling.
      queue: { fast: true },
      scheduleSweep: false,
      handle: async (_deps, d) => {
        handled.push(d);
      },
      sweep: async () => undefined,
      recover: async () => undefined,
    });
  }, 120_000);

  afterAll(async () => {
    proxy?.restore();
    await app?.stop();
    await proxy?.close();
    if (schema) {
      await dropSchema(schema);
      await dropSchema(`${schema}_boss`);
    }
  }, 120_000);

  const health = async () => {
    const res = await fetch(`http://127.0.0.1:${app.port}/arbiter/health`);
    return { status: res.status, body: (await res.json()) as { status: string; store: string; reason: string | null } };
  };

  it(
    'answers a webhook 503 before Probot would answer 202, health reports the store, and the same delivery is taken once it answers again',
    { timeout: 120_000 },
    async () => {
      expect(
        await postWebhook(app.port, { id: 'before', event: 'issues', payload: issuePayload(1), secret: SECRET }),
      ).toMatchObject({ status: 200 });
      await until('the first webhook processed', () => handled.some((d) => d.id === 'before'));

      proxy.blackhole();
      const answer = await postWebhook(app.port, {
        id: 'during',
        event: 'issues',
        payload: issuePayload(2),
        secret: SECRET,
      });
      // The intake's deadline answers 503; without it Probot would answer 202 after 9 s, acknowledging a
      // delivery that was never stored. How fast it answers is the bench's to show, not a test's.
      expect(answer.status).toBe(503);
      expect(answer.text).toMatch(/database/);

      const down = await health();
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('failing');
      expect(down.body.store).toMatch(/^failed: no answer within/);
      expect(down.body.reason).toMatch(/^store failed/);

      // The path comes back; GitHub redelivers (the recovery asks it to): the delivery is taken once.
      proxy.restore();
      await until('health ok again', async () => ((await health()).status === 200 ? true : undefined), 90_000);
      const again = await postWebhook(app.port, {
        id: 'during',
        event: 'issues',
        payload: issuePayload(2),
        secret: SECRET,
      });
      expect(again.status).toBe(200);
      await until('the redelivered webhook processed', () => handled.some((d) => d.id === 'during'), 60_000);
      expect(handled.filter((d) => d.id === 'during')).toHaveLength(1);
    },
  );
});
