// The evidence snapshot the tie-break judge reads: evidence only, never code. Each line carries
// its evidence id; the text is bounded per candidate, redacted, and independent of input order.
import type { CandidateEvidence, Criterion, CriterionResult } from '../core/types.ts';
import { boundChars, redactSecrets } from '../llm/redact.ts';

export interface EvidenceItem {
  id: string;
  pr: number;
  text: string;
}

export interface EvidenceSnapshot {
  /** Only the items that made it into `text`: the judge may cite exactly these ids. */
  items: EvidenceItem[];
  text: string;
}

export interface SnapshotOptions {
  /** Name of the scoring check (`gate.score`), used in `ev:<pr>:score:<check>`; default `score`. */
  scoreCheck?: string | null;
  /** Bound on the whole snapshot in UTF-8 bytes (default 32 KB), shared equally by the candidates. */
  maxBytes?: number;
  /** List the candidates in descending PR order (the judge's second, swapped call). */
  reverse?: boolean;
}

const MAX_QUOTE_CHARS = 200;
const MAX_REASON_CHARS = 200;
const MAX_CRITERION_CHARS = 160;

/** One line of text: no line breaks, so an item can never forge the next item's id. */
const oneLine = (s: string): string => s.replace(/[\r\n\t]+/g, ' ').trim();
const clip = (s: string, n: number): string => boundChars(oneLine(s), n);

const OUTCOME_WORDS: Record<string, string> = {
  pass: 'passed',
  fail: 'failed',
  pending: 'pending',
  missing: 'not reported',
};
const STATUS_WORDS: Record<CriterionResult['status'], string> = {
  met: 'met',
  not_met: 'not met',
  unclear: 'unclear',
  uncheckable: 'uncheckable (needs a person)',
  gap: 'not judged',
};

function acceptanceText(criterion: Criterion, result: CriterionResult | undefined): string {
  const head = `${criterion.id} "${clip(criterion.text, MAX_CRITERION_CHARS)}"`;
  if (result === undefined) return `${head}: no acceptance result`;
  const status = STATUS_WORDS[result.status];
  if (result.status === 'met' && result.citation !== null) {
    const where =
      result.citation.line === null ? result.citation.path : `${result.citation.path}:${result.citation.line}`;
    const side = result.citation.side === 'removed' ? ' (removed line)' : '';
    return `${head}: ${status}; verified quote in ${clip(where, 120)}${side}: "${clip(result.citation.quote, MAX_QUOTE_CHARS)}"`;
  }
  const reason = result.reason === '' ? '' : `; ${clip(result.reason, MAX_REASON_CHARS)}`;
  return `${head}: ${status}${reason}`;
}

/** The evidence items of one candidate, in a fixed order. */
function candidateItems(c: CandidateEvidence, criteria: Criterion[], scoreCheck: string): EvidenceItem[] {
  const items: EvidenceItem[] = [];
  const required = [...c.gate.required].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const check of required) {
    const name = oneLine(check.name);
    const raw = check.raw === null ? '' : ` (${clip(check.raw, 40)})`;
    items.push({
      id: `ev:${c.pr}:${check.kind === 'status' ? 'status' : 'check'}:${name}`,
      pr: c.pr,
      text: `required ${check.kind === 'status' ? 'status' : 'check'} \`${name}\`: ${OUTCOME_WORDS[check.outcome] ?? check.outcome}${raw}`,
    });
  }
  for (const criterion of criteria) {
    const result = c.acceptance?.results.find((r) => r.id === criterion.id);
    items.push({ id: `ev:${c.pr}:acceptance:${criterion.id}`, pr: c.pr, text: acceptanceText(criterion, result) });
  }
  if (c.gate.score !== null) {
    items.push({
      id: `ev:${c.pr}:score:${scoreCheck}`,
      pr: c.pr,
      text: `score reported by \`${scoreCheck}\`: ${c.gate.score}`,
    });
  }
  return items;
}

/** Builds the snapshot of the tied candidates. Candidates appear in PR order (or its reverse) whatever the input order. */
export function buildEvidenceSnapshot(
  tied: CandidateEvidence[],
  criteria: Criterion[],
  opts: SnapshotOptions = {},
): EvidenceSnapshot {
  const scoreCheck = oneLine(opts.scoreCheck ?? 'score') || 'score';
  const maxBytes = opts.maxBytes ?? 32 * 1024;
  const sorted = [...tied].sort((a, b) => (opts.reverse ? b.pr - a.pr : a.pr - b.pr));
  const share = Math.floor(maxBytes / Math.max(1, sorted.length));
  const items: EvidenceItem[] = [];
  const sections: string[] = [];
  for (const c of sorted) {
    const acceptance = c.acceptance === null ? 'no acceptance result' : `acceptance ${c.acceptance.status}`;
    const lines = [`## Candidate #${c.pr} (${acceptance}; ${c.gate.passingChecks} passing checks)`];
    let used = Buffer.byteLength(lines[0]!, 'utf8') + 1;
    for (const item of candidateItems(c, criteria, scoreCheck)) {
      const redacted: EvidenceItem = { ...item, text: redactSecrets(item.text).text };
      const line = `- [${redacted.id}] ${redacted.text}`;
      const size = Buffer.byteLength(line, 'utf8') + 1;
      // An item that does not fit is left out whole (never cut), so every citable id is complete.
      if (used + size > share) {
        lines.push('- [more evidence omitted: size limit]');
        break;
      }
      used += size;
      lines.push(line);
      items.push(redacted);
    }
    sections.push(lines.join('\n'));
  }
  return { items, text: sections.join('\n\n') };
}
