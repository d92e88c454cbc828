// claimAppliedAction and getAppliedActions: one statement records a result unless one is there, and answers the stored
// one. Many callers at once, from two connections, all read the first caller's result.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStore, type StoreWithDb } from '../../src/store/store.ts';
import { BACKENDS, openBackend, TEST_DATABASE_URL, type OpenedBackend } from './backends.ts';

const AT = '2026-03-02T09:00:00.000Z';

describe.each(BACKENDS)('claimAppliedAction on %s', (backend) => {
  let b: OpenedBackend;
  beforeAll(async () => {
    b = await openBackend(backend, 'claim');
  });
  afterAll(async () => b?.dispose());
  beforeEach(async () => b.truncate());

  it('records the first result and answers it to every later caller', async () => {
    expect(await b.store.claimAppliedAction('claim:k', { token: 'a' }, AT)).toEqual({
      result: { token: 'a' },
      inserted: true,
    });
    expect(await b.store.claimAppliedAction('claim:k', { token: 'b' }, AT)).toEqual({
      result: { token: 'a' },
      inserted: false,
    });
    expect(await b.store.getAppliedAction('claim:k')).toEqual({ token: 'a' });
  });

  it('reads the recorded results of many keys at once, leaving out keys without one', async () => {
    await b.store.recordAppliedAction('a', { id: 1 }, AT);
    await b.store.recordAppliedAction('b', null, AT);
    const found = await b.store.getAppliedActions(['a', 'b', 'missing']);
    expect([...found.entries()].sort()).toEqual([
      ['a', { id: 1 }],
      ['b', {}],
    ]);
    expect((await b.store.getAppliedActions([])).size).toBe(0);
  });

  it('gives every concurrent caller the same holder', async () => {
    // On PostgreSQL a second store is a second connection pool into the same schema.
    const other: StoreWithDb | null =
      backend === 'postgres' ? await createStore({ databaseUrl: TEST_DATABASE_URL, schema: b.where }) : null;
    try {
      for (let trial = 0; trial < 20; trial++) {
        const key = `claim:race-${trial}`;
        const stores = other ? [b.store, other] : [b.store];
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            stores[i % stores.length]!.claimAppliedAction(key, { token: `t${i}` }, AT),
          ),
        );
        const holders = new Set(answers.map((a) => JSON.stringify(a.result)));
        expect(holders.size).toBe(1);
        expect(answers.filter((a) => a.inserted)).toHaveLength(1);
        expect(answers[0]?.result).toEqual(await b.store.getAppliedAction(key));
      }
    } finally {
      await other?.close();
    }
  });
});
