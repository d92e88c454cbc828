// The transcript of a scenario run: the JSON shape of DESIGN.md §9 (validated, extra keys
// dropped) and the readable rendering of the final state and its verdict line.
import { z } from 'zod';
import { markdownToText } from './markdown-text.ts';

export const WriteEntry = z.object({
  seq: z.number().int(),
  at: z.number(),
  method: z.string(),
  route: z.string(),
  path: z.string(),
  operation: z.string().nullable(),
  status: z.number().int(),
  summary: z.string(),
});
export type WriteEntry = z.infer<typeof WriteEntry>;

const Comment = z.object({ user: z.string(), body: z.string() });

const CheckAnnotation = z.object({
  path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  annotation_level: z.string(),
  message: z.string(),
  title: z.string().optional(),
});
const CheckButton = z.object({ label: z.string(), description: z.string(), identifier: z.string() });

/** A check run's state; its output and buttons extend §9 compatibly (absent in older transcripts). */
export const CheckState = z.object({
  status: z.string(),
  conclusion: z.string().nullable(),
  title: z.string().nullable(),
  summary: z.string().nullable().optional(),
  text: z.string().nullable().optional(),
  annotations: z.array(CheckAnnotation).optional(),
  actions: z.array(CheckButton).optional(),
  details_url: z.string().nullable().optional(),
});

/** An issue's or pull request's title and body extend §9 compatibly (absent in older transcripts). */
const Text = { title: z.string().optional(), body: z.string().optional() };

export const PrState = z.object({
  ...Text,
  state: z.string(),
  merged: z.boolean(),
  draft: z.boolean(),
  labels: z.array(z.string()),
  reviewers: z.array(z.string()),
  checks: z.record(z.string(), CheckState),
  comments: z.array(Comment),
  reactions: z.array(z.unknown()),
});
export type PrState = z.infer<typeof PrState>;

export const IssueState = z.object({
  ...Text,
  state: z.string(),
  labels: z.array(z.string()),
  comments: z.array(Comment),
});
export type IssueState = z.infer<typeof IssueState>;

export const Dispatch = z.object({ event_type: z.string(), client_payload: z.unknown() });
export const Restart = z.object({ at: z.number(), afterSeq: z.number().int() });
export type Restart = z.infer<typeof Restart>;

/** A receipt the run recorded and what replaying it said (absent in older transcripts). */
export const ReplayedEntry = z.object({
  id: z.number().int(),
  kind: z.string(),
  round: z.number().int(),
  replay: z.enum(['same', 'part-of-selection', 'part-of-plan', 'record']),
});

export const Transcript = z.object({
  writes: z.array(WriteEntry),
  prs: z.record(z.string(), PrState),
  issues: z.record(z.string(), IssueState),
  dispatches: z.array(Dispatch),
  restarts: z.array(Restart),
  receipts: z.array(ReplayedEntry).optional(),
});
export type Transcript = z.infer<typeof Transcript>;

export const SELECTION = 'Arbiter / selection';
export const AWAITING = 'arbiter:awaiting-approval';
const ACCEPTANCE = 'Arbiter / acceptance';
const COMPARISON = /<!-- arbiter:comparison:/;

/** The first lines of a comment as a terminal shows it (markdown rendered as text, blank lines dropped). */
function excerpt(body: string, lines = 4): string[] {
  const kept = markdownToText(body).filter((l) => l.trim() !== '');
  const shown = kept.slice(0, lines).map((l) => (l.length > 110 ? `${l.slice(0, 107)}...` : l));
  if (kept.length > lines) shown.push(`... (${kept.length - lines} more lines)`);
  return shown;
}

