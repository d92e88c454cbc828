// The sweep's part for composite candidates: a set that held its Change's round past
// `selection.siblingTimeout` (a member never opened, or a member's checks never concluded) holds it
// no more, and the round goes on without it, as it does without a sibling that timed out.
import { setHold } from '../core/plan/set-hold.ts';
import { changeId, sweepRoundToken } from '../core/keys.ts';
import { OPEN_STATES } from '../core/types.ts';
import type { Deps } from '../deps.ts';
import { listSetRecords } from './candidate-set-store.ts';
import type { RepoContext } from './context.ts';
import { runSteps, selectAndFollow } from './flow.ts';

/**
 * Each Change with a set whose hold ran out: its undecided groups run their selection step. A
 * decided round returns at once, so a later sweep repeats nothing.
 */
export async function sweepSetHolds(
  deps: Deps,
  contextOf: (c: { repo: string; change: number }) => Promise<RepoContext | null>,
): Promise<void> {
  const now = deps.clock.now().toISOString();
  const changes = new Map<string, { repo: string; change: number }>();
  for (const record of await listSetRecords({ deps }, null)) {
    const ctx = changes.has(changeId(record.change.repo, record.change.number))
      ? null
      : await contextOf({ repo: record.change.repo, change: record.change.number }).catch(() => null);
    if (ctx === null) continue;
    const hold = setHold(record, ctx.config.selection.siblingTimeout, now);
    if (!hold.holds && hold.timedOut !== null)
      changes.set(changeId(record.change.repo, record.change.number), {
        repo: ctx.key,
        change: record.change.number,
      });
  }
  for (const c of changes.values()) {
    try {
      const ctx = await contextOf(c);
      if (!ctx) continue;
      const open = (await deps.store.listCandidatesOfChange(ctx.key, c.change)).filter((s) => OPEN_STATES.has(s.state));
      // Only sets are candidates: they decide alone (workflows/set-ship.ts).
      if (open.length === 0)
        await runSteps({ ...ctx, token: sweepRoundToken(ctx.key, c.change, 'sets', 1) }, [
          { kind: 'sets', change: c.change },
        ]);
      for (const base of new Set(open.map((s) => s.base))) {
        const round = await deps.store.currentRound(ctx.key, c.change, base, now);
        if (round.decision === null && round.selection === null)
          await selectAndFollow(
            { ...ctx, token: sweepRoundToken(ctx.key, c.change, base, round.number) },
            c.change,
            base,
          );
      }
    } catch (error) {
      deps.log.warn(
        { err: error, repo: c.repo, change: c.change },
        'sweep: a set that held its round was not handed on',
      );
    }
  }
}
