// The dashboard issue in words: what waits for a person (why, which candidate, what to do), the
// open rounds and what each waits for, and the last decisions, linked. A pure function of a view
// the workflow builds from the store; it always fits GitHub's body limit.
import type { Receipt } from '../receipt.ts';
import { blocks, BODY_LIMIT, cell, prLink, shorten, type RepoUrl } from './markdown.ts';
import { markerFor } from './markers.ts';
import type { ModeConfig } from './mode-words.ts';

export const DASHBOARD_TITLE = 'Arbiter dashboard';
/** The hidden marker that names the dashboard issue (only on an issue Arbiter opened). */
export const DASHBOARD_MARKER = 'dashboard';
/** Decisions listed, newest first. */
export const DASHBOARD_DECISIONS = 20;

export interface WaitingChange {
  change: number;
  title: string;
  /** The best candidate, or null when a person must choose among `candidates`. */
  winner: number | null;
  candidates: number[];
  why: string;
}

export interface OpenRound {
  change: number;
  title: string;
  base: string;
  round: number;
  /** What the round waits for, in plain words (`#12: CI running`), or empty while it is being compared. */
  waitingOn: string[];
}

export interface DashboardDecision {
  change: number;
  round: number;
  /** ISO time of the decision. */
  at: string;
  /** One line: `#13 shipped`, `#12 waits for a person`… */
  what: string;
}

export interface DashboardView {
  repoUrl: RepoUrl;
  prefix: string;
  /** The configured mode: shadow mode's dashboard says what would wait, and that nothing was changed. */
  config: ModeConfig;
  waiting: WaitingChange[];
  rounds: OpenRound[];
  /** Newest first; at most DASHBOARD_DECISIONS are shown. */
  decisions: DashboardDecision[];
  /** The problems of the default branch's `.github/arbiter.yml`, one per line (`path (line N): message`); empty while it validates. */
  configProblems?: string;
}

/** The section on top while the configuration does not validate: what is wrong, where, and what Arbiter does meanwhile. */
function configSection(view: DashboardView): string | null {
  const problems = (view.configProblems ?? '').trim();
  if (problems === '') return null;
  const lines = problems
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(0, 20)
    .map((l) => `- ${cell(oneLine(l, 300))}`);
  return blocks(
    '## `.github/arbiter.yml` does not validate',
    "Arbiter acts on no Change until the default branch's `.github/arbiter.yml` is fixed; the failing `Arbiter / config` check on its head names the same lines, and every command is answered with them:",
    lines.join('\n'),
  );
}

const isShadow = (view: { config: ModeConfig }): boolean => view.config.mode === 'shadow';
const issueLink = (repoUrl: RepoUrl, n: number): string => (repoUrl ? `[#${n}](${repoUrl}/issues/${n})` : `#${n}`);
const oneLine = (text: string, max: number): string => shorten(text.replace(/\s+/g, ' ').trim(), max);

/** What a person does about one waiting Change: the candidate and the exact command. */
function actionOf(view: DashboardView, w: WaitingChange): string {
  const cancel = `\`${view.prefix} cancel\` on ${issueLink(view.repoUrl, w.change)}`;
  if (w.winner !== null)
    return `approve ${prLink(view.repoUrl, w.winner)} or comment \`${view.prefix} promote\` on ${prLink(view.repoUrl, w.winner)}; or ${cancel}`;
  if (w.candidates.length === 0) return `open a candidate, or ${cancel}`;
  return `choose one of ${w.candidates.map((n) => prLink(view.repoUrl, n)).join(', ')} and comment \`${view.prefix} promote\` on it; or ${cancel}`;
}

