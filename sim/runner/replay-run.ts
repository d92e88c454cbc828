// The receipts a scenario run recorded, replayed through the pure core (npm run replay does the
// same on a store or a file): each must decide the same again, or the run fails with the diff.
import { readReceiptValue } from '../../src/store/rows.ts';
import { replayReport, replayStored } from '../../src/replay/stored.ts';
import { ScenarioRunError } from './errors.ts';
import type { ReplayedEntry } from './transcript.ts';
import type { z } from 'zod';

export function replayRun(recorded: { id: number; recorded: unknown }[]): z.infer<typeof ReplayedEntry>[] {
  const replayed = replayStored(recorded.map((r) => ({ id: r.id, ...readReceiptValue(r.recorded) })));
  const entries: z.infer<typeof ReplayedEntry>[] = [];
  const failed: typeof replayed = [];
  for (const r of replayed) {
    const replay = r.result.result;
    if (replay === 'different' || replay === 'cannot-replay') failed.push(r);
    else entries.push({ id: r.id ?? 0, kind: r.kind, round: r.round, replay });
  }
  if (failed.length > 0)
    throw new ScenarioRunError(`a receipt of this run does not replay:\n${replayReport(failed).join('\n')}`);
  return entries;
}
