// The durable queue on PGlite and PostgreSQL: jobs run, retry, fail finally with a recorded
// reason, are sent once per key, survive a stop in the middle, and are counted.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DELIVERY_QUEUE, deliveryJob, intakeDelivery, requeuePendingDeliveries } from '../../src/jobs/delivery-job.ts';
import { createQueue, jobIdFor, type Queue, type QueueOptions } from '../../src/jobs/queue.ts';
import { BACKENDS, openBackend, type OpenedBackend } from '../store/backends.ts';
import { silentLog, testDeps } from './test-deps.ts';
import { until } from './wait.ts';

describe.each(BACKENDS)('job queue on %s', (backend) => {
  let b: OpenedBackend;
  let bossSchema: string;
  const open: Queue[] = [];
  const newQueue = async (o: Partial<QueueOptions> = {}) => {
    const q = await createQueue(b.store.db, {
      log: silentLog,
      fast: true,
      schema: bossSchema,
      retryDelaySeconds: 0,
      ...o,
    });
    open.push(q);
    return q;
  };
  beforeAll(async () => {
    b = await openBackend(backend, 'queue');
    bossSchema = backend === 'postgres' ? `${b.where}_boss` : 'pgboss';
  });
  afterAll(async () => {
    if (backend === 'postgres') await b.store.db.exec(`DROP SCHEMA IF EXISTS ${bossSchema} CASCADE`);
    await b?.dispose();
  });
  beforeEach(async () => {
    await b.truncate();
  });
  afterEach(async () => {
    while (open.length) await open.pop()?.stop({ graceful: false });
    await b.store.db.exec(`DELETE FROM ${bossSchema}.job`);
  });

  it('runs a sent job with its data, and counts it while it waits', async () => {
    const q = await newQueue();
    const seen: unknown[] = [];
    await q.send('t-run', { n: 1 });
    expect(await q.counts()).toEqual({ queued: 1, active: 0, deferred: 0 });
    await q.work('t-run', async (job) => {
      seen.push(job.data);
    });
    await until('job ran', () => seen.length === 1);
    expect(seen).toEqual([{ n: 1 }]);
    await until('queue drained', async () => (await q.counts()).queued + (await q.counts()).active === 0);
  });

  it('sends once per key', async () => {
    const q = await newQueue();
    const a = await q.sendOnce('t-once', { id: 'x' }, 'x');
    const again = await q.sendOnce('t-once', { id: 'x' }, 'x');
    expect(a).toBe(jobIdFor('t-once', 'x'));
    expect(again).toBeNull();
    expect((await q.counts()).queued).toBe(1);
  });

  it('inserts jobs inside a transaction, once per key, set up as sendOnce sets them up', async () => {
    const q = await newQueue({ retryLimit: 3 });
    await expect(
      b.store.db.transaction((tx) => q.insertOnce('t-insert', [{ key: 'x', data: {} }], tx)),
    ).rejects.toThrow('not prepared');
    await q.prepare('t-insert');
    await q.sendOnce('t-insert', { id: 'sent' }, 'sent');
    await b.store.db.transaction(async (tx) => {
      await q.insertOnce(
        't-insert',
        [
          { key: 'a', data: { id: 'a' } },
          { key: 'sent', data: { id: 'again' } },
        ],
        tx,
      );
      await q.insertOnce('t-insert', [{ key: 'a', data: { id: 'a, twice' } }], tx);
    });
    // Rolled back with its transaction.
    await expect(
      b.store.db.transaction(async (tx) => {
        await q.insertOnce('t-insert', [{ key: 'gone', data: { id: 'gone' } }], tx);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const rows = await b.store.db.query(
      `SELECT id, data, state::text AS state, priority, retry_limit, retry_delay, retry_backoff, expire_in::text AS expire_in,
              (keep_until - created_on)::text AS keep, policy FROM ${bossSchema}.job WHERE name = 't-insert' ORDER BY data->>'id'`,
    );
    const { id: aId, data: aData, ...aSetup } = rows.rows[0] ?? {};
    const { id: sentId, data: sentData, ...sentSetup } = rows.rows[1] ?? {};
    expect(rows.rows).toHaveLength(2);
    expect([aId, aData, sentId, sentData]).toEqual([
      jobIdFor('t-insert', 'a'),
      { id: 'a' },
      jobIdFor('t-insert', 'sent'),
      { id: 'sent' },
    ]);
    expect(aSetup).toEqual(sentSetup);
    expect(aSetup).toMatchObject({ state: 'created', retry_limit: 3 });
  });

  it('retries a failing job until it succeeds', async () => {
    const q = await newQueue();
    let calls = 0;
    await q.work('t-retry', async () => {
      calls++;
      if (calls < 3) throw new Error('transient');
    });
    await q.send('t-retry', {});
    await until('third attempt', () => calls === 3);
    await until('completed', async () => (await q.counts()).queued === 0 && (await q.counts()).active === 0);
    expect(calls).toBe(3);
  });

  it('records the final failure of a delivery with its reason, once', async () => {
    const q = await newQueue({ retryLimit: 1 });
    const deps = testDeps(b.store, q);
    let attempts = 0;
    const job = deliveryJob(deps, async () => {
      attempts++;
      throw new Error('handler broke');
    });
    await q.work(DELIVERY_QUEUE, job.handler, job.options);
    await intakeDelivery(b.store, q, {
      id: 'dlv-fail',
      name: 'issues',
      payload: { repository: { full_name: 'acme/todo' }, issue: { number: 42 } },
    });
    const done = await until('delivery marked done', async () => {
      const d = await b.store.getDelivery('dlv-fail');
      return d?.doneAt ? d : undefined;
    });
    expect(done.error).toContain('handler broke');
    expect(attempts).toBe(2);
    const events = await b.store.db.query(`SELECT repo, kind, data FROM events`);
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0]).toMatchObject({
      repo: 'acme/todo',
      kind: 'delivery-failed',
      data: { delivery: 'dlv-fail', pr: 42, attempts: 2 },
    });
  });

  it('runs a delivery whose job failed for good again when it is redelivered; once processed, a redelivery adds nothing', async () => {
    const q = await newQueue({ retryLimit: 1 });
    const deps = testDeps(b.store, q);
    let broken = true;
    const runs: string[] = [];
    const job = deliveryJob(deps, async () => {
      runs.push(broken ? 'failed' : 'ran');
      if (broken) throw new Error('handler broke');
    });
    await q.work(DELIVERY_QUEUE, job.handler, job.options);
    const d = {
      id: 'dlv-again',
      name: 'issues',
      payload: { repository: { full_name: 'acme/todo' }, issue: { number: 42 } },
    };
    expect(await intakeDelivery(b.store, q, d)).toBe('queued');
    await until('failed for good', async () => (await b.store.getDelivery(d.id))?.error);
    expect(runs).toEqual(['failed', 'failed']);

    // "Redeliver" on GitHub: the same X-GitHub-Delivery. It runs again, as a job of its own.
    broken = false;
    expect(await intakeDelivery(b.store, q, d)).toBe('redelivery');
    await until('processed', async () => {
      const got = await b.store.getDelivery(d.id);
      return got?.doneAt && got.error === null;
    });
    expect(runs).toEqual(['failed', 'failed', 'ran']);

    // Processed now: a further redelivery and a startup re-enqueue are only acknowledged.
    expect(await intakeDelivery(b.store, q, d)).toBe('redelivery');
    expect(await requeuePendingDeliveries(b.store, q)).toBe(0);
    await until('drained', async () => (await q.counts()).queued + (await q.counts()).active === 0);
    expect(runs).toEqual(['failed', 'failed', 'ran']);
    const kinds = await b.store.db.query(`SELECT kind FROM events ORDER BY id`);
    expect(kinds.rows.map((r) => r.kind)).toEqual(['delivery-failed']);
  });

  it('processes a delivery once although it is delivered twice', async () => {
    const q = await newQueue();
    const deps = testDeps(b.store, q);
    const handled: string[] = [];
    const job = deliveryJob(deps, async (_d, delivery) => {
      handled.push(delivery.id);
    });
    expect(await intakeDelivery(b.store, q, { id: 'dup', name: 'push', payload: {} })).toBe('queued');
    expect(await intakeDelivery(b.store, q, { id: 'dup', name: 'push', payload: {} })).toBe('redelivery');
    await q.work(DELIVERY_QUEUE, job.handler, job.options);
    await until('done', async () => (await b.store.getDelivery('dup'))?.doneAt);
    // A redelivery after it was processed, and a startup re-enqueue, add nothing.
    expect(await intakeDelivery(b.store, q, { id: 'dup', name: 'push', payload: {} })).toBe('redelivery');
    expect(await requeuePendingDeliveries(b.store, q)).toBe(0);
    await until('drained', async () => (await q.counts()).queued + (await q.counts()).active === 0);
    expect(handled).toEqual(['dup']);
  });

  it('re-enqueues a delivery recorded before a crash but never queued', async () => {
    const q = await newQueue();
    await b.store.recordDelivery('orphan', 'push', {}); // the process died right after this
    expect(await requeuePendingDeliveries(b.store, q)).toBe(1);
    expect(await requeuePendingDeliveries(b.store, q)).toBe(0);
    expect((await q.counts()).queued).toBe(1);
  });

  it('takes back jobs a dead process left active only when it may (PGlite, or told so)', async () => {
    const q1 = await newQueue();
    const id = await q1.send('t-orphan', { n: 1 });
    // As if a process had fetched it and died: pg-boss marks a fetched job active.
    await b.store.db.query(`UPDATE ${bossSchema}.job SET state = 'active', started_on = now() WHERE id = $1`, [id]);
    await q1.stop({ graceful: false });
    open.splice(open.indexOf(q1), 1);

    const byDefault = await newQueue();
    const stateOf = async () =>
      (await b.store.db.query(`SELECT state FROM ${bossSchema}.job WHERE id = $1`, [id])).rows[0]?.state;
    // On PostgreSQL another replica may be running it: it stays active until pg-boss expires it.
    expect(await stateOf()).toBe(backend === 'pglite' ? 'retry' : 'active');
    await byDefault.stop({ graceful: false });
    open.splice(open.indexOf(byDefault), 1);

    const told = await newQueue({ recoverActiveAtStart: true });
    const ran: unknown[] = [];
    await told.work('t-orphan', async (job) => {
      ran.push(job.data);
    });
    await until('orphan ran', () => ran.length === 1);
    expect(ran).toEqual([{ n: 1 }]);
  });

  // Workers with a backlog must let the event loop turn (and read webhooks) between jobs, not
  // chain statement after statement: PGlite runs statements on this thread, so the queue yields
  // there; on PostgreSQL every statement is network I/O.
  it('lets the event loop turn between jobs while workers drain a backlog', async () => {
    const q = await newQueue();
    const jobs = 40;
    for (let i = 0; i < jobs; i++) await q.sendOnce('t-backlog', { i }, `k${i}`);
    let done = 0;
    let turns = 0;
    let counting = true;
    const countTurns = (): void => {
      if (!counting) return;
      turns++;
      setImmediate(countTurns);
    };
    setImmediate(countTurns);
    await q.work(
      't-backlog',
      async () => {
        await b.store.db.query('SELECT 1');
        await b.store.db.query('SELECT 2');
        done++;
      },
      { concurrency: 4 },
    );
    await until('backlog drained', () => done === jobs);
    counting = false;
    // Each worker yields before its fetch and before its job, at most once per turn: four workers
    // need at least jobs / 2 turns. Chained without yielding, the loop turned once in all.
    expect(turns).toBeGreaterThanOrEqual(jobs / 4);
  });

  it('never runs two jobs of a scheduled queue at once (the sweep), whatever the worker concurrency', async () => {
    const q = await newQueue();
    let running = 0;
    let most = 0;
    let done = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // As the app does: the worker first, then the schedule.
    await q.work(
      't-single',
      async () => {
        running++;
        most = Math.max(most, running);
        await gate;
        running--;
        done++;
      },
      { concurrency: 3 },
    );
    await q.schedule('t-single', '0 0 1 1 *');
    expect(await q.boss.getQueue('t-single')).toMatchObject({ policy: 'singleton' });
    for (let i = 0; i < 3; i++) await q.send('t-single', { i });
    await until('first job running', () => running === 1);
    // Give the other workers every chance to take a second job while the first one runs.
    for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setTimeout(resolve, 10));
    release();
    await until('all jobs done', () => done === 3);
    expect(most).toBe(1);
    // A restarted process registers its worker before its schedule: the queue stays singleton.
    const again = await newQueue();
    await again.work('t-single', async () => undefined);
    expect(await again.boss.getQueue('t-single')).toMatchObject({ policy: 'singleton' });
  });

  it('tells where a job sent once stands, and calls an ended job over only after a grace period', async () => {
    const q = await newQueue();
    expect(await q.jobState('t-state', 'k')).toBe('missing');
    await q.sendOnce('t-state', { n: 1 }, 'k');
    expect(await q.jobState('t-state', 'k')).toBe('pending');
    let ran = 0;
    await q.work('t-state', async () => {
      ran++;
    });
    await until('job ran', () => ran === 1);
    await until('job completed', async () => (await q.counts()).active === 0 && (await q.counts()).queued === 0);
    // Just ended: a handler that outlived its expiry could still be at work.
    expect(await q.jobState('t-state', 'k')).toBe('active');
    await b.store.db.query(`UPDATE ${bossSchema}.job SET completed_on = now() - interval '11 minutes' WHERE id = $1`, [
      jobIdFor('t-state', 'k'),
    ]);
    expect(await q.jobState('t-state', 'k')).toBe('over');
    // Archived by pg-boss's maintenance, it is still found, and still over.
    await b.store.db.query(
      `WITH moved AS (DELETE FROM ${bossSchema}.job WHERE id = $1 RETURNING *) INSERT INTO ${bossSchema}.archive SELECT * FROM moved`,
      [jobIdFor('t-state', 'k')],
    );
    expect(await q.jobState('t-state', 'k')).toBe('over');
  });

  it('lets a job in flight finish on a graceful stop', async () => {
    const q = await newQueue();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = false;
    let finished = false;
    await q.work('t-graceful', async () => {
      started = true;
      await gate;
      finished = true;
    });
    await q.send('t-graceful', {});
    await until('started', () => started);
    const stopping = q.stop({ graceful: true, timeoutMs: 20_000 });
    setTimeout(release, 200);
    await stopping;
    open.splice(open.indexOf(q), 1);
    expect(finished).toBe(true);
    const left = await b.store.db.query(`SELECT state FROM ${bossSchema}.job WHERE name = 't-graceful'`);
    expect(left.rows.map((r) => r.state)).toEqual(['completed']);
  });

  it('finishes, once in effect, a delivery whose worker stopped in the middle', async () => {
    appliedCount = {};
    const q1 = await newQueue();
    const deps1 = testDeps(b.store, q1);
    let firstStarted = false;
    // The first worker applies half of its effects, then hangs (as if the process stalled).
    const first = deliveryJob(deps1, async (d, delivery) => {
      await applyOnce(d, `${delivery.id}:comment`);
      firstStarted = true;
      await new Promise(() => undefined);
    });
    await q1.work(DELIVERY_QUEUE, first.handler, first.options);
    await intakeDelivery(b.store, q1, { id: 'mid', name: 'push', payload: {} });
    await until('first worker started', () => firstStarted);
    await q1.stop({ graceful: false });
    open.splice(open.indexOf(q1), 1);

    const q2 = await newQueue();
    const deps2 = testDeps(b.store, q2);
    const second = deliveryJob(deps2, async (d, delivery) => {
      await applyOnce(d, `${delivery.id}:comment`);
      await applyOnce(d, `${delivery.id}:label`);
    });
    await q2.work(DELIVERY_QUEUE, second.handler, second.options);
    await until('delivery done', async () => (await b.store.getDelivery('mid'))?.doneAt);
    const actions = await b.store.db.query(`SELECT key, result FROM applied_actions ORDER BY key`);
    expect(actions.rows).toEqual([
      { key: 'mid:comment', result: { applied: 1 } },
      { key: 'mid:label', result: { applied: 1 } },
    ]);
    expect(appliedCount).toEqual({ 'mid:comment': 1, 'mid:label': 1 });
  });
});

let appliedCount: Record<string, number> = {};
/** An idempotent effect, as the executor applies them: skipped when its key was recorded. */
async function applyOnce(
  deps: {
    store: {
      getAppliedAction(k: string): Promise<unknown>;
      recordAppliedAction(k: string, r: unknown, at: string): Promise<void>;
    };
  },
  key: string,
): Promise<void> {
  if ((await deps.store.getAppliedAction(key)) !== null) return;
  appliedCount[key] = (appliedCount[key] ?? 0) + 1;
  await deps.store.recordAppliedAction(key, { applied: appliedCount[key] }, '2026-01-01T00:00:00Z');
}
