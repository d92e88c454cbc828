// Markdown that Arbiter writes: the comparison comment on a Change, the short note on each
// candidate, and the text of the gate and selection check runs. Pure functions of evidence.
import type { CandidateEvidence, Criterion, CriterionStatus, GateEvidence, Ranking, Receipt } from '../core/types.ts';
import { markerFor, receiptMarker } from './markers.ts';

export const STATUS_ICON: Record<CriterionStatus, string> = {
  met: '✅',
  not_met: '❌',
  unclear: '❔',
  uncheckable: '⚪',
  gap: '⚠️',
};

const OUTCOME_ICON = { pass: '✅', fail: '❌', pending: '⏳', missing: '⏳' } as const;

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const shorten = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function renderGateTable(gate: GateEvidence): string {
  const rows = gate.required.map((c) => `| \`${cell(c.name)}\` | ${OUTCOME_ICON[c.outcome]} ${c.raw ?? 'not reported'} |`);
  const lines = [
    `**${gate.promotable ? 'Promotable' : gate.settled ? 'Not promotable' : 'Waiting'}**: ${gate.reason}.`,
    '',
    `Required checks (${gate.source === 'config' ? 'from `gate.required`' : gate.source === 'branch-rules' ? "from the branch's rules" : 'every check on the head'}):`,
    '',
    '| check | conclusion |',
    '| --- | --- |',
    ...(rows.length > 0 ? rows : ['| (none) | |']),
    '',
    `Passing checks: ${gate.passingChecks}.${gate.score !== null ? ` Score: ${gate.score}.` : ''}`,
  ];
  return lines.join('\n');
}

export function gateTitle(gate: GateEvidence): string {
  if (gate.timedOut) return 'Timed out: checks never finished';
  if (!gate.settled) return shorten(`Waiting: ${gate.reason}`, 200);
  return gate.promotable ? `Promotable: ${gate.reason}` : shorten(`Not promotable: ${gate.reason}`, 200);
}

export interface ComparisonRow {
  evidence: CandidateEvidence;
  rank: number;
  outcome: string;
}

/** The matrix of candidates × criteria, the gate, rank and outcome. */
export function renderMatrix(criteria: Criterion[], rows: ComparisonRow[]): string {
  const header = `| | ${rows.map((r) => `#${r.evidence.pr}`).join(' | ')} |`;
  const rule = `| --- | ${rows.map(() => '---').join(' | ')} |`;
  const criterionRows = criteria.map((c) => {
    const cells = rows.map((r) => {
      const result = r.evidence.acceptance?.results.find((x) => x.id === c.id);
      return result ? STATUS_ICON[result.status] : '—';
    });
    return `| ${c.id} ${cell(shorten(c.text, 60))} | ${cells.join(' | ')} |`;
  });
  const gateRow = `| Required checks | ${rows
    .map((r) => (r.evidence.gate.timedOut ? '⏳ timed out' : r.evidence.gate.promotable ? '✅ passed' : `❌ ${cell(shorten(r.evidence.gate.reason, 60))}`))
    .join(' | ')} |`;
  const scoreRow = rows.some((r) => r.evidence.gate.score !== null)
    ? [`| Score | ${rows.map((r) => r.evidence.gate.score ?? '—').join(' | ')} |`]
    : [];
  const rankRow = `| Rank | ${rows.map((r) => r.rank).join(' | ')} |`;
  const outcomeRow = `| Outcome | ${rows.map((r) => cell(r.outcome)).join(' | ')} |`;
  return [header, rule, ...criterionRows, gateRow, ...scoreRow, rankRow, outcomeRow].join('\n');
}

export function renderComparisonComment(input: {
  change: number;
  round: number;
  headline: string;
  detail: string[];
  criteria: Criterion[];
  rows: ComparisonRow[];
  receipt: Receipt;
  shadow: boolean;
}): string {
  return [
    markerFor(`comparison:${input.change}`),
    `### Arbiter: comparison of the candidates for #${input.change} (round ${input.round})`,
    '',
    input.shadow ? '> Shadow mode: this is what Arbiter would do; no pull request was changed.\n' : '',
    `**${input.headline}**`,
    ...input.detail.map((d) => `- ${d}`),
    '',
    renderMatrix(input.criteria, input.rows),
    '',
    'Legend: ✅ met · ❌ not met · ❔ unclear · ⚪ uncheckable · ⚠️ gap',
    receiptMarker(input.receipt),
  ]
    .filter((line) => line !== '')
    .join('\n');
}

export function renderReceiptText(receipt: Receipt): string {
  return ['Decision receipt:', '', '```json', JSON.stringify(receipt, null, 2), '```'].join('\n');
}

export function renderRankingTable(ranking: Ranking): string {
  return [
    '| rank | candidate | promotable | met | gaps | score | passing checks |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...ranking.ordered.map((c) => `| ${c.rank} | #${c.pr} | ${c.promotable ? 'yes' : 'no'} | ${c.met} | ${c.gaps} | ${c.score ?? '—'} | ${c.passing} |`),
  ].join('\n');
}
