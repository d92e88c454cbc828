// The words of Arbiter's gate and selection check runs: the required checks, the ranking with
// columns named for people, and the decision receipt folded away. Pure functions of evidence.
import type { GateEvidence, Ranking } from '../types.ts';
import type { Receipt } from '../receipt.ts';
import { blocks, details, prLink, shorten, type RepoUrl } from './markdown.ts';

const OUTCOME_ICON = { pass: '✅', fail: '❌', pending: '⏳', missing: '⏳' } as const;
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

const SOURCE_WORDS: Record<GateEvidence['source'], string> = {
  config: 'named in `gate.required`',
  'branch-rules': "required by the branch's rules",
  'all-suites': 'every check reported on the head',
};

export function renderGateTable(gate: GateEvidence): string {
  const rows = gate.required.map(
    (c) =>
      `| \`${cell(c.name)}\` | ${OUTCOME_ICON[c.outcome]} ${c.raw ?? (c.pinned ? `reported only by ${c.pinned.reportedBy.join(', ')}, not \`${c.pinned.app}\`` : 'not reported yet')}${c.detail ? `: ${cell(c.detail)}` : ''} |`,
  );
  const verdict = gate.promotable ? 'Promotable' : gate.settled ? 'Not promotable' : 'Waiting';
  return blocks(
    `**${verdict}**: ${gate.reason || 'every required check passed'}.`,
    `Required checks (${SOURCE_WORDS[gate.source]}):`,
    ['| Check | Result |', '| --- | --- |', ...(rows.length > 0 ? rows : ['| (none) | |'])].join('\n'),
    // No live count of the other checks that pass: it changes with every check nobody requires,
    // and the gate's text would be written again each time (issue 28). The comparison's ranking
    // shows the count the decision used.
    gate.score !== null && `Score: ${gate.score}.`,
  );
}

export function gateTitle(gate: GateEvidence): string {
  if (gate.timedOut) return shorten(`Timed out: ${gate.reason.replace(/^timed out: /, '')}`, 200);
  // The reason already says what is awaited ("waiting on `test`"): say it once.
  if (!gate.settled)
    return shorten(/^waiting\b/i.test(gate.reason) ? capital(gate.reason) : `Waiting: ${gate.reason}`, 200);
  return gate.promotable ? `Promotable: ${gate.reason}` : shorten(`Not promotable: ${gate.reason}`, 200);
}

/** The receipt as JSON, folded: a maintainer reads the ranking, a tool reads this. */
export function renderReceiptText(receipt: Receipt): string {
  return details('Decision receipt (JSON)', ['```json', JSON.stringify(receipt, null, 2), '```'].join('\n'));
}

/** A candidate set's row: named with its members, the same keys as a candidate's (no score). */
export interface SetRankRow {
  /** "set `good` (acme/api#7, acme/ui#9)" */
  label: string;
  rank: number;
  promotable: boolean;
  met: number;
  gaps: number;
  passing: number;
}

/** With candidate sets: their rows, and each candidate's rank among sets and candidates together. */
export interface SetRanking {
  rows: readonly SetRankRow[];
  rankOf: (pr: number) => number;
}

export function renderRankingTable(ranking: Ranking, repoUrl: RepoUrl = null, sets: SetRanking | null = null): string {
  const scored = ranking.ordered.some((c) => c.score !== null);
  return [
    `| Rank | Candidate | Required checks | Criteria met | Not judged |${scored ? ' Score |' : ''} Passing checks |`,
    `| --- | --- | --- | --- | --- |${scored ? ' --- |' : ''} --- |`,
    ...ranking.ordered.map(
      (c) =>
        `| ${sets ? sets.rankOf(c.pr) : c.rank} | ${prLink(repoUrl, c.pr)} | ${c.promotable ? '✅ passed' : '❌ not passed'} | ${c.met} | ${c.gaps} |${scored ? ` ${c.score ?? '—'} |` : ''} ${c.passing} |`,
    ),
    ...(sets?.rows ?? []).map(
      (c) =>
        `| ${c.rank} | ${c.label.replace(/\|/g, '\\|')} | ${c.promotable ? '✅ passed in every member' : '❌ not passed'} | ${c.met} | ${c.gaps} |${scored ? ' — |' : ''} ${c.passing} |`,
    ),
  ].join('\n');
}
