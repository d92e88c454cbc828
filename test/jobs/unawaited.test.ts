// pg-boss marks a worker's job done (or failed) without awaiting the statement: when the database
// does not answer it, the queue logs and leaves the job to expire and run again, and the process
// sees no unhandled rejection (which would end it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue, unawaitedCommands } from '../../src/jobs/queue.ts';
import type { Db } from '../../src/store/db.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import pino from 'pino';
import { until } from './wait.ts';

describe('statements pg-boss does not await', () => {
  let b: OpenedBackend;
  beforeAll(async () => {
    b = await openBackend('pglite', 'queue-unawaited');
  });
  afterAll(async () => b?.dispose());

  it("are pg-boss's completion and failure of a job", () => {
    const texts = [...unawaitedCommands('pgboss')];
    expect(texts).toHaveLength(2);
    expect(texts.every((t) => t.includes('pgboss.job'))).toBe(true);
  });

  it('never reject: a completion the database refuses leaves the job active, with a warning', async () => {
    const unawaited = unawaitedCommands('pgboss');
    let refused = 0;
    const db: Db = {
      ...b.store.db,
      query: (text, values) => b.store.db.query(text, values),
      exec: (text) => b.store.db.exec(text),
      transaction: (fn) => b.store.db.transaction(fn),
      close: async () => undefined,
      executeSql: async (text, values) => {
        if (unawaited.has(text)) {
          refused++;
          throw new Error('connection terminated');
        }
        return b.store.db.executeSql(text, values);
      },
    };
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    const q = await createQueue(db, { log, fast: true });
    let ran = 0;
    await q.send('t-unawaited', {});
    await q.work('t-unawaited', async () => {
      ran++;
    });
    await until('the completion was refused', () => refused > 0);
    expect(ran).toBe(1);
    expect(warnings.some((w) => w.includes('could not be marked done'))).toBe(true);
    expect((await q.counts()).active).toBe(1);
    await q.stop({ graceful: false });
  });
});