/** Why a loser lost: Arbiter's "Lost to #N: …" comment on it, else its selection title. */
function lossReason(pr: PrState): string {
  // The whole first line: the excerpt's cut would leave a reason ending in "..." (then "..").
  const said = pr.comments
    .filter((c) => c.user.endsWith('[bot]'))
    .map((c) => markdownToText(c.body).find((l) => l.trim() !== '') ?? '')
    .find((l) => l.startsWith('Lost to #'));
  return (said ?? selectionTitle(pr) ?? 'lost').replace(/ See the comparison on #\d+\.?$/, '').replace(/\.$/, '');
}

function selectionTitle(pr: PrState | undefined): string | null {
  return pr?.checks[SELECTION]?.title ?? null;
}

/** A PR's key as a reader names it: `#12` in the scenario's repository, `owner/api#7` in another. */
const prName = (key: string): string => (key.includes('#') ? key : `#${key}`);

/** The scenario's repository first (by number), then the other repositories' PRs (by name, then number). */
function byRepoThenNumber(a: string, b: string): number {
  const [ra, na] = a.includes('#') ? [a.split('#')[0]!, Number(a.split('#')[1])] : ['', Number(a)];
  const [rb, nb] = b.includes('#') ? [b.split('#')[0]!, Number(b.split('#')[1])] : ['', Number(b)];
  return ra === rb ? na - nb : ra < rb ? -1 : 1;
}

/** The final state, readable: each PR with its labels and Arbiter's check runs, then the Change's comments. */
export function renderFinalState(t: Transcript, change: number): string[] {
  const out: string[] = ['', 'Final state'];
  for (const [num, pr] of Object.entries(t.prs).sort((a, b) => byRepoThenNumber(a[0], b[0]))) {
    const state = pr.merged ? 'merged' : pr.state === 'closed' ? 'closed' : pr.draft ? 'open (draft)' : 'open';
    out.push(
      `  ${prName(num)}  ${state}   labels: ${pr.labels.length ? pr.labels.join(', ') : '-'}${pr.reviewers.length ? `   review requested: ${pr.reviewers.join(', ')}` : ''}`,
    );
    for (const [name, c] of Object.entries(pr.checks)
      .filter(([n]) => n.startsWith('Arbiter /'))
      .sort()) {
      const result = c.status === 'completed' ? (c.conclusion ?? 'completed') : c.status;
      const buttons = c.actions?.length ? `   buttons: ${c.actions.map((a) => a.label).join(', ')}` : '';
      out.push(`      ${name}: ${result}${c.title ? ` - ${c.title}` : ''}${buttons}`);
    }
    for (const cm of pr.comments)
      out.push(...excerpt(cm.body, 2).map((l, i) => (i === 0 ? `      ${cm.user}: ${l}` : `        ${l}`)));
  }
  const issue = t.issues[String(change)];
  if (issue) {
    out.push(
      `  Change #${change}  ${issue.state}   labels: ${issue.labels.length ? issue.labels.join(', ') : '-'}   ${issue.comments.length} comment(s)`,
    );
    // The comparison is what the run is about: shown whole, as text; other comments in their first lines.
    for (const cm of issue.comments) {
      const shown = COMPARISON.test(cm.body) ? markdownToText(cm.body) : excerpt(cm.body);
      out.push(...shown.map((l, i) => (i === 0 ? `      ${cm.user}: ${l}` : l === '' ? '' : `        ${l}`)));
    }
  }
  if (t.dispatches.length) out.push(`  Dispatches: ${t.dispatches.map((d) => d.event_type).join(', ')}`);
  if (t.restarts.length)
    out.push(`  Restarts: ${t.restarts.map((r) => `t=${r.at} after write ${r.afterSeq}`).join(', ')}`);
  return out;
}

/** One line naming the winner and why, or that a person must decide, read from the final state only. */
export function verdictLine(t: Transcript): string {
  const prs = Object.entries(t.prs);
  const merged = prs.filter(([, p]) => p.merged);
  if (merged.length) {
    const winners = merged.map(([n, p]) => {
      const why = [selectionTitle(p), p.checks[ACCEPTANCE]?.title].filter((x): x is string => Boolean(x));
      return `Winner: ${prName(n)} shipped (merged)${why.length ? ` - ${why.join('; ')}` : ''}`;
    });
    const losers = prs
      .filter(([, p]) => !p.merged && p.labels.includes('arbiter:lost'))
      .map(([n, p]) => `${prName(n)} (${lossReason(p)})`);
    return `${winners.join('. ')}.${losers.length ? ` Closed ${losers.join(', ')}.` : ''}`;
  }
  const waiting = prs.filter(([, p]) => p.state === 'open' && p.labels.includes(AWAITING));
  if (waiting.length) {
    return `A person must decide: ${waiting.map(([n, p]) => `${prName(n)} awaits approval${selectionTitle(p) ? ` (${selectionTitle(p)})` : ''}`).join('; ')}`;
  }
  const repairs = t.dispatches.filter((d) => d.event_type === 'arbiter.repair');
  if (repairs.length)
    return `No winner yet: a repair was requested (${repairs.length} dispatch${repairs.length > 1 ? 'es' : ''})`;
  const open = prs.filter(([, p]) => p.state === 'open');
  const reasons = open.map(([n, p]) => `${prName(n)}${selectionTitle(p) ? `: ${selectionTitle(p)}` : ''}`);
  return `No winner: a person must decide${reasons.length ? ` (${reasons.join('; ')})` : ''}`;
}

/** `path: message` lines when the emulator's state does not have the §9 shape. */
export function parseTranscript(raw: unknown): { ok: true; transcript: Transcript } | { ok: false; errors: string[] } {
  const r = Transcript.safeParse(raw);
  if (r.success) return { ok: true, transcript: r.data };
  return { ok: false, errors: r.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`) };
}
