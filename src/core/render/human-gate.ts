// The human gate in words: which PR waits, why (not met, unclear, for a person, not judged,
// each apart), who is asked, and the exact things a person can do. Pure functions of evidence.
import type { CandidateEvidence, Criterion, CriterionStatus } from '../types.ts';
import { blocks, prLink, shorten, type RepoUrl } from './markdown.ts';
import { markerFor } from './markers.ts';
import { STATUS_ORDER, statusExplained } from './vocabulary.ts';
import type { ModeConfig } from './mode-words.ts';

/** Each status a person must weigh, in the vocabulary's words, in the order they are listed. */
export const MISSING_WORDS: [CriterionStatus, string][] = STATUS_ORDER.filter((s) => s !== 'met').map((s) => [
  s,
  statusExplained(s),
]);

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
  /**
   * `@alice`, `@org/team`: asked to review (config reviewers, else CODEOWNERS, else the Change's
   * author). Shadow mode asks nobody, so it mentions nobody: a mention notifies.
   */
  mentions: string[];
  /** Closed losers a person may bring back. */
  losers: number[];
  repoUrl: RepoUrl;
  /** The configured mode. Shadow mode: nothing ships, so the ways out are what would ship it in live mode. */
  config: ModeConfig;
}

const isShadow = (input: { config: ModeConfig }): boolean => input.config.mode === 'shadow';
/** Who is asked, as the comment names them: nobody in shadow mode, which asks nobody. */
const mentionsOf = (input: { config: ModeConfig; mentions: string[] }): string[] =>
  isShadow(input) ? [] : input.mentions;
const decisionNeeded = (input: { config: ModeConfig; mentions: string[] }): string | null => {
  const mentions = mentionsOf(input);
  return mentions.length > 0 ? `${mentions.join(' ')}: your decision is needed.` : null;
};

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
  input: Pick<HumanGateInput, 'pr' | 'winner' | 'change' | 'prefix' | 'losers' | 'repoUrl' | 'config'>,
): string {
  const here = prLink(input.repoUrl, input.pr);
  if (isShadow(input)) return shadowGateActions(input, here);
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

/** What would stop the Change, or ship a loser instead, in shadow mode's words. */
function shadowOtherWays(input: Pick<HumanGateInput, 'change' | 'prefix' | 'losers' | 'repoUrl'>): string[] {
  return [
    `- the comment \`${input.prefix} cancel\` on #${input.change} would stop the Change.`,
    ...(input.losers.length > 0
      ? [
          `- reopening a candidate that lost (${input.losers.map((n) => prLink(input.repoUrl, n)).join(', ')}) and the comment \`${input.prefix} promote\` on it would ship it instead.`,
        ]
      : []),
  ];
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
  return blocks(
    `**In live mode, any one of these would ship ${here}** (shadow mode: Arbiter answers, and nothing would be merged):`,
    ship.join('\n'),
    '**Otherwise**:',
    shadowOtherWays(input).join('\n'),
  );
}

/** The comment on a candidate before a person. */
export function renderHumanGate(input: HumanGateInput): string {
  const here = prLink(input.repoUrl, input.pr);
  const named = `${here}${input.title ? ` (${shorten(input.title, 60)})` : ''}${input.evidence?.author ? ` by @${input.evidence.author}` : ''}`;
  const shadow = isShadow(input);
  const lead =
    input.winner === input.pr
      ? `${named} is the best candidate for #${input.change}, and a person ${shadow ? 'would decide whether it ships' : 'must decide whether it ships'}.`
      : `${named} is one of ${input.candidates.length} candidates for #${input.change} that a person ${shadow ? 'would choose' : 'must choose'} between.`;
  const missing = missingCriteria(input.criteria, input.evidence);
  return blocks(
    markerFor(input.marker),
    `### Arbiter: ${here} ${shadow ? 'would wait' : 'waits'} for a person`,
    decisionNeeded(input),
    lead,
    `**Why**: ${input.why}`,
    missing.length > 0 ? `Criteria not met on ${here}:\n\n${missing.join('\n')}` : null,
    gateActions(input),
  );
}

export interface TiedGateInput extends Pick<
  HumanGateInput,
  'marker' | 'candidates' | 'change' | 'why' | 'criteria' | 'prefix' | 'mentions' | 'losers' | 'repoUrl' | 'config'
> {
  titles?: Record<string, string>;
  evidence: ReadonlyMap<number, CandidateEvidence>;
}

/** The one comment on the Change for a tie before a person: each tied candidate, and how to ship one. */
export function renderTiedGate(input: TiedGateInput): string {
  const links = input.candidates.map((pr) => prLink(input.repoUrl, pr));
  const listed = `${links.slice(0, -1).join(', ')} and ${links[links.length - 1]}`;
  const each = input.candidates.map((pr) => {
    const title = input.titles?.[pr];
    const missing = missingCriteria(input.criteria, input.evidence.get(pr));
    const head = `- ${prLink(input.repoUrl, pr)}${title ? ` (${shorten(title, 60)})` : ''}`;
    return missing.length > 0
      ? `${head}:\n${missing.map((m) => `  ${m}`).join('\n')}`
      : `${head}: every criterion met.`;
  });
  const shadow = isShadow(input);
  return blocks(
    markerFor(input.marker),
    `### Arbiter: ${listed} ${shadow ? 'would wait' : 'wait'} for a person to choose one`,
    decisionNeeded(input),
    `${listed} are tied for #${input.change}; a person ${shadow ? 'would choose' : 'must choose'} which ships.`,
    `**Why**: ${input.why}`,
    `Criteria not met, by candidate:\n\n${each.join('\n')}`,
    shadow ? shadowTiedWays(input) : tiedWays(input),
  );
}

/** How a person ships one of the tied candidates, or stops the Change. */
function tiedWays(input: Pick<TiedGateInput, 'change' | 'prefix' | 'losers' | 'repoUrl'>): string {
  const ship = [
    `- approve it in a review (write access);`,
    `- or comment \`${input.prefix} promote\` on it;`,
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
  return blocks(
    `**To ship one of them**, on that pull request do one of:`,
    ship.join('\n'),
    '**Otherwise**:',
    other.join('\n'),
  );
}

/** The tie's ways out in shadow mode: what would ship one of them in live mode; here nothing would change. */
function shadowTiedWays(input: Pick<TiedGateInput, 'change' | 'prefix' | 'losers' | 'repoUrl'>): string {
  const ship = [
    `- an approval of it in a review (write access);`,
    `- or the comment \`${input.prefix} promote\` on it;`,
    `- or **Promote** on its \`Arbiter / selection\` check run.`,
  ];
  return blocks(
    `**In live mode, any one of these on one of them would ship it** (shadow mode: Arbiter answers, and nothing would be merged):`,
    ship.join('\n'),
    '**Otherwise**:',
    shadowOtherWays(input).join('\n'),
  );
}
