// Group-committed intake on PGlite and PostgreSQL: deliveries that arrive during a commit go in
// one transaction (one insert into deliveries, one into the job queue), each is recorded once
// with one job, redeliveries add nothing, and a failed commit leaves nothing and answers an error.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  commitDeliveries,
  createDeliveryIntake,
  DELIVERY_QUEUE,
  type IncomingDelivery,
} from '../../src/jobs/delivery-job.ts';
import { createQueue, jobIdFor, type Queue } from '../../src/jobs/queue.ts';
import { storeOver, type StoreWithDb } from '../../src/store/store.ts';
import { BACKENDS, openBackend, type OpenedBackend } from '../store/backends.ts';
import { faultyQueue, recordingDb } from './intake-faults.ts';
import { silentLog } from './test-deps.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const delivery = (id: string): IncomingDelivery => ({ id, name: 'pull_request', payload: { action: 'opened', id } });

describe.each(BACKENDS)('group-committed intake on %s', (backend) => {
  let b: OpenedBackend;
  let bossSchema: string;
  let base: Queue;
  let rec: ReturnType<typeof recordingDb>;
  let store: StoreWithDb;
  let faults: ReturnType<typeof faultyQueue>;

  beforeAll(async () => {
    b = await openBackend(backend, 'intake');
    bossSchema = backend === 'postgres' ? `${b.where}_boss` : 'pgboss';
    base = await createQueue(b.store.db, { log: silentLog, fast: true, schema: bossSchema });
    await base.prepare(DELIVERY_QUEUE);
  });
  afterAll(async () => {
    await base?.stop({ graceful: false });
    if (backend === 'postgres') await b.store.db.exec(`DROP SCHEMA IF EXISTS ${bossSchema} CASCADE`);
    await b?.dispose();
  });
  beforeEach(async () => {
    await b.truncate();
    await b.store.db.exec(`DELETE FROM ${bossSchema}.job`);
    rec = recordingDb(b.store.db);
    store = storeOver(rec.db);
    faults = faultyQueue(base);
  });
  afterEach(() => faults.release());

  const recorded = async () =>
    (await b.store.db.query('SELECT id, count(*)::int AS n FROM deliveries GROUP BY id ORDER BY id')).rows.map(
      (r) => `${String(r.id)}×${String(r.n)}`,
    );
  const jobs = async () =>
    (
      await b.store.db.query(
        `SELECT id, data->>'id' AS delivery FROM ${bossSchema}.job WHERE name = $1 ORDER BY data->>'id'`,
        [DELIVERY_QUEUE],
      )
    ).rows.map((r) => {
      expect(r.id).toBe(jobIdFor(DELIVERY_QUEUE, String(r.delivery)));
      return String(r.delivery);
    });

  it('commits the deliveries that arrive during a commit together, in one transaction, each once with one job', async () => {
    const intake = createDeliveryIntake(store, faults.queue, { inFlight: 1 });
    const held = faults.hold();
    const first = intake.submit(delivery('d1'));
    await held; // d1's transaction has written its row and waits before its job insert
    // Ten arrive meanwhile: eight new ones, a second copy of d5 and a redelivery of d1 (in flight).
    const ids = ['d2', 'd3', 'd4', 'd5', 'd5', 'd6', 'd7', 'd8', 'd9', 'd1'];
    const rest = ids.map((id) => intake.submit(delivery(id)));
    await turn();
    faults.release();
    expect(await first).toBe('queued');
    expect(await Promise.all(rest)).toEqual([
      'queued',
      'queued',
      'queued',
      'queued',
      'redelivery',
      'queued',
      'queued',
      'queued',
      'queued',
      'redelivery',
    ]);
    expect(intake.stats()).toEqual({ groups: 2, items: 11, largest: 10 });
    // One multi-row insert into deliveries, one job insert; only for redeliveries, a re-arm of
    // those whose job failed for good and a look at done_at.
    expect(rec.transactions).toEqual([
      ['INSERT INTO deliveries', 'WITH defaults as'],
      ['INSERT INTO deliveries', 'UPDATE deliveries SET', 'SELECT id, done_at', 'WITH defaults as'],
    ]);
    const all = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9'];
    expect(await recorded()).toEqual(all.map((id) => `${id}×1`));
    expect(await jobs()).toEqual(all);
    // The first copy of d5 is the one recorded.
    expect((await b.store.getDelivery('d5'))?.payload).toEqual({ action: 'opened', id: 'd5' });
  });

  it('answers a redelivery across groups once recorded: a job only while the delivery is not done', async () => {
    const intake = createDeliveryIntake(store, faults.queue);
    expect(await intake.submit(delivery('r1'))).toBe('queued');
    expect(await intake.submit(delivery('r2'))).toBe('queued');
    expect(await intake.submit(delivery('r1'))).toBe('redelivery');
    expect(await jobs()).toEqual(['r1', 'r2']);

    // Both jobs gone (finished and archived, or lost); r1 was processed, r2 was not.
    await b.store.db.exec(`DELETE FROM ${bossSchema}.job`);
    await b.store.markDeliveryDone('r1');
    expect(await Promise.all([intake.submit(delivery('r1')), intake.submit(delivery('r2'))])).toEqual([
      'redelivery',
      'redelivery',
    ]);
    expect(await recorded()).toEqual(['r1×1', 'r2×1']);
    expect(await jobs()).toEqual(['r2']); // the done one is only acknowledged
  });

  it('rejects every delivery of a failed commit, keeps none of them, and commits them when they come again', async () => {
    const intake = createDeliveryIntake(store, faults.queue);
    expect(await intake.submit(delivery('ok-before'))).toBe('queued');
    faults.failing = true;
    const doomed = ['f1', 'f2', 'f3', 'f2'].map((id) =>
      intake.submit(delivery(id)).then(
        () => 'answered',
        (e: unknown) => (e as Error).message.replace(/ \(in: .*\)$/, ''),
      ),
    );
    expect(await Promise.all(doomed)).toEqual(Array(4).fill('the job insert failed'));
    // The rows were written before the job insert failed, in the same transaction: rolled back.
    expect(await recorded()).toEqual(['ok-before×1']);
    expect(await jobs()).toEqual(['ok-before']);

    faults.failing = false;
    expect(await Promise.all(['f1', 'f2', 'f3'].map((id) => intake.submit(delivery(id))))).toEqual([
      'queued',
      'queued',
      'queued',
    ]);
    expect(await recorded()).toEqual(['f1×1', 'f2×1', 'f3×1', 'ok-before×1']);
    expect(await jobs()).toEqual(['f1', 'f2', 'f3', 'ok-before']);
  });

  it('records each id once when groups sharing ids, in different orders, commit at the same time', async () => {
    const intake = createDeliveryIntake(store, faults.queue, { inFlight: 3 });
    const answers: Promise<string>[] = [];
    for (const group of [
      ['a', 'b', 'c'],
      ['c', 'b', 'a'],
      ['b', 'd', 'a', 'c'],
      ['d', 'c'],
    ]) {
      answers.push(...group.map((id) => intake.submit(delivery(id)).then((r) => `${id}:${r}`)));
      await turn();
    }
    const settled = await Promise.all(answers);
    expect(settled.filter((s) => s.endsWith(':queued')).sort()).toEqual([
      'a:queued',
      'b:queued',
      'c:queued',
      'd:queued',
    ]);
    expect(settled.filter((s) => s.endsWith(':redelivery'))).toHaveLength(8);
    expect(await recorded()).toEqual(['a×1', 'b×1', 'c×1', 'd×1']);
    expect(await jobs()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('opens no transaction for an empty group', async () => {
    expect(await commitDeliveries(store, faults.queue, [])).toEqual([]);
    expect(rec.transactions).toEqual([]);
  });
});
