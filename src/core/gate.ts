// Gate evidence: which checks are required on a candidate head, what they concluded, and
// whether the candidate is promotable. Pure: the shell passes in what GitHub reported.
import picomatch from 'picomatch';
import { approvalWords } from './agent-work.ts';
import type { GateEvidence, ObservedCheck, RequiredCheck } from './types.ts';

const PASS = new Set(['success', 'neutral', 'skipped']);
const FAIL = new Set(['failure', 'cancelled', 'timed_out', 'action_required', 'stale', 'startup_failure', 'error']);

/** Maps a check run (status + conclusion) or a commit status state onto pass / fail / pending. */
export function checkOutcome(
  kind: 'check' | 'status',
  statusOrState: string,
  conclusion: string | null,
): ObservedCheck['outcome'] {
  const value = (
    kind === 'check' ? (statusOrState.toLowerCase() === 'completed' ? (conclusion ?? '') : '') : statusOrState
  ).toLowerCase();
  if (PASS.has(value)) return 'pass';
  if (FAIL.has(value)) return 'fail';
  return 'pending';
}

export const ARBITER_CHECK_PREFIX = 'Arbiter / ';

export const isArbiterCheck = (name: string): boolean => name.startsWith(ARBITER_CHECK_PREFIX);

export interface GateInput {
  /** `gate.required` from config: names or globs, each optionally pinned to an app (`test@ci`). */
  configured: string[];
  /** Required status checks from the base branch's rules; null when the branch has none. */
  branchRequired: string[] | null;
  /** Every check run and status on the head (Arbiter's own are ignored here). */
  observed: ObservedCheck[];
  /** `gate.score`: the scoring check's name. */
  scoreCheck: string | null;
  /** `gate.allowNoChecks`: a head with no check at all may be promotable. Default false. */
  allowNoChecks?: boolean;
  /** Reasons found elsewhere that make this head unpromotable (its `.github/arbiter.yml` is invalid). */
  blockers?: string[];
  /**
   * The head's GitHub Actions runs wait for a maintainer's approval (src/core/agent-work.ts), with
   * the address where a person approves them: the head waits for that person, it has not failed.
   */
  awaitingApproval?: { url: string | null } | null;
}

const SCORE_PATTERN = /score\s*[:=]\s*(-?\d+(?:\.\d+)?)/i;

/** The first number after `score:` or `score=` in the title, else in the summary. */
export function readScore(check: Pick<ObservedCheck, 'title' | 'summary'> | undefined): number | null {
  if (!check) return null;
  for (const text of [check.title, check.summary]) {
    const match = text ? SCORE_PATTERN.exec(text) : null;
    if (match) return Number(match[1]);
  }
  return null;
}

/**
 * A `gate.required` entry: `name` or `name@app`, the app's slug or its numeric id (a ruleset's
 * `integration_id`, classic protection's `app_id`: the branch rules pin that way).
 */
export function parseRequired(entry: string): { pattern: string; app: string | null } {
  const at = entry.lastIndexOf('@');
  const app = at > 0 ? entry.slice(at + 1) : '';
  return /^[a-z0-9][a-z0-9-]*$/i.test(app)
    ? { pattern: entry.slice(0, at), app: app.toLowerCase() }
    : { pattern: entry, app: null };
}

const sourceOf = (c: ObservedCheck): string =>
  c.kind === 'check' ? `check:${c.app ?? ''}:${c.suite ?? ''}` : 'status:';

/**
 * Every name's reports, one per source (a commit status context, or one check suite of one app):
 * within a source the last report counts (a re-run), across sources every one counts.
 */
function reportsByName(observed: ObservedCheck[]): Map<string, ObservedCheck[]> {
  const latest = new Map<string, ObservedCheck>();
  for (const check of observed) latest.set(`${check.name}\u0000${sourceOf(check)}`, check);
  const byName = new Map<string, ObservedCheck[]>();
  for (const check of latest.values()) byName.set(check.name, [...(byName.get(check.name) ?? []), check]);
  return byName;
}

/** One required name from its reports: any failure fails it (a pass elsewhere never hides it). */
function combine(name: string, reports: ObservedCheck[]): RequiredCheck {
  const pick = reports.find((c) => c.outcome === 'fail') ?? reports.find((c) => c.outcome === 'pending') ?? reports[0];
  if (!pick) return { name, outcome: 'missing', raw: null, kind: null };
  const detail = pick.kind === 'status' && pick.title ? { detail: pick.title } : {};
  return { name, outcome: pick.outcome, raw: pick.raw, kind: pick.kind, ...detail };
}

