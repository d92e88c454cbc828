// Renders acceptance evidence as the `Arbiter / acceptance` check run: a title, a markdown
// table per criterion (citations linked to the head, the model's own reason labelled as such),
// notes for the person, and a notice annotation on each verified citation.
import type { CheckRunAnnotation } from '../core/actions.ts';
import type { AcceptanceEvidence, Criterion, CriterionResult, CriterionStatus } from '../core/types.ts';
import { sanitiseModelReason } from './model-words.ts';
import { countWord, statusExplained, statusLabel } from '../core/render/vocabulary.ts';

/** Where the candidate's head lives, to link each citation to its line. */
export interface HeadLocation {
  owner: string;
  repo: string;
  sha: string;
  /** The repository's web address (`https://github.example.com/owner/repo` on GitHub Enterprise); default github.com's. */
  repoUrl?: string;
}

export interface RenderedAcceptance {
  conclusion: 'success' | 'neutral';
  title: string;
  summary: string;
  text: string;
  annotations: CheckRunAnnotation[];
}

/** GitHub's limit on a check run's summary and on its text, each. Both together stay under it. */
export const CHECK_TEXT_LIMIT = 65_535;
const SUMMARY_BUDGET = 56_000;
const CRITERION_CHARS = 200;
const QUOTE_CHARS = 160;
const REASON_CHARS = 160;

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

const bound = (s: string, max: number): string => {
  const chars = Array.from(s.replace(/\s+/g, ' ').trim());
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
};

/** Safe inside a GFM table cell: no line breaks, pipes escaped. */
const cell = (s: string): string => s.replace(/\|/g, '\\|');

/** A code span that survives any backticks in `s`. */
const codeSpan = (s: string): string => {
  const longest = Math.max(0, ...Array.from(s.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
};

/** `<repository>/blob/<sha>/<path>#L<n>` on the repository's own web host, each path segment encoded. */
export const blobUrl = (head: HeadLocation, path: string, line: number): string =>
  `${head.repoUrl ?? `https://github.com/${encodeURIComponent(head.owner)}/${encodeURIComponent(head.repo)}`}/blob/${encodeURIComponent(head.sha)}/${path
    .split('/')
    .map(encodeURIComponent)
    .join('/')}#L${line}`;

/** The model's reason, sanitised again (stored evidence may predate the rule) and labelled as its words. */
const modelWords = (r: CriterionResult): string => {
  const said = r.modelReason === undefined ? '' : sanitiseModelReason(r.modelReason);
  return said === '' ? '' : ` · model's words: “${said}”`;
};

const evidenceCell = (r: CriterionResult, head: HeadLocation | null): string => {
  if (r.status === 'met' && r.citation !== null) {
    const where = `${r.citation.path}${r.citation.line !== null ? `:${r.citation.line}` : ''}`;
    const side = r.citation.side === 'removed' ? 'removed line ' : '';
    const place = codeSpan(bound(where, 120));
    const linked =
      head !== null && r.citation.side === 'head' && r.citation.line !== null
        ? `[${place}](${blobUrl(head, r.citation.path, r.citation.line)})`
        : place;
    return `${side}${linked} ${codeSpan(bound(r.citation.quote, QUOTE_CHARS))}${modelWords(r)}`;
  }
  return `${bound(r.reason, REASON_CHARS)}${modelWords(r)}`;
};

const row = (c: Criterion, r: CriterionResult, head: HeadLocation | null): string =>
  `| ${c.id} | ${cell(bound(c.text, CRITERION_CHARS))} | ${statusLabel(r.status)} | ${cell(evidenceCell(r, head))} |`;

const missingResult = (id: string): CriterionResult => ({
  id,
  status: 'gap',
  citation: null,
  reason: 'no result recorded',
  source: 'none',
});

/** Lines of a section, added while they fit in `room` characters. */
const fitLines = (lines: string[], room: number, more: (n: number) => string): string[] => {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; i < lines.length; i++) {
    if (size + lines[i].length + 1 + 80 > room) {
      out.push(more(lines.length - i));
      break;
    }
    out.push(lines[i]);
    size += lines[i].length + 1;
  }
  return out;
};

