// Markdown that Arbiter writes on a Change: the comparison comment (matrix, outcomes, criteria in
// full, earlier rounds). Pure functions of evidence. Blocks are joined by blank lines, so a table
// never falls into the list before it (GFM), and every body fits GitHub's 65,535 characters.
import type { CandidateEvidence, Criterion } from '../types.ts';
import type { EarlierRound, Receipt } from '../receipt.ts';
import { markerFor, receiptMarker } from './markers.ts';
import { criteriaWord } from '../reasons.ts';
import { LEGEND, STATUS_ICON } from './vocabulary.ts';
import type { ModeConfig } from './mode-words.ts';

/** GitHub's limit for a comment body and a check run's summary or text. */
export const BODY_LIMIT = 65_535;

// The matrix's icons and legend come from the one vocabulary table.
export { LEGEND, STATUS_ICON } from './vocabulary.ts';

/** A table cell: pipes escaped, one line. */
export const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
export const shorten = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
/** Text a link label can hold: brackets and backticks would end it early. */
const label = (text: string): string =>
  text
    .replace(/[[\]`<>]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Blocks of markdown, separated by blank lines (a block may be several lines; empty ones drop). */
export const blocks = (...parts: (string | null | undefined | false)[]): string =>
  parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').join('\n\n');

/** Where a repository's pages are (`https://github.com/o/r`); null renders plain `#N` references. */
export type RepoUrl = string | null;

export const prLink = (repoUrl: RepoUrl, pr: number): string =>
  repoUrl ? `[#${pr}](${repoUrl}/pull/${pr})` : `#${pr}`;
export const checksLink = (repoUrl: RepoUrl, pr: number, text: string): string =>
  repoUrl ? `[${text}](${repoUrl}/pull/${pr}/checks)` : text;

export interface ComparisonRow {
  evidence: CandidateEvidence;
  rank: number;
  /** One sentence: "ships", "Lost to #13: …", "awaiting a person". */
  outcome: string;
  /** The PR's title, when known. */
  title?: string;
}

/** An earlier round of the same Change, kept below the current one. */
export type { EarlierRound } from '../receipt.ts';

function header(row: ComparisonRow, repoUrl: RepoUrl): string {
  const title = row.title ? ` ${label(shorten(row.title, 28))}` : '';
  // A login is letters, digits and dashes, `[bot]` for an app: kept as GitHub writes it.
  const author = /^[\w-]+(?:\[bot\])?$/.test(row.evidence.author) ? ` by @${row.evidence.author}` : '';
  return cell(`${prLink(repoUrl, row.evidence.pr)}${title}${author}`);
}

function gateCell(row: ComparisonRow, repoUrl: RepoUrl): string {
  const g = row.evidence.gate;
  const text = g.timedOut ? '⏳ timed out' : g.promotable ? '✅ passed' : `❌ ${shorten(g.reason, 60)}`;
  return cell(checksLink(repoUrl, row.evidence.pr, text));
}

/** The matrix of candidates × criteria, the required checks and the rank; outcomes are listed apart. */
export function renderMatrix(criteria: Criterion[], rows: ComparisonRow[], repoUrl: RepoUrl = null): string {
  const head = `| Criterion | ${rows.map((r) => header(r, repoUrl)).join(' | ')} |`;
  const rule = `| --- | ${rows.map(() => ':---:').join(' | ')} |`;
  const criterionRows = criteria.map((c) => {
    const cells = rows.map((r) => {
      const result = r.evidence.acceptance?.results.find((x) => x.id === c.id);
      return result ? STATUS_ICON[result.status] : '—';
    });
    return `| **${c.id}** ${cell(shorten(c.text, 60))} | ${cells.join(' | ')} |`;
  });
  const gateRow = `| Required checks | ${rows.map((r) => gateCell(r, repoUrl)).join(' | ')} |`;
  const scoreRow = rows.some((r) => r.evidence.gate.score !== null)
    ? [`| Score | ${rows.map((r) => r.evidence.gate.score ?? '—').join(' | ')} |`]
    : [];
  const rankRow = `| Rank | ${rows.map((r) => r.rank).join(' | ')} |`;
  return [head, rule, ...criterionRows, gateRow, ...scoreRow, rankRow].join('\n');
}

/** One line per candidate, in rank order: what happens to it. */
export function renderOutcomes(rows: ComparisonRow[], repoUrl: RepoUrl): string {
  return rows.map((r) => `- ${prLink(repoUrl, r.evidence.pr)}: ${r.outcome.replace(/\r?\n/g, ' ')}`).join('\n');
}

/** A collapsed section; the blank line after `<summary>` lets GitHub render the markdown inside. */
export const details = (summary: string, body: string): string =>
  `<details>\n<summary>${summary}</summary>\n\n${body}\n\n</details>`;

function criteriaInFull(criteria: Criterion[], max: number): string {
  const lines = criteria.map(
    (c) =>
      `- **${c.id}** ${shorten(c.text.replace(/\s+/g, ' ').trim(), max)}${c.check ? ` (judged by the check \`${c.check}\`)` : ''}`,
  );
  return lines.join('\n');
}

function earlierRounds(earlier: EarlierRound[]): string | null {
  if (earlier.length === 0) return null;
  const list = [...earlier]
    .sort((a, b) => b.round - a.round)
    .map((e) => `- **Round ${e.round}**: ${e.summary.replace(/\r?\n/g, ' ')}`);
  return details(`Earlier rounds (${earlier.length})`, list.join('\n'));
}

export interface ComparisonInput {
  change: number;
  round: number;
  headline: string;
  /** Paragraphs under the headline (the judge's part, a note on unjudged siblings). */
  notes: string[];
  criteria: Criterion[];
  rows: ComparisonRow[];
  receipt: Receipt;
  /** The configured mode: shadow mode's comparison opens by saying nothing was changed. */
  config: ModeConfig;
  repoUrl?: RepoUrl;
  earlier?: EarlierRound[];
  /** Paragraphs below the matrix (the linked pull requests that were not compared): apart from the outcome list. */
  below?: string[];
}

export function renderComparisonComment(input: ComparisonInput): string {
  const repoUrl = input.repoUrl ?? null;
  const build = (criterionMax: number, earlier: EarlierRound[], criteriaShown: number): string => {
    const shown = input.criteria.slice(0, criteriaShown);
    const cut = input.criteria.length - shown.length;
    const full =
      input.criteria.length === 0
        ? null
        : details(
            `The ${input.criteria.length} ${criteriaWord(input.criteria.length)} in full`,
            `${criteriaInFull(shown, criterionMax)}${cut > 0 ? `\n\n${cut} more in #${input.change}.` : ''}`,
          );
    return blocks(
      markerFor(`comparison:${input.change}`),
      `### Arbiter: comparison of the candidates for #${input.change} (round ${input.round})`,
      input.config.mode === 'shadow'
        ? '> Shadow mode: this is what Arbiter would do; no pull request was changed.'
        : null,
      `**${input.headline.trim()}**`,
      ...input.notes,
      renderOutcomes(input.rows, repoUrl),
      renderMatrix(shown, input.rows, repoUrl),
      LEGEND,
      ...(input.below ?? []),
      full,
      earlierRounds(earlier),
      receiptMarker(input.receipt),
    );
  };
  // Largest first; then shorter criteria and fewer earlier rounds (the latest kept); then fewer
  // criteria in the matrix, the rest named by count, until it fits.
  const recent = [...(input.earlier ?? [])].sort((a, b) => b.round - a.round);
  const all = input.criteria.length;
  const tries: [number, number, number][] = [
    [1000, recent.length, all],
    [200, recent.length, all],
    [120, 5, all],
  ];
  for (let shown = Math.floor(all * 0.8); shown > 0; shown = Math.floor(shown * 0.8)) tries.push([80, 0, shown]);
  for (const [max, keep, shown] of tries) {
    const body = build(max, recent.slice(0, keep), shown);
    if (body.length <= BODY_LIMIT) return body;
  }
  return build(80, [], 0);
}