function waitingTable(view: DashboardView, items: WaitingChange[], whyMax: number): string {
  if (items.length === 0) return isShadow(view) ? 'Nothing would wait for a person.' : 'Nothing waits for a person.';
  const rows = items.map((w) => {
    const candidate =
      w.winner !== null
        ? prLink(view.repoUrl, w.winner)
        : w.candidates.map((n) => prLink(view.repoUrl, n)).join(', ') || '—';
    return `| ${issueLink(view.repoUrl, w.change)} ${cell(oneLine(w.title, 60))} | ${cell(oneLine(w.why, whyMax))} | ${candidate} | ${cell(actionOf(view, w))} |`;
  });
  return ['| Change | Reason | Candidate | Action |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

function roundList(view: DashboardView, items: OpenRound[]): string {
  if (items.length === 0) return 'No round is open.';
  return items
    .map((r) => {
      const what =
        r.waitingOn.length > 0
          ? `waits for ${r.waitingOn.map((w) => oneLine(w, 80)).join('; ')}`
          : 'every candidate has settled: being compared';
      return `- ${issueLink(view.repoUrl, r.change)} ${oneLine(r.title, 60)}, round ${r.round} on \`${cell(r.base)}\`: ${what}`;
    })
    .join('\n');
}

function decisionList(view: DashboardView): string {
  const shown = view.decisions.slice(0, DASHBOARD_DECISIONS);
  if (shown.length === 0) return 'No decision yet.';
  return shown
    .map(
      (d) =>
        `- ${d.at.slice(0, 16).replace('T', ' ')} UTC, ${issueLink(view.repoUrl, d.change)} round ${d.round}: ${oneLine(d.what, 160)}`,
    )
    .join('\n');
}

function render(
  view: DashboardView,
  waiting: WaitingChange[],
  rounds: OpenRound[],
  whyMax: number,
  cut: string | null,
): string {
  const verb = isShadow(view) ? 'would wait' : 'waits';
  return blocks(
    markerFor(DASHBOARD_MARKER),
    isShadow(view)
      ? '> Shadow mode: Arbiter changes no pull request. What it lists below is what it would do; this issue is the only thing it writes besides its comments and checks.'
      : null,
    configSection(view),
    `## What ${verb} for a person`,
    waitingTable(view, waiting, whyMax),
    '## Open rounds',
    roundList(view, rounds),
    `## Last ${DASHBOARD_DECISIONS} decisions`,
    decisionList(view),
    cut,
    `Arbiter keeps this issue up to date, at most once a minute. Set \`dashboard: false\` in \`.github/arbiter.yml\` to stop it.`,
  );
}

/** The dashboard issue's body, under GitHub's limit however many Changes there are. */
export function renderDashboard(view: DashboardView): string {
  const full = render(view, view.waiting, view.rounds, 200, null);
  if (full.length <= BODY_LIMIT) return full;
  // Too long: shorter reasons, and as many rows as fit (found by halving), saying how many are not shown.
  const cutOf = (keep: number): string | null => {
    const hidden = Math.max(0, view.waiting.length - keep) + Math.max(0, view.rounds.length - keep);
    return hidden > 0
      ? `_${hidden} more ${hidden === 1 ? 'entry is' : 'entries are'} not shown (GitHub's length limit)._`
      : null;
  };
  const at = (keep: number): string =>
    render(view, view.waiting.slice(0, keep), view.rounds.slice(0, keep), 80, cutOf(keep));
  let lo = 0;
  let hi = Math.max(view.waiting.length, view.rounds.length);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (at(mid).length <= BODY_LIMIT) lo = mid;
    else hi = mid - 1;
  }
  const body = at(lo);
  if (body.length <= BODY_LIMIT) return body;
  return render({ ...view, decisions: [] }, [], [], 80, '_The dashboard is too long to show._');
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const prs = (v: unknown): string =>
  Array.isArray(v) ? v.flatMap((n) => (num(n) === null ? [] : [`#${n}`])).join(', ') : '';

/** One line for a decision receipt (GitHub links the `#N` it names). */
/** A receipt's kind and data, kept together per kind. */
type KindAndData<R> = R extends Receipt ? Pick<R, 'kind' | 'data'> : never;

export function describeDecision(r: KindAndData<Receipt>, config: ModeConfig): string {
  const shadow = isShadow({ config });
  switch (r.kind) {
    case 'CANDIDATE_SELECTION':
      return text(r.data.headline) ?? `selection: ${text(r.data.verdict) ?? 'decided'}`;
    case 'PROMOTION': {
      const by = text(r.data.by);
      return `#${num(r.data.candidate) ?? '?'} shipped${by && by !== 'arbiter' ? ` on @${by}'s word` : ''}`;
    }
    case 'HUMAN_GATE': {
      const decision = text(r.data.decision);
      if (decision) return `${prs(r.data.candidates)} ${decision}${text(r.data.by) ? ` (@${r.data.by})` : ''}`;
      return `${prs(r.data.candidates) || 'the Change'} ${shadow ? 'would wait' : 'waits'} for a person: ${text(r.data.why) ?? 'a person must decide'}`;
    }
    case 'ACCEPTANCE_REPAIR':
      return `${shadow ? 'a repair would be requested' : 'a repair was requested'} for #${num(r.data.candidate) ?? '?'}${text(r.data.objective) ? `: ${r.data.objective}` : ''}`;
    case 'CANCEL':
      return `cancelled${text(r.data.by) ? ` by @${r.data.by}` : ''}${prs(r.data.closed) ? `, closing ${prs(r.data.closed)}` : ''}`;
    case 'COMBINED_CANDIDATE':
      return 'a combined candidate was built from two siblings';
    case 'PORTFOLIO_WIDE':
      return 'the wide round of a portfolio search was ranked';
    case 'PORTFOLIO_DEEP':
      return 'the deep round of a portfolio search was dispatched';
    default:
      return r.kind;
  }
}
