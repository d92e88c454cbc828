// The database connection: one small interface over PGlite (embedded, one process owns the
// data folder) or a real PostgreSQL (pg.Pool, shared by replicas). Driver errors become StoreError.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { StoreError, wrapDriverError } from './errors.ts';

export type Row = Record<string, unknown>;

export interface QueryResult {
  rows: Row[];
  /** Rows inserted, updated or deleted by the statement (0 for a plain SELECT on PGlite). */
  rowCount: number;
}

/** What a statement can run on: the database itself or an open transaction. */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<QueryResult>;
  /** Runs one or more statements without parameters. */
  exec(text: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction (BEGIN … COMMIT, ROLLBACK on a throw). Serialised on PGlite. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** pg-boss's `db` option: multi-statement plans without values run as a script. */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  close(): Promise<void>;
}

export interface OpenDbOptions {
  /** A PostgreSQL connection string; when absent, PGlite is used. */
  databaseUrl?: string;
  /** PGlite data folder; default `.data/` under the working directory. */
  dataDir?: string;
  /** PostgreSQL only: a schema to create and put first on the search_path (tests, isolation). */
  schema?: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export const defaultDataDir = (): string => path.resolve(process.cwd(), '.data');

export async function openDb(opts: OpenDbOptions = {}): Promise<Db> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.schema, opts.poolSize ?? 10);
  return openPglite(opts.dataDir ?? defaultDataDir());
}

// ---------------------------------------------------------------------------------- PGlite

/**
 * PGlite's memory, measured in docs/PERFORMANCE.md: its WebAssembly memory cannot start below
 * 128 MB, and PostgreSQL's default 128 MB of shared buffers fills more of it as pages are read
 * (reopening a data folder took about 220 MB). One process owns the folder, data sets are small
 * and the OS caches the files, so 16 MB of buffers and a few connection slots (single-user mode
 * has one backend) are enough; that takes about 100 MB.
 */
export const PGLITE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  ...['-c', 'shared_buffers=16MB', '-c', 'max_connections=5'],
];

async function openPglite(dataDir: string): Promise<Db> {
  mkdirSync(dataDir, { recursive: true });
  let pglite: PGlite;
  try {
    // relaxedDurability stays off: every commit is written through before the call returns,
    // so a SIGKILLed process loses nothing it reported as committed.
    pglite = await PGlite.create({ dataDir, relaxedDurability: false, startParams: [...PGLITE_START_PARAMS] });
  } catch (err) {
    throw new StoreError('connect', `cannot open the PGlite data folder ${dataDir}: ${String(err)}`, { cause: err });
  }
  const run = async (text: string, params?: unknown[]): Promise<QueryResult> => {
    try {
      const res = await pglite.query<Row>(text, params ?? []);
      return { rows: res.rows, rowCount: res.affectedRows ?? 0 };
    } catch (err) {
      throw wrapDriverError(err, text);
    }
  };
  const exec = async (text: string): Promise<void> => {
    try {
      await pglite.exec(text);
    } catch (err) {
      // A failed script that opened a transaction (pg-boss's locked plans) would leave the
      // one PGlite connection in an aborted transaction: roll it back.
      if (pglite.isInTransaction()) await pglite.exec('ROLLBACK').catch(() => undefined);
      throw wrapDriverError(err, text);
    }
  };
  return {
    kind: 'pglite',
    query: run,
    exec,
    async transaction(fn) {
      try {
        return await pglite.transaction(async (tx) =>
          fn({
            async query(text, params) {
              try {
                const res = await tx.query<Row>(text, params ?? []);
                return { rows: res.rows, rowCount: res.affectedRows ?? 0 };
              } catch (err) {
                throw wrapDriverError(err, text);
              }
            },
            async exec(text) {
              try {
                await tx.exec(text);
              } catch (err) {
                throw wrapDriverError(err, text);
              }
            },
          }),
        );
      } catch (err) {
        throw wrapDriverError(err, 'transaction');
      }
    },
    async executeSql(text, values) {
      if ((!values || values.length === 0) && text.includes(';')) {
        await exec(text);
        return { rows: [] };
      }
      return run(text, values);
    },
    async close() {
      if (!pglite.closed) await pglite.close();
    },
  };
}

// ------------------------------------------------------------------------------ PostgreSQL

/**
 * A database that does not answer must not hold requests for ever: a connection is given up after
 * 2 s, a statement after 60 s on the server (statement_timeout), and, when no answer comes at
 * all (the network path is gone), after 65 s on the client (query_timeout). The webhook intake
 * answers much sooner (INTAKE_DEADLINE_MS in src/jobs/delivery-job.ts).
 */
export const POOL_TIMEOUTS = {
  connectionTimeoutMillis: 2_000,
  statement_timeout: 60_000,
  query_timeout: 65_000,
  keepAlive: true,
} as const;

async function openPostgres(url: string, schema: string | undefined, max: number): Promise<Db> {
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new StoreError('connect', `invalid schema name ${JSON.stringify(schema)}`);
  }
  if (schema) {
    const admin = new pg.Client({ connectionString: url, ...POOL_TIMEOUTS });
    try {
      await admin.connect();
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch(async (err: unknown) => {
        // Two processes creating the same schema at once: the loser sees a unique violation.
        const exists = await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
        if (exists.rowCount === 0) throw err;
      });
    } catch (err) {
      throw new StoreError('connect', `cannot prepare schema ${schema}: ${String(err)}`, { cause: err });
    } finally {
      await admin.end().catch(() => undefined);
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max,
    ...POOL_TIMEOUTS,
    ...(schema ? { options: `-c search_path=${schema},public` } : {}),
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new StoreError('connect', `cannot connect to PostgreSQL: ${String(err)}`, { cause: err });
  }
  const toResult = (res: pg.QueryResult<Row> | pg.QueryResult<Row>[]): QueryResult => {
    const last = Array.isArray(res) ? res[res.length - 1] : res;
    return { rows: last?.rows ?? [], rowCount: last?.rowCount ?? 0 };
  };
  const run = async (client: pg.Pool | pg.PoolClient, text: string, params?: unknown[]): Promise<QueryResult> => {
    try {
      return toResult(await client.query<Row>(text, params));
    } catch (err) {
      throw wrapDriverError(err, text);
    }
  };
  return {
    kind: 'postgres',
    query: (text, params) => run(pool, text, params),
    exec: async (text) => {
      await run(pool, text);
    },
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw new StoreError('connect', `cannot get a connection: ${String(err)}`, { cause: err });
      }
      try {
        await run(client, 'BEGIN');
        const out = await fn({
          query: (text, params) => run(client, text, params),
          exec: async (text) => {
            await run(client, text);
          },
        });
        await run(client, 'COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw wrapDriverError(err, 'transaction');
      } finally {
        client.release();
      }
    },
    executeSql: (text, values) => run(pool, text, values),
    async close() {
      if (!pool.ended && !pool.ending) await pool.end();
    },
  };
}
