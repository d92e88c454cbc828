// The intake when the database does not answer: an embedded PGlite cannot be unreachable, but it
// can be held (one statement at a time: a long transaction ahead of the intake's) or closed. Both
// answer 503 (IntakeUnavailable) instead of waiting for Probot's 202 after 9 s; a commit that
// fails for another reason keeps its own error (500).
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryIntake, DELIVERY_QUEUE, IntakeUnavailable, submitWithin } from '../../src/jobs/delivery-job.ts';
import { createQueue, type Queue } from '../../src/jobs/queue.ts';
import { createStore, type StoreWithDb } from '../../src/store/store.ts';
import { freshPgliteDir } from '../store/backends.ts';
import { silentLog } from './test-deps.ts';

const delivery = (id: string) => ({ id, name: 'issues', payload: { action: 'opened' } });
const outcome = (p: Promise<unknown>) =>
  p.then(
    (r) => `answered ${String(r)}`,
    (e: unknown) =>
      e instanceof IntakeUnavailable ? `${e.status}: ${e.message.split(':')[0]}` : `error: ${(e as Error).message}`,
  );

describe('the intake on an embedded PGlite that does not answer', () => {
  let dir: string;
  let store: StoreWithDb;
  let queue: Queue;
  beforeAll(async () => {
    dir = await freshPgliteDir('deadline');
    store = await createStore({ dataDir: dir });
    queue = await createQueue(store.db, { log: silentLog, fast: true });
    await queue.prepare(DELIVERY_QUEUE);
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false }).catch(() => undefined);
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 while a long transaction holds the database, and records the delivery once it lets go', async () => {
    const intake = createDeliveryIntake(store, queue);
    let release!: () => void;
    const held = store.db.transaction(() => new Promise<void>((resolve) => (release = resolve)));
    expect(await outcome(submitWithin(intake, delivery('held-1'), 200))).toBe(
      '503: the database did not answer within 200 ms',
    );
    release();
    await held;
    // The commit went on after the answer: the delivery is recorded, so the recovery skips it.
    await expect.poll(async () => (await store.getDelivery('held-1'))?.id, { timeout: 10_000 }).toBe('held-1');
    expect(await outcome(submitWithin(intake, delivery('held-2'), 200))).toBe('answered queued');
  });

  it('answers 500 to a commit the database refused, and 503 once the database is closed', async () => {
    const refusing = { submit: () => Promise.reject(new Error('the job insert failed')) };
    expect(await outcome(submitWithin(refusing, delivery('refused')))).toBe('error: the job insert failed');
    await queue.stop({ graceful: false });
    await store.close();
    expect(await outcome(submitWithin(createDeliveryIntake(store, queue), delivery('closed')))).toBe(
      '503: the database does not answer',
    );
  });
});
