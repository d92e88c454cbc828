// Waits until a step has finished rippling: the app idle, no webhook held, being delivered
// or in flight, no restart under way; several polls in a row, since Arbiter's own writes
// cause webhooks that cause more work. Fails loudly, naming what is still pending.
import type { AppHost, IdleReport } from './app-process.ts';
import type { DeliveryPump } from './deliveries.ts';
import { ScenarioRunError } from './errors.ts';

const POLL_MS = 20;
const QUIET_POLLS = 3;

export interface QuietInput {
  app: AppHost;
  emulator: { inflightWebhooks(): number; violations: string[]; writes: unknown[] };
  pump: DeliveryPump;
  restarting(): Promise<void> | null;
  fatal(): Error | null;
  timeoutMs: number;
  where(): string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function failIfBroken(q: QuietInput): void {
  const fatal = q.fatal();
  if (fatal) throw fatal;
  if (q.app.crashed && !q.restarting())
    throw new ScenarioRunError(`${q.where()}: ${q.app.crashed}`, q.app.stderrTail());
  if (q.emulator.violations.length)
    throw new ScenarioRunError(
      `${q.where()}: the emulator recorded contract violations:\n${q.emulator.violations.map((v) => `  - ${v}`).join('\n')}`,
    );
}

export async function waitUntilQuiet(q: QuietInput): Promise<void> {
  const deadline = Date.now() + q.timeoutMs;
  let quietPolls = 0;
  let lastWrites = q.emulator.writes.length;
  let last: IdleReport | null;
  for (;;) {
    failIfBroken(q);
    const restart = q.restarting();
    if (restart) {
      await restart;
      quietPolls = 0;
      continue;
    }
    const before = q.pump.delivered.length;
    await q.pump.pump();
    failIfBroken(q);
    let report: IdleReport | null = null;
    try {
      report = await q.app.idle();
    } catch (e) {
      if (!q.restarting() && !q.app.crashed) throw e;
    }
    last = report;
    const quiet =
      report !== null &&
      report.idle &&
      q.emulator.inflightWebhooks() === 0 &&
      !q.pump.busy() &&
      q.pump.delivered.length === before &&
      q.emulator.writes.length === lastWrites &&
      !q.restarting();
    lastWrites = q.emulator.writes.length;
    quietPolls = quiet ? quietPolls + 1 : 0;
    if (quietPolls >= QUIET_POLLS) return;
    if (Date.now() > deadline) {
      const pending = [
        last
          ? `app ${last.idle ? 'idle' : 'busy'} (queued ${last.queued ?? '?'}, active ${last.active ?? '?'}, inflight ${last.inflight ?? '?'})`
          : 'app not answering /arbiter/sim/idle',
        `${q.pump.outstanding()} webhook(s) waiting for delivery`,
        `${q.emulator.inflightWebhooks()} webhook(s) in flight from the emulator`,
      ];
      throw new ScenarioRunError(
        `${q.where()}: still not quiet after ${q.timeoutMs / 1000} s: ${pending.join('; ')}`,
        q.app.stderrTail(),
      );
    }
    await sleep(POLL_MS);
  }
}
