// Test helper: Deps for job tests, with a silent logger, a manual clock and a model client that
// must not be called.
import pino from 'pino';
import { ManualClock } from '../../src/clock.ts';
import type { Deps } from '../../src/deps.ts';
import type { Queue } from '../../src/jobs/queue.ts';
import type { Store } from '../../src/store/types.ts';

export const silentLog = pino({ level: 'silent' });

export function testDeps(store: Store, queue: Queue): Deps {
  return {
    store,
    queue,
    clock: new ManualClock(Date.parse('2026-01-01T00:00:00Z')),
    llm: {
      complete: async () => {
        throw new Error('no model calls in job tests');
      },
    },
    log: silentLog,
    octokitFor: async () => {
      throw new Error('no GitHub in job tests');
    },
    appSlug: 'arbiter',
  };
}
