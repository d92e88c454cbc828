// Reliability: "Redeliver" on GitHub (the same X-GitHub-Delivery) of a webhook whose job failed
// for good, through the real server in process (Probot's middleware, the intake, the queue with
// its retries): it runs again. A webhook that was processed is only acknowledged when it comes
// again.
import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/handlers/index.ts';
import { startArbiter, type RunningArbiter } from '../../src/main.ts';
import { issuePayload, postWebhook, serverEnv } from '../app/helpers.ts';
import { until } from '../jobs/wait.ts';
import { freshPgliteDir } from '../store/backends.ts';

const SECRET = 'redeliver-failed-secret';

describe('a webhook whose job failed for good, redelivered', () => {
  const runs: string[] = [];
  let broken = true;
  let dir = '';
  let app: RunningArbiter;

  beforeAll(async () => {
    dir = await freshPgliteDir('redeliver-failed');
    const env = serverEnv(SECRET, {
      ARBITER_DATA_DIR: dir,
    });
    app = await startArbiter(env, {
      log: pino({ level: 'silent' }),
      // The queue's short polling and retry delays (every attempt fails within seconds).
      queue: { fast: true },
      scheduleSweep: false,
      handle: async (_deps, d: Delivery) => {
        runs.push(`${d.id}: ${broken ? 'failed' : 'ran'}`);
        if (broken) throw new Error('GitHub refused every try');
      },
      sweep: async () => undefined,
      recover: async () => undefined,
    });
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs again; once processed, a further redelivery is only acknowledged', { timeout: 120_000 }, async () => {
    const post = () =>
      postWebhook(app.port, { id: 'dlv-1', event: 'issues', payload: issuePayload(7), secret: SECRET });
    expect((await post()).status).toBe(200);
    // Every attempt fails: the queue gives up, and the delivery reads as failed for good.
    await until(
      'failed for good',
      async () => (runs.length >= 5 && (await health()).active === 0 ? true : undefined),
      90_000,
    );
    expect(new Set(runs)).toEqual(new Set(['dlv-1: failed']));
    const failedRuns = runs.length;

    broken = false;
    expect((await post()).status).toBe(200);
    await until('ran again', () => runs.includes('dlv-1: ran'), 60_000);
    expect((await post()).status).toBe(200);
    await until('idle', async () => ((await health()).active + (await health()).queued === 0 ? true : undefined));
    expect(runs.slice(failedRuns)).toEqual(['dlv-1: ran']);
  });

  const health = async () => {
    const res = await fetch(`http://127.0.0.1:${app.port}/arbiter/health`);
    const body = (await res.json()) as { queue: { active: number; queued: number } };
    return body.queue;
  };
});
