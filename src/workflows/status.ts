// `status` and `rank` on a Change issue (docs/commands.md: they work on a candidate and on its
// Change): every candidate the Change ever had, by base branch, with what was decided and what waits.
import type { VerbResult } from '../commands/types.ts';
import { OPEN_STATES } from '../core/types.ts';
import type { CandidateRow } from '../store/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { readGroupView, waitingList } from './group-view.ts';

/** How a person reads a candidate's state (the store's names are not for people). */
const STATE_WORDS: Record<CandidateRow['state'], string> = {
  verifying: 'gathering evidence',
  verified: 'evidence complete',
  unpromotable: 'a required check failed',
  selected: 'selected',
  rejected: 'closed (lost)',
  stale: 'closed (another candidate shipped)',
  promoted: 'merged',
  withdrawn: 'closed by a person',
  composing: 'requested, no pull request yet',
};

const stateOf = (c: CandidateRow): string => {
  const words = STATE_WORDS[c.state] ?? c.state;
  return c.reason && c.reason !== words && !OPEN_STATES.has(c.state) ? `${words}: ${c.reason}` : words;
};

/** The bases a Change's candidates target, in the order they first appeared. */
const basesOf = (rows: readonly CandidateRow[]): string[] => [...new Set(rows.map((r) => r.base))];

/** Where a Change stands: for each base, the round, what waits, and each candidate's state. */
export async function statusOfChange(ctx: RepoContext, change: number): Promise<VerbResult> {
  const rows = await ctx.deps.store.listCandidatesOfChange(ctx.key, change);
  if (rows.length === 0)
    return {
      ok: true,
      message: `No candidate has linked #${change} yet. A draft pull request links it with \`Candidate-for: #${change}\` or a closing keyword (\`Fixes #${change}\`).`,
    };
  const parts: string[] = [];
  for (const base of basesOf(rows)) {
    const view = await readGroupView(ctx, change, base);
    const round = view?.round ?? (await ctx.deps.store.currentRound(ctx.key, change, base, nowIso(ctx)));
    const pending = view?.pending ?? [];
    const open = rows.filter((r) => r.base === base && OPEN_STATES.has(r.state));
    const waits =
      pending.length > 0
        ? `Waiting on ${waitingList(pending)}.`
        : round.decision !== null
          ? `Round ${round.number} is decided.`
          : open.length > 0
            ? 'Every candidate has settled; the decision comes next.'
            : 'No candidate is open.';
    parts.push(
      `**\`${base}\`**, round ${round.number}. ${waits}`,
      '',
      '| candidate | by | state |',
      '| --- | --- | --- |',
      ...rows.filter((r) => r.base === base).map((r) => `| #${r.pr} | @${r.author} | ${stateOf(r)} |`),
      '',
    );
  }
  return { ok: true, message: [`Candidates for #${change}:`, '', ...parts].join('\n').trimEnd() };
}

/** The open bases of a Change, for `rank` on the Change: each is ranked as `rank` on one of its candidates. */
export async function openCandidatesByBase(ctx: RepoContext, change: number): Promise<CandidateRow[]> {
  const rows = await ctx.deps.store.listCandidatesOfChange(ctx.key, change);
  const open = rows.filter((r) => OPEN_STATES.has(r.state));
  return basesOf(open).map((base) => open.find((r) => r.base === base)!);
}
