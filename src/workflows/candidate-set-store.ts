// Where a composite candidate's record lives: one entry of the store's applied-actions table per
// set (`candidate-set:` keys), read by the set's next plan and written only by the executor.
import { z } from 'zod';
import { PullRefSchema, SetRecord, sameRef, type PullRef } from '../core/candidate-set.ts';
import {
  candidateSetHeadKey,
  candidateSetKey,
  candidateSetsOfChangePrefix,
  candidateSetsPrefix,
} from '../core/keys.ts';
import { nowIso, type RepoContext } from './context.ts';

/** The stored record of set `name` of the Change, or null (none yet, or unreadable). */
export async function readSetRecord(ctx: RepoContext, change: PullRef, name: string): Promise<SetRecord | null> {
  const raw = await ctx.deps.store.getAppliedAction(candidateSetKey(change.repo, change.number, name));
  const parsed = SetRecord.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

const union = (a: PullRef[], b: PullRef[]): PullRef[] => [...a, ...b.filter((r) => !a.some((o) => sameRef(o, r)))];

/**
 * Stores a set's record (the executor's `record-set`). Members seen by a run that planned at the
 * same moment are kept (the union), and so are parts another run stored first; the first time the
 * set stands as a candidate is an event of the Change's repository.
 */
export async function recordSet(ctx: RepoContext, record: SetRecord): Promise<{ state: SetRecord['state'] }> {
  const before = await readSetRecord(ctx, record.change, record.name);
  const at = nowIso(ctx);
  const sameHeads =
    before !== null &&
    JSON.stringify(Object.entries(before.heads).sort()) === JSON.stringify(Object.entries(record.heads).sort());
  const merged: SetRecord = {
    ...record,
    seen: union(before?.seen ?? [], record.seen),
    first: record.first ?? before?.first ?? null,
    parts: record.parts ?? before?.parts ?? null,
    // A run that planned without the evidence another run just recorded keeps it (it names the heads it judged).
    ...((record.acceptance ?? before?.acceptance) ? { acceptance: record.acceptance ?? before?.acceptance } : {}),
    // A set holds its Change's round from these moments (core/plan/set-hold.ts).
    since: before?.since ?? at,
    headsAt: sameHeads ? (before?.headsAt ?? before?.since ?? at) : at,
  };
  // Each member's head names its set, so a check concluding on it re-plans the set.
  for (const [member, sha] of Object.entries(record.heads)) {
    const repo = member.slice(0, member.lastIndexOf('#'));
    await ctx.deps.store.recordAppliedAction(
      candidateSetHeadKey(repo, sha),
      { change: record.change, name: record.name },
      at,
    );
  }
  // The record changes with its set (a recorded action is written once): it is replaced.
  await ctx.deps.store.putAppliedAction(
    candidateSetKey(record.change.repo, record.change.number, record.name),
    merged,
    at,
  );
  if (record.state !== before?.state)
    await ctx.deps.store.addEvent(
      record.change.repo,
      `candidate-set.${record.state}`,
      { change: record.change.number, set: record.name, parts: merged.parts, reason: record.reason },
      at,
    );
  return { state: record.state };
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
