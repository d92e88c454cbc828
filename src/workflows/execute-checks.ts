// The executor's check-run writes (executePlan, execute.ts). A check written by its content is
// skipped while the check shows that content (the last write's), not because it was shown once.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Action } from '../core/actions.ts';
import {
  checkContentKey,
  checkCreateKey,
  checkIdKey,
  checkNextKey,
  checkShownKey,
  isCheckWriteKey,
} from '../core/keys.ts';
import { nowIso, type RepoContext } from './context.ts';
import { claimOnceForRun } from './execute-records.ts';
import { withRetry } from './retry.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const contentHash = (value: unknown): string =>
  createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

const CheckId = z.object({ id: z.number() });
const checkIdOf = (recorded: unknown): number | null => {
  const parsed = CheckId.safeParse(recorded);
  return parsed.success ? parsed.data.id : null;
};

/** What a check shows: the content last written (`hash`) and that write's own mark. */
const Shown = z.object({ hash: z.string(), mark: z.string() });
type Shown = z.infer<typeof Shown>;

type CheckAction = Extract<Action, { kind: 'check-run' }>;

/**
 * A check-run action keyed by its content (`checkAction`): its key comes back whenever the content
 * does, so the executor applies it by what the check shows (writeCheck), not by its key's record.
 */
export const writtenByContent = (action: Action): action is CheckAction =>
  action.kind === 'check-run' && isCheckWriteKey(action.key);

/** The check run's id: the one recorded, found on GitHub, or created by another run right now. */
async function checkRunId(ctx: RepoContext, check: CheckAction, recorded: unknown): Promise<number | null> {
  const idKey = checkIdKey(ctx.key, check.headSha, check.name);
  let id = checkIdOf(recorded);
  if (id !== null) return id;
  const creator = await claimOnceForRun(ctx, checkCreateKey(ctx.key, check.headSha, check.name));
  id = await ctx.gh.findCheckRun(check.headSha, check.name);
  if (id === null && !creator) {
    // Another run is creating it right now: wait for its id rather than create a second one.
    for (let i = 0; i < 40 && id === null; i++) {
      await sleep(250);
      id = checkIdOf(await ctx.deps.store.getAppliedAction(idKey));
    }
    if (id === null) id = await ctx.gh.findCheckRun(check.headSha, check.name);
  }
  return id;
}

/**
 * Whether this write may go ahead, claimed so two runs never make the same write. A `checkAction`'s
 * (`byContent`) is claimed over the mark of the write the check shows: the same content over the
 * same state is written once, and content that changed and changed back follows another mark, so
 * it is written again. A decision's write (its key is in its content) is written once ever, so a
 * redelivered old decision never covers a later one.
 */
async function mayWrite(ctx: RepoContext, check: CheckAction, hash: string, shown: Shown | null): Promise<boolean> {
  const { headSha, name } = check;
  if (!writtenByContent(check)) return claimOnceForRun(ctx, checkContentKey(ctx.key, headSha, name, hash));
  if (shown?.hash === hash) return false;
  return claimOnceForRun(ctx, checkNextKey(ctx.key, headSha, name, shown?.mark ?? 'first', hash));
}

/**
 * Creates or updates Arbiter's check run of that name on a head, unless `mayWrite` says it shows
 * that content already. A retry of the run that claimed a write writes it again (it cannot tell
 * whether it landed; the write is a whole replacement). Creation is claimed so no check is created twice.
 */
export async function writeCheck(ctx: RepoContext, check: CheckAction): Promise<{ written: boolean }> {
  const { store } = ctx.deps;
  const idKey = checkIdKey(ctx.key, check.headSha, check.name);
  const shownKey = checkShownKey(ctx.key, check.headSha, check.name);
  const hash = contentHash(check);
  const contentKey = checkContentKey(ctx.key, check.headSha, check.name, hash);
  const known = await store.getAppliedActions([contentKey, shownKey, idKey]);
  const shown = Shown.safeParse(known.get(shownKey)).data ?? null;
  if ((!writtenByContent(check) && known.has(contentKey)) || !(await mayWrite(ctx, check, hash, shown)))
    return { written: false };
  const existing = await checkRunId(ctx, check, known.get(idKey));
  const written = await withRetry(ctx, `check ${check.name}`, async (attempt) => {
    // A creation whose answer was lost may have landed: look before creating again.
    const target = existing ?? (attempt > 1 ? await ctx.gh.findCheckRun(check.headSha, check.name) : null);
    return ctx.gh.writeCheckRun({ id: target, sha: check.headSha, ...check });
  });
  // Also an id found on GitHub (a creation whose record was lost): whether a check was shown is read from here.
  if (!known.has(idKey)) await store.recordAppliedAction(idKey, { id: written }, nowIso(ctx));
  await store.recordAppliedAction(contentKey, { id: written }, nowIso(ctx));
  const mark = contentHash([shown?.mark ?? 'first', hash]);
  await store.putAppliedAction(shownKey, { hash, mark }, nowIso(ctx));
  return { written: true };
}
