// Replays receipts as the store keeps them: each one through the pure core (src/core/replay.ts),
// a receipt another plan made (a selection's, a wide round's) found among that plan's actions, and a row an older version
// recorded reported as such. Shared by `npm run replay` and the scenario runner.
import { describeReplay, replayReceipt, type ReplayResult } from '../core/replay.ts';
import type { StoredReceipt } from '../store/types.ts';
import { changeId } from '../core/keys.ts';

/** A receipt read back: from the store (with its id) or from a file (id null). */
export type ReadReceipt = Omit<StoredReceipt, 'id'> & { id: number | null };

export interface ReplayedReceipt {
  id: number | null;
  kind: string;
  round: number;
  result: ReplayResult;
}

/** Replays every receipt; the plan that made a receipt is looked up among its Change's receipts given. */
export function replayStored(receipts: ReadReceipt[]): ReplayedReceipt[] {
  const changeOf = (r: ReadReceipt): string => (r.receipt ? changeId(r.receipt.repo, r.receipt.change) : '');
  return receipts.map((r) => {
    if (r.receipt === null) {
      const why = `cannot replay: recorded by an older version (${r.kind}: ${r.issues.join('; ')})`;
      return { id: r.id, kind: r.kind, round: r.round, result: { result: 'cannot-replay', why } };
    }
    const others = receipts.filter((s) => s !== r && changeOf(s) === changeOf(r)).map((s) => s.recorded);
    return { id: r.id, kind: r.kind, round: r.round, result: replayReceipt(r.recorded, others) };
  });
}

/** The report of a replay, a few lines per receipt. */
export function replayReport(replayed: ReplayedReceipt[]): string[] {
  return replayed.flatMap((r) => {
    const [first, ...rest] = describeReplay(r.result);
    return [`${r.id === null ? 'receipt' : `receipt ${r.id}`} (${r.kind}, round ${r.round}): ${first}`, ...rest];
  });
}