/** The check run for one candidate head: success only when every criterion is met, else neutral. */
export function renderAcceptanceCheck(
  evidence: AcceptanceEvidence | null,
  criteria: Criterion[],
  opts: { inProgress?: boolean; head?: HeadLocation } = {},
): RenderedAcceptance {
  if (opts.inProgress) {
    const what = plural(criteria.length, 'criterion', 'criteria');
    return {
      conclusion: 'neutral',
      title: `judging ${what}`,
      summary: `Arbiter is judging ${what} against this head.`,
      text: '',
      annotations: [],
    };
  }
  if (evidence === null || evidence.status === 'none' || criteria.length === 0) {
    return {
      conclusion: 'neutral',
      title: 'no acceptance criteria',
      summary:
        'The Change lists no acceptance criteria (list items under a heading or bold line named "Acceptance criteria").',
      text: '',
      annotations: [],
    };
  }

  const byId = new Map(evidence.results.map((r) => [r.id, r]));
  const pairs = criteria.map((c) => [c, byId.get(c.id) ?? missingResult(c.id)] as const);
  const count = (s: CriterionStatus): number => pairs.filter(([, r]) => r.status === s).length;
  const met = count('met');
  const allMet = met === criteria.length && evidence.status === 'pass';
  const extras = [
    count('gap') > 0 ? countWord(count('gap'), 'gap') : '',
    count('uncheckable') > 0 ? countWord(count('uncheckable'), 'uncheckable') : '',
  ]
    .filter(Boolean)
    .join(', ');
  const title = `${met} of ${plural(criteria.length, 'criterion', 'criteria')} met${extras ? ` (${extras})` : ''}`;

  const notes: string[] = [];
  if (evidence.truncated)
    notes.push('> The patch or a file was cut to fit the limits: criteria may be unclear for lack of material.');
  const header = ['| ID | Criterion | Result | Evidence |', '| --- | --- | --- | --- |'];
  const rows = fitLines(
    pairs.map(([c, r]) => row(c, r, opts.head ?? null)),
    SUMMARY_BUDGET - 4_000,
    (n) => `| … | ${plural(n, 'more criterion', 'more criteria')} not shown | | |`,
  );
  const person = pairs
    .filter(([, r]) => r.status === 'uncheckable')
    .map(([c]) => `- ${c.id}: ${bound(c.text, CRITERION_CHARS)}`);
  const gaps = pairs
    .filter(([, r]) => r.status === 'gap')
    .map(([c, r]) => `- ${c.id}: ${bound(r.reason, REASON_CHARS)}`);
  const tail: string[] = [];
  if (person.length > 0)
    tail.push(
      '',
      `**${statusExplained('uncheckable')}**, never counted as met:`,
      ...fitLines(person, 1_800, (n) => `- … and ${n} more`),
    );
  if (gaps.length > 0)
    tail.push('', `**${statusExplained('gap')}**:`, ...fitLines(gaps, 1_800, (n) => `- … and ${n} more`));
  const summary = [...notes, ...(notes.length > 0 ? [''] : []), ...header, ...rows, ...tail].join('\n');

  // How quotes are checked is docs/acceptance.md's to say, once; the check says what it found.
  const textLines = [
    allMet ? 'Every criterion is met.' : 'Acceptance warns; it never blocks a merge by itself.',
    "Text marked \"model's words\" is the model's own reason, not Arbiter's. Which quotes count as evidence: docs/acceptance.md.",
  ];
  // The summary is bounded to SUMMARY_BUDGET and the text is a few short lines: together under the limit.
  const text = textLines.join('\n');

  const annotations: CheckRunAnnotation[] = pairs.flatMap(([c, r]) =>
    r.status === 'met' && r.citation !== null && r.citation.side === 'head' && r.citation.line !== null
      ? [
          {
            path: r.citation.path,
            start_line: r.citation.line,
            end_line: r.citation.line,
            annotation_level: 'notice' as const,
            title: `${c.id} met`,
            message: bound(c.text, 500),
          },
        ]
      : [],
  );

  return { conclusion: allMet ? 'success' : 'neutral', title, summary, text, annotations };
}
