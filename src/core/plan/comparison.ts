// The comparison comment of a round, rendered from the round's inputs: by the selection planner
// when the round is decided, and again by the views planner (views.ts) whenever its state changes.
import { renderComparisonComment, type ComparisonRow } from '../render/markdown.ts';
import { markerFor } from '../render/markers.ts';
import { notComparedParagraph } from '../render/not-compared.ts';
import { judgeSentence } from '../reasons.ts';
import type { SelectionReceipt } from '../receipt.ts';
import type { Ranking } from '../types.ts';
import { byPr, type SelectionInput } from './verdict.ts';

/** The one comparison comment of a group: candidates on another base branch are compared alone. */
export const comparisonMarker = (change: number, base: string): string => `comparison:${change}@${base}`;

/**
 * One row per candidate in rank order; among equals the chosen candidate (the judge's winner) comes
 * first, so a tie never lists the loser before the winner.
 */
export function comparisonRows(
  input: Pick<SelectionInput, 'siblings' | 'display'>,
  ranking: Pick<Ranking, 'ordered'>,
  outcome: (pr: number) => string,
  chosen: number | null,
): ComparisonRow[] {
  const evidence = byPr(input.siblings);
  const first = (pr: number): number => (pr === chosen ? 0 : 1);
  return [...ranking.ordered]
    .map((c, at) => ({ c, at }))
    .sort((a, b) => a.c.rank - b.c.rank || first(a.c.pr) - first(b.c.pr) || a.at - b.at)
    .map(({ c }) => ({
      evidence: evidence.get(c.pr)!,
      rank: c.rank,
      outcome: outcome(c.pr),
      title: input.display?.titles?.[c.pr],
    }));
}

/** The comparison comment's body for a headline and rows, with the round's receipt in its hidden marker. */
export function comparisonBody(
  input: Pick<SelectionInput, 'change' | 'round' | 'base' | 'judge' | 'notes' | 'config' | 'display'>,
  receipt: SelectionReceipt,
  headline: string,
  rows: ComparisonRow[],
): string {
  const notes: string[] = input.judge && input.judge.comparison !== 'not-compared' ? [judgeSentence(input.judge)] : [];
  notes.push(...(input.notes ?? []));
  const repoUrl = input.display?.repoUrl ?? null;
  const strangers = notComparedParagraph(input.display?.notCompared ?? [], input.config.commands.prefix, repoUrl);
  const marker = comparisonMarker(input.change.number, input.base);
  return renderComparisonComment({
    change: input.change.number,
    round: input.round,
    headline,
    notes,
    criteria: input.change.criteria,
    rows,
    receipt,
    config: input.config,
    repoUrl,
    ...(strangers !== null ? { below: [strangers] } : {}),
    earlier: input.display?.earlier,
  }).replace(markerFor(`comparison:${input.change.number}`), markerFor(marker));
}
