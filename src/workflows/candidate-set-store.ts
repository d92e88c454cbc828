// Where a composite candidate's record lives: one entry of the store's applied-actions table per
// set (`candidate-set:` keys), read by the set's next plan and written only by the executor (its
// `record-set` action, workflows/execute-records.ts).
import { z } from 'zod';
import { PullRefSchema, SetRecord, type PullRef } from '../core/candidate-set.ts';
import {
  candidateSetHeadKey,
  candidateSetKey,
  candidateSetsOfChangePrefix,
  candidateSetsPrefix,
} from '../core/keys.ts';
import type { RepoContext } from './context.ts';

/** The stored record of set `name` of the Change, or null (none yet, or unreadable). */
export async function readSetRecord(ctx: RepoContext, change: PullRef, name: string): Promise<SetRecord | null> {
  const raw = await ctx.deps.store.getAppliedAction(candidateSetKey(change.repo, change.number, name));
  const parsed = SetRecord.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** Every set recorded for the Change (`change`), or of every Change (null), as stored. */
export async function listSetRecords(ctx: Pick<RepoContext, 'deps'>, change: PullRef | null): Promise<SetRecord[]> {
  const prefix = change === null ? candidateSetsPrefix() : candidateSetsOfChangePrefix(change.repo, change.number);
  // A set's action keys hold a `>` (candidateSetActionKey): left out by the query, so they never crowd the records out.
  const rows = await ctx.deps.store.listAppliedActions(prefix, 1000, '>');
  const records: SetRecord[] = [];
  // Action keys of a set's plans hold a `>`, and member heads an `@` right after the repository: not records.
  for (const row of rows) {
    if (row.key.includes('>')) continue;
    const parsed = SetRecord.safeParse(row.result);
    if (parsed.success) records.push(parsed.data);
  }
  return records;
}

const HeadOfSet = z.object({ change: PullRefSchema, name: z.string() });

/** The set whose member has this head in repository `repo`, or null. */
export async function setOfHead(
  ctx: RepoContext,
  repo: string,
  headSha: string,
): Promise<z.infer<typeof HeadOfSet> | null> {
  const parsed = HeadOfSet.safeParse(await ctx.deps.store.getAppliedAction(candidateSetHeadKey(repo, headSha)));
  return parsed.success ? parsed.data : null;
}
