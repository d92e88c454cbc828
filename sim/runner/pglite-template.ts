// A fresh PGlite folder costs an initdb (about 4 s on a quiet 2-core machine, 30 s under load);
// reopening one costs well under a second. Each scenario therefore starts from a copy of a
// template folder that was created once (migrations, the job queue's schema and the app's two
// queues applied, then closed cleanly) and is kept in the OS temp folder, keyed by what shapes
// its contents.
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const READY = 'arbiter-template-ready';

/** Changes whenever the migrations, the queue setup or the PGlite / pg-boss versions change. */
async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [
    'src/store/migrations.ts',
    'src/store/db.ts',
    'src/jobs/queue.ts',
    'src/jobs/delivery-job.ts',
    'src/jobs/sweep-job.ts',
    'package-lock.json',
  ]) {
    hash.update(await readFile(join(REPO_ROOT, file)).catch(() => Buffer.from(file)));
  }
  return hash.digest('hex').slice(0, 16);
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

let building: Promise<string | null> | null = null;

async function buildTemplate(): Promise<string | null> {
  const target = join(tmpdir(), `arbiter-pglite-template-${await templateKey()}`);
  if (await exists(join(target, READY))) return target;
  // Built in a folder of its own, then renamed into place: concurrent runners never see half a template.
  const scratch = await mkdtemp(join(tmpdir(), 'arbiter-pglite-build-'));
  const data = join(scratch, 'data');
  try {
    const { createStore } = await import('../../src/store/store.ts');
    const { createQueue } = await import('../../src/jobs/queue.ts');
    const { DELIVERY_QUEUE } = await import('../../src/jobs/delivery-job.ts');
    const { SWEEP_QUEUE } = await import('../../src/deps.ts');
    const { default: pino } = await import('pino');
    const store = await createStore({ dataDir: data });
    const queue = await createQueue(store.db, { log: pino({ level: 'silent' }), fast: true });
    // Each queue is a table partition of its own: created here once instead of at every start.
    for (const name of [DELIVERY_QUEUE, SWEEP_QUEUE]) await queue.prepare(name);
    await queue.stop({ graceful: false });
    await store.close();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(data, READY), new Date().toISOString());
    await rename(data, target).catch(() => {});
    return (await exists(join(target, READY))) ? target : null;
  } catch {
    return null;
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Fills `dataDir` (empty) from the template, building the template first if needed. Returns
 * false when no template could be made; the app then creates its store from scratch as usual.
 */
export async function seedPgliteFolder(dataDir: string): Promise<boolean> {
  building ??= buildTemplate();
  const template = await building;
  if (!template) return false;
  await cp(template, dataDir, { recursive: true, filter: (src) => !src.endsWith(READY) });
  return true;
}
