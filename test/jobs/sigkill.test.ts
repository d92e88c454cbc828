// A process is SIGKILLed in the middle of a delivery job on PGlite; a new process on the same
// folder returns the job to the queue and finishes it, with every effect applied once.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DELIVERY_QUEUE, deliveryJob } from '../../src/jobs/delivery-job.ts';
import { createQueue } from '../../src/jobs/queue.ts';
import { createStore } from '../../src/store/store.ts';
import { freshPgliteDir } from '../store/backends.ts';
import { silentLog, testDeps } from './test-deps.ts';
import { until } from './wait.ts';

const CHILD = fileURLToPath(new URL('./fixtures/hang-in-job.ts', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function runUntilInJobThenKill(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.stdout.on('data', (d) => {
      if (String(d).includes('in-job')) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited ${code}: ${stderr}`)),
    );
  });
}

describe('a SIGKILLed process on PGlite', () => {
  it('leaves its job to the next process, which finishes it once in effect', { timeout: 180_000 }, async () => {
    const dir = await freshPgliteDir('jobkill');
    dirs.push(dir);
    await runUntilInJobThenKill(dir);

    const store = await createStore({ dataDir: dir });
    const queue = await createQueue(store.db, { log: silentLog, fast: true });
    try {
      const handled: string[] = [];
      const job = deliveryJob(testDeps(store, queue), async (d, delivery) => {
        handled.push(delivery.id);
        for (const effect of ['comment', 'label']) {
          if ((await d.store.getAppliedAction(`${delivery.id}:${effect}`)) === null) {
            await d.store.recordAppliedAction(`${delivery.id}:${effect}`, { by: 'second' }, '2026-01-01T00:00:01Z');
          }
        }
      });
      await queue.work(DELIVERY_QUEUE, job.handler, job.options);
      await until('delivery done', async () => (await store.getDelivery('killed-mid-job'))?.doneAt, 60_000);
      expect(handled).toEqual(['killed-mid-job']);
      expect(await store.getAppliedAction('killed-mid-job:comment')).toEqual({ by: 'first' });
      expect(await store.getAppliedAction('killed-mid-job:label')).toEqual({ by: 'second' });
      expect((await store.getDelivery('killed-mid-job'))?.error).toBeNull();
    } finally {
      await queue.stop({ graceful: false });
      await store.close();
    }
  });
});
