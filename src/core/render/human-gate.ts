// The human gate in words: which PR waits, why (not met, unclear, cannot be checked, not judged,
// each apart), who is asked, and the exact things a person can do. Pure functions of evidence.
import type { CandidateEvidence, Criterion, CriterionStatus } from '../types.ts';
import { blocks, prLink, shorten, type RepoUrl } from './markdown.ts';
import { markerFor } from './markers.ts';

/** Each status a person must weigh, in plain words, in the order they are listed. */
export const MISSING_WORDS: [CriterionStatus, string][] = [
  ['not_met', 'Not met (the change does not do this)'],
  ['unclear', 'Unclear (the evidence does not settle it either way)'],
  ['uncheckable', 'Cannot be checked from the code (a person or a check has to look)'],
  ['gap', 'Not judged (the model failed or its budget ran out; nothing was decided)'],
];

export interface HumanGateInput {
  /** The hidden marker that names this comment. */
  marker: string;
  /** The PR this message is on, and the one it asks about. */
  pr: number;
  /** The best candidate when there is one; null when a person must choose among several. */
  winner: number | null;
  /** Every candidate before a person. */
  candidates: number[];
  change: number;
  title?: string;
  why: string;
  criteria: Criterion[];
  evidence: CandidateEvidence | undefined;
  prefix: string;
  /** `@alice`, `@org/team`: asked to review (config reviewers, else CODEOWNERS, else the Change's author). */
  mentions: string[];
  /** Closed losers a person may bring back. */
  losers: number[];
  repoUrl: RepoUrl;
  /** Shadow mode: nothing ships, so the ways out are what would ship it in live mode. */
  shadow?: boolean;
}

/** The criteria of one candidate that are not met, grouped by why, as list items. */
export function missingCriteria(criteria: Criterion[], evidence: CandidateEvidence | undefined): string[] {
  const results = evidence?.acceptance?.results ?? [];
  const items: string[] = [];
  for (const [status, words] of MISSING_WORDS) {
    const hit = criteria.filter((c) => results.some((r) => r.id === c.id && r.status === status));
    if (hit.length === 0) continue;
    const named = hit.map((c) => `${c.id} (${shorten(c.text.replace(/\s+/g, ' ').replace(/\.$/, ''), 80)})`);
    items.push(`- **${words}**: ${named.join('; ')}`);
  }
  return items;
}

/** The ways out, each a thing to do and where. */
export function gateActions(
  input: Pick<HumanGateInput, 'pr' | 'winner' | 'change' | 'prefix' | 'losers' | 'repoUrl' | 'shadow'>,
): string {
  const here = prLink(input.repoUrl, input.pr);
  if (input.shadow) return shadowGateActions(input, here);
  const ship = [
    `- approve ${here} in a review (write access);`,
    `- or comment \`${input.prefix} promote\` on ${here};`,
    `- or press **Promote** on its \`Arbiter / selection\` check run.`,
  ];
  const other = [
    `- to stop the Change, comment \`${input.prefix} cancel\` on #${input.change}.`,
    ...(input.losers.length > 0
      ? [
          `- to ship a candidate that lost (${input.losers.map((n) => prLink(input.repoUrl, n)).join(', ')}), reopen it and comment \`${input.prefix} promote\` on it.`,
        ]
      : []),
  ];
  // A paragraph between the two lists keeps them apart (adjacent lists would merge into one).
  return blocks(`**To ship ${here}**, do one of:`, ship.join('\n'), '**Otherwise**:', other.join('\n'));
}

/** The ways out in shadow mode: each is what would ship or stop it in live mode; here nothing would change. */
function shadowGateActions(
  input: Pick<HumanGateInput, 'change' | 'prefix' | 'losers' | 'repoUrl'>,
  here: string,
): string {
  const ship = [
    `- an approval of ${here} in a review (write access);`,
    `- or the comment \`${input.prefix} promote\` on ${here};`,
    `- or **Promote** on its \`Arbiter / selection\` check run.`,
  ];
  const other = [
    `- the comment \`${input.prefix} cancel\` on #${input.change} would stop the Change.`,
    ...(input.losers.length > 0
      ? [
          `- reopening a candidate that lost (${input.losers.map((n) => prLink(input.repoUrl, n)).join(', ')}) and the comment \`${input.prefix} promote\` on it would ship it instead.`,
        ]
      : []),
  ];
  return blocks(
    `**In live mode, any one of these would ship ${here}** (shadow mode: Arbiter answers, and nothing would be merged):`,
    ship.join('\n'),
    '**Otherwise**:',
    other.join('\n'),
  );
}

/** The comment on a candidate before a person. */
export function renderHumanGate(input: HumanGateInput): string {
  const here = prLink(input.repoUrl, input.pr);
  const named = `${here}${input.title ? ` (${shorten(input.title, 60)})` : ''}${input.evidence?.author ? ` by @${input.evidence.author}` : ''}`;
  const lead =
    input.winner === input.pr
      ? `${named} is the best candidate for #${input.change}, and a person ${input.shadow ? 'would decide whether it ships' : 'must decide whether it ships'}.`
      : `${named} is one of ${input.candidates.length} candidates for #${input.change} that a person ${input.shadow ? 'would choose' : 'must choose'} between.`;
  const missing = missingCriteria(input.criteria, input.evidence);
  return blocks(
    markerFor(input.marker),
    `### Arbiter: ${here} ${input.shadow ? 'would wait' : 'waits'} for a person`,
    input.mentions.length > 0 ? `${input.mentions.join(' ')}: your decision is needed.` : null,
    lead,
    `**Why**: ${input.why}`,
    missing.length > 0 ? `Criteria not met on ${here}:\n\n${missing.join('\n')}` : null,
    gateActions(input),
  );
}
