// Test helper: opens a store on PGlite (a temp folder) or on the test PostgreSQL (a schema of
// its own per test file, dropped at the end), and empties the tables between tests (DELETE: TRUNCATE costs an fsync per table).
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createHash } from 'node:crypto';
import { MIGRATIONS } from '../../src/store/migrations.ts';
import { createStore, type StoreWithDb } from '../../src/store/store.ts';

const MIGRATION_FINGERPRINT = createHash('sha256').update(JSON.stringify(MIGRATIONS)).digest('hex').slice(0, 12);

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type BackendName = 'pglite' | 'postgres';
export const BACKENDS: BackendName[] = ['pglite', 'postgres'];

export interface OpenedBackend {
  store: StoreWithDb;
  /** The PostgreSQL schema (postgres only) or the PGlite folder. */
  where: string;
  truncate(): Promise<void>;
  dispose(): Promise<void>;
}

const TABLES = [
  'deliveries',
  'changes',
  'candidates',
  'rounds',
  'patches',
  'evidence',
  'receipts',
  'events',
  'applied_actions',
  'repairs',
  'model_budgets',
  'repo_config',
  'portfolios',
  'portfolio_slots',
  'portfolio_deep',
  'portfolio_readings',
  'kept_check_events',
];

export const uniqueSchema = (tag: string): string =>
  `t_${tag.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}_${Math.floor(Math.random() * 1e6)}`;

export async function dropSchema(schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await c.end();
  }
}

/**
 * A fresh PGlite folder for a test. Creating one runs initdb (seconds); copying a migrated
 * template is much faster, so the first test file to need one builds it and the rest copy it.
 */
export async function freshPgliteDir(tag: string): Promise<string> {
  const template = path.join(os.tmpdir(), `arbiter-pglite-template-${MIGRATION_FINGERPRINT}`);
  if (!existsSync(template)) {
    const building = mkdtempSync(path.join(os.tmpdir(), 'arbiter-pglite-building-'));
    const s = await createStore({ dataDir: building });
    await s.close();
    try {
      renameSync(building, template);
    } catch {
      rmSync(building, { recursive: true, force: true }); // another file built it first
    }
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), `arbiter-${tag}-`));
  cpSync(template, dir, { recursive: true });
  return dir;
}

export async function openBackend(name: BackendName, tag: string): Promise<OpenedBackend> {
  if (name === 'pglite') {
    const dir = await freshPgliteDir(tag);
    const store = await createStore({ dataDir: dir });
    return {
      store,
      where: dir,
      truncate: () => store.db.exec(TABLES.map((t) => `DELETE FROM ${t};`).join('\n')),
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = uniqueSchema(tag);
  const store = await createStore({ databaseUrl: TEST_DATABASE_URL, schema });
  return {
    store,
    where: schema,
    truncate: () => store.db.exec(TABLES.map((t) => `DELETE FROM ${t};`).join('\n')),
    async dispose() {
      await store.close();
      await dropSchema(schema);
    },
  };
}
