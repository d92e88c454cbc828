// Scenario-runner control, mounted only when ARBITER_SIM_CONTROL=1: POST /arbiter/sim/clock moves
// the virtual clock and runs the sweep before answering; GET /arbiter/sim/idle says whether any
// job or webhook request is still in flight, and once none is, when the earliest deferred job is due.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { ManualClock } from './clock.ts';
import { pathOf, sendJson } from './health.ts';
import type { QueueCounts } from './jobs/queue.ts';

export const SIM_CLOCK_PATH = '/arbiter/sim/clock';
export const SIM_IDLE_PATH = '/arbiter/sim/idle';

export interface SimControlSources {
  clock: ManualClock;
  /** Runs the sweep on the current (virtual) time. */
  sweep(): Promise<void>;
  counts(): Promise<QueueCounts>;
  /** The earliest due time of a deferred job (a rate limit's wait), on the app's clock. */
  nextDue(): Promise<Date | null>;
  /** Webhook requests received and not yet answered. */
  inflight(): number;
}

const ClockBody = z.object({ now: z.number().int().nonnegative() });
const MAX_BODY = 64 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += b.length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export function simControlHandler(src: SimControlSources) {
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void>> = {
    [`POST ${SIM_CLOCK_PATH}`]: async (req, res) => {
      const body = ClockBody.safeParse(parseJson(await readBody(req)));
      if (!body.success) return sendJson(res, 400, { error: 'expected {"now": <ms since the epoch>}' });
      src.clock.set(body.data.now);
      try {
        await src.sweep();
      } catch (err) {
        return sendJson(res, 500, { error: `sweep failed: ${err instanceof Error ? err.message : String(err)}` });
      }
      sendJson(res, 200, { ok: true, now: src.clock.now().getTime() });
    },
    [`GET ${SIM_IDLE_PATH}`]: async (_req, res) => {
      const { queued, active } = await src.counts();
      const inflight = src.inflight();
      const idle = queued === 0 && active === 0 && inflight === 0;
      // Deferred jobs are no work in progress: once idle, the runner moves the clock to
      // `deferredUntil`. While busy it is left out (the runner polls often; a query less each time).
      if (!idle) return sendJson(res, 200, { idle, queued, active, inflight });
      const due = await src.nextDue();
      sendJson(res, 200, { idle, queued, active, inflight, deferredUntil: due ? due.getTime() : null });
    },
  };
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = pathOf(req);
    if (path !== SIM_CLOCK_PATH && path !== SIM_IDLE_PATH) return false;
    const route = routes[`${req.method ?? 'GET'} ${path}`];
    if (!route) {
      sendJson(res, 405, { error: `${req.method} not allowed on ${path}` });
      return true;
    }
    await route(req, res);
    return true;
  };
}
