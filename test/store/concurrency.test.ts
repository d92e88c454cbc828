// Races that only a real PostgreSQL can show (PGlite is one connection): two replicas migrating
// at once, two connections claiming one round, budgets and repairs taken from many connections.
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../src/store/migrations.ts';
import { createStore, type StoreWithDb } from '../../src/store/store.ts';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from './backends.ts';

const schemas: string[] = [];
const stores: StoreWithDb[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  for (const s of schemas) await dropSchema(s);
});

async function twoReplicas(tag: string): Promise<[StoreWithDb, StoreWithDb]> {
  const schema = uniqueSchema(tag);
  schemas.push(schema);
  // Both start at once on an empty schema: each runs the migrations.
  const pair = await Promise.all([
    createStore({ databaseUrl: TEST_DATABASE_URL, schema }),
    createStore({ databaseUrl: TEST_DATABASE_URL, schema }),
  ]);
  stores.push(...pair);
  return pair;
}

describe('on PostgreSQL, replicas racing', () => {
  it('migrates once when two stores start at the same moment', async () => {
    const [a, b] = await twoReplicas('migr');
    const rows = await a.db.query('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    // Running again (a third replica) applies nothing.
    expect(await migrate(b.db)).toEqual([]);
    // A migration added later is applied by exactly one of two concurrent callers.
    const extra = [...MIGRATIONS, { version: 999, name: 'extra', sql: 'CREATE TABLE extra_t (x int)' }];
    const ran = await Promise.all([migrate(a.db, extra), migrate(b.db, extra)]);
    expect(ran.flat()).toEqual([999]);
  });

  it('gives a round to exactly one of two connections', async () => {
    const [a, b] = await twoReplicas('claim');
    for (let i = 0; i < 20; i++) {
      const round = await a.currentRound('acme/todo', i, 'main', '2026-01-01T00:00:00Z');
      const results = await Promise.all([a.claimRound(round.id, 'pr:12'), b.claimRound(round.id, 'pr:13')]);
      expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r === 'taken')).toHaveLength(1);
    }
  });

  it('never overdraws a model budget taken from many connections', async () => {
    const [a, b] = await twoReplicas('budget');
    const input = { installationId: 9, repo: 'acme/todo', change: 1, day: '2026-01-01', calls: 1 };
    const limits = { perChange: 7, dailyPerInstallation: 1000 };
    const takes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).takeModelBudget(input, limits)),
    );
    expect(takes.filter(Boolean)).toHaveLength(7);
    const row = await a.db.query(`SELECT calls FROM model_budgets WHERE scope = 'change'`);
    expect(row.rows[0]?.calls).toBe(7);
  });

  it('grants one repair per Change across connections', async () => {
    const [a, b] = await twoReplicas('repair');
    const got = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).claimRepair('acme/todo', 42, 10 + i, '2026-01-01T00:00:00Z'),
      ),
    );
    expect(got.filter(Boolean)).toHaveLength(1);
  });

  it('opens the next round once for concurrent callers', async () => {
    const [a, b] = await twoReplicas('next');
    await a.currentRound('acme/todo', 42, 'main', '2026-01-01T00:00:00Z');
    const next = await Promise.all(
      [a, b, a, b].map((s) => s.openNextRound('acme/todo', 42, 'main', 1, '2026-01-01T00:01:00Z')),
    );
    expect(new Set(next.map((r) => r.id)).size).toBe(1);
    expect(next[0]?.number).toBe(2);
  });
});
