// Scenario-runner control, mounted by the runner's app entry (sim/runner/app-entry.ts) as extra
// routes of the app: POST /arbiter/sim/clock moves the virtual clock, starts the deferred jobs it
// made due and runs the sweep before answering; GET /arbiter/sim/idle says whether any job or
// webhook request is still in flight; GET /arbiter/sim/receipts lists the receipts the store
// recorded (as recorded), so the runner can replay every decision of a run.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { AppControls } from '../../src/app.ts';
import type { ManualClock } from '../../src/clock.ts';
import { pathOf, sendJson } from '../../src/health.ts';

export const SIM_CLOCK_PATH = '/arbiter/sim/clock';
export const SIM_IDLE_PATH = '/arbiter/sim/idle';
export const SIM_RECEIPTS_PATH = '/arbiter/sim/receipts';
/** Which process answers on this port: the runner checks it is the one it started. */
export const SIM_PID_PATH = '/arbiter/sim/pid';

export interface SimControlSources extends AppControls {
  clock: ManualClock;
}

const ClockBody = z.object({ now: z.number().int().nonnegative(), sweep: z.boolean().optional() });
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
        await src.tick({ sweep: body.data.sweep });
      } catch (err) {
        return sendJson(res, 500, { error: `tick failed: ${err instanceof Error ? err.message : String(err)}` });
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
    [`GET ${SIM_PID_PATH}`]: async (_req, res) => {
      sendJson(res, 200, { pid: process.pid });
    },
    [`GET ${SIM_RECEIPTS_PATH}`]: async (_req, res) => {
      sendJson(res, 200, { receipts: await src.receipts() });
    },
  };
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = pathOf(req);
    if (![SIM_CLOCK_PATH, SIM_IDLE_PATH, SIM_RECEIPTS_PATH, SIM_PID_PATH].includes(path)) return false;
    const route = routes[`${req.method ?? 'GET'} ${path}`];
    if (!route) {
      sendJson(res, 405, { error: `${req.method} not allowed on ${path}` });
      return true;
    }
    await route(req, res);
    return true;
  };
}
