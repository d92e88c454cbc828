// Test helpers for intake: a database that records each transaction's statements, and a queue
// whose job insert can be held at a gate or made to fail inside the intake's transaction.
import type { Queue } from '../../src/jobs/queue.ts';
import type { Db, Queryable } from '../../src/store/db.ts';

/** The database, with each transaction's statements recorded by their first words. */
export function recordingDb(db: Db): { db: Db; transactions: string[][] } {
  const transactions: string[][] = [];
  const firstWords = (sql: string) => sql.trim().split(/\s+/).slice(0, 3).join(' ');
  return {
    transactions,
    db: {
      kind: db.kind,
      query: (text, params) => db.query(text, params),
      exec: (text) => db.exec(text),
      executeSql: (text, values) => db.executeSql(text, values),
      close: () => db.close(),
      transaction(fn) {
        const statements: string[] = [];
        transactions.push(statements);
        return db.transaction((tx) =>
          fn({
            query(text, params) {
              statements.push(firstWords(text));
              return tx.query(text, params);
            },
            exec(text) {
              statements.push(firstWords(text));
              return tx.exec(text);
            },
          }),
        );
      },
    },
  };
}

/** The queue, whose job insert can be held at a gate or made to fail (after the deliveries were written in the same transaction). */
export function faultyQueue(queue: Queue) {
  let gate: Promise<void> | undefined;
  let open: (() => void) | undefined;
  let reachedGate: (() => void) | undefined;
  const o = {
    failing: false,
    queue: {
      ...queue,
      async insertOnce(name: string, jobs: { key: string; data: Record<string, unknown> }[], tx: Queryable) {
        if (gate) {
          const g = gate;
          gate = undefined;
          reachedGate?.();
          await g;
        }
        if (o.failing) throw new Error('the job insert failed');
        return queue.insertOnce(name, jobs, tx);
      },
    } satisfies Queue,
    /** Holds the next job insert; resolves once a commit is held there. */
    hold(): Promise<void> {
      gate = new Promise<void>((resolve) => (open = resolve));
      return new Promise<void>((resolve) => (reachedGate = resolve));
    },
    release: () => open?.(),
  };
  return o;
}