function requiredFromPatterns(entries: string[], byName: Map<string, ObservedCheck[]>): RequiredCheck[] {
  const required: RequiredCheck[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const { pattern, app } = parseRequired(entry);
    // A pinned entry counts only that app's check runs as a pass: another app's pass (or a
    // status) is no evidence; but any failure of the name still fails it.
    const reportsOf = (name: string): ObservedCheck[] =>
      (byName.get(name) ?? []).filter(
        (c) =>
          app === null ||
          (c.kind === 'check' && (c.app?.toLowerCase() === app || (c.appId != null && String(c.appId) === app))) ||
          c.outcome === 'fail',
      );
    const isGlob = picomatch.scan(pattern).isGlob;
    const names = isGlob ? [...byName.keys()].filter((name) => picomatch.isMatch(name, pattern)) : [pattern];
    const matches = names.filter((name) => reportsOf(name).length > 0);
    if (matches.length === 0) {
      // Not reported yet: waited for (until `selection.siblingTimeout`), never a failure by itself.
      // Reported only by another app than the pinned one: say which, or the wait looks endless.
      const others = [
        ...new Set(
          names.flatMap((name) =>
            (byName.get(name) ?? []).map((c) => (c.kind === 'check' ? (c.app ?? 'an app') : 'a commit status')),
          ),
        ),
      ];
      const pinned = app !== null && others.length > 0 ? { pinned: { app, reportedBy: others.sort() } } : {};
      if (!seen.has(entry)) required.push({ name: pattern, outcome: 'missing', raw: null, kind: null, ...pinned });
      seen.add(entry);
      continue;
    }
    for (const name of matches.sort()) {
      if (seen.has(name)) continue;
      seen.add(name);
      required.push(combine(name, reportsOf(name)));
    }
  }
  return required;
}

const NO_CHECKS = 'no checks reported yet';

/** "`test` came from `ci`; `gate.required` pins `github-actions`" */
function pinnedWords(c: RequiredCheck, source: GateEvidence['source']): string | null {
  if (!c.pinned) return null;
  const from = c.pinned.reportedBy.map((a) => (a === 'a commit status' || a === 'an app' ? a : `\`${a}\``));
  const who = source === 'branch-rules' ? "the branch's rules pin" : '`gate.required` pins';
  return `\`${c.name}\` came from ${from.join(' and ')}; ${who} \`${c.pinned.app}\``;
}

function describe(required: RequiredCheck[], settled: boolean, source: GateEvidence['source']): string {
  const failed = required
    .filter((c) => c.outcome === 'fail')
    .map((c) => (c.detail ? `\`${c.name}\` (commit status: “${c.detail}”)` : `\`${c.name}\``));
  if (failed.length > 0) return `required check ${failed.join(', ')} failed`;
  if (!settled) {
    const open = required.filter((c) => c.outcome === 'pending' || c.outcome === 'missing');
    const waiting = open.map((c) => `\`${c.name}\``);
    const pinned = open.map((c) => pinnedWords(c, source)).filter((w): w is string => w !== null);
    if (waiting.length === 0) return NO_CHECKS;
    return `waiting on ${waiting.join(', ')}${pinned.length > 0 ? `: ${pinned.join('; ')}` : ''}`;
  }
  if (required.length === 0) return source === 'all-suites' ? 'no checks reported' : 'no required checks';
  return 'every required check passed';
}

export function computeGate(input: GateInput): GateEvidence {
  const observed = input.observed.filter((c) => !isArbiterCheck(c.name));
  const byName = reportsByName(observed);
  let source: GateEvidence['source'];
  let required: RequiredCheck[];
  if (input.configured.length > 0) {
    source = 'config';
    required = requiredFromPatterns(input.configured, byName);
  } else if (input.branchRequired && input.branchRequired.length > 0) {
    source = 'branch-rules';
    required = requiredFromPatterns(input.branchRequired, byName);
  } else {
    source = 'all-suites';
    required = [...byName.entries()].map(([name, reports]) => combine(name, reports));
  }
  const blockers = input.blockers ?? [];
  const failed = required.some((c) => c.outcome === 'fail') || blockers.length > 0;
  // CI may register after the push: a head on which nothing reported is waited for, not shipped.
  const noChecks = observed.length === 0 && input.allowNoChecks !== true;
  // The score ranks siblings, so a candidate waits for its scoring check to report too: else
  // the order in which scores arrive would decide.
  const scoreReports = input.scoreCheck ? (byName.get(input.scoreCheck) ?? []) : [];
  const scoreRun = scoreReports.find((c) => c.kind === 'check') ?? scoreReports[0];
  const scorePending = input.scoreCheck !== null && (!scoreRun || scoreRun.outcome === 'pending');
  // A failed required check settles the candidate at once: nothing can make it promotable again.
  const allPassed = required.every((c) => c.outcome === 'pass') && !noChecks;
  // Runs that wait for a maintainer's approval have not run: what passed so far is not all the CI.
  const awaiting = input.awaitingApproval ?? null;
  const settled = failed || (allPassed && !scorePending && awaiting === null);
  const promotable = settled && !failed;
  const passingChecks = [...byName.values()].filter((reports) => reports.every((c) => c.outcome === 'pass')).length;
  const score = input.scoreCheck ? readScore(scoreRun) : null;
  const reason =
    blockers.length > 0
      ? blockers.join('; ')
      : !failed && awaiting !== null
        ? approvalWords(awaiting.url)
        : !failed && !settled && allPassed
          ? `waiting on the scoring check \`${input.scoreCheck}\``
          : describe(required, settled, source);
  return {
    required,
    source,
    settled,
    promotable,
    reason,
    passingChecks,
    score,
    timedOut: false,
    ...(blockers.length > 0 ? { blockers } : {}),
    ...(awaiting !== null && !failed ? { awaitingApproval: awaiting } : {}),
  };
}

/** The sweep's verdict on a sibling whose checks never finished (never on runs that wait for a person's approval). */
export function timeOutGate(gate: GateEvidence): GateEvidence {
  if (gate.settled || gate.awaitingApproval) return gate;
  return { ...gate, settled: true, promotable: false, timedOut: true, reason: `timed out: ${gate.reason}` };
}
