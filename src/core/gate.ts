// Gate evidence: which checks are required on a candidate head, what they concluded, and
// whether the candidate is promotable. Pure: the shell passes in what GitHub reported.
import picomatch from 'picomatch';
import type { GateEvidence, ObservedCheck, RequiredCheck } from './types.ts';

const PASS = new Set(['success', 'neutral', 'skipped']);
const FAIL = new Set(['failure', 'cancelled', 'timed_out', 'action_required', 'stale', 'startup_failure', 'error']);

/** Maps a check run (status + conclusion) or a commit status state onto pass / fail / pending. */
export function checkOutcome(kind: 'check' | 'status', statusOrState: string, conclusion: string | null): ObservedCheck['outcome'] {
  const value = (kind === 'check' ? (statusOrState.toLowerCase() === 'completed' ? conclusion ?? '' : '') : statusOrState).toLowerCase();
  if (PASS.has(value)) return 'pass';
  if (FAIL.has(value)) return 'fail';
  return 'pending';
}

export const ARBITER_CHECK_PREFIX = 'Arbiter / ';

export const isArbiterCheck = (name: string): boolean => name.startsWith(ARBITER_CHECK_PREFIX);

export interface GateInput {
  /** `gate.required` from config: names or globs. */
  configured: string[];
  /** Required status checks from the base branch's rules; null when the branch has none. */
  branchRequired: string[] | null;
  /** Every check run and status on the head (Arbiter's own are ignored here). */
  observed: ObservedCheck[];
  /** `gate.score`: the scoring check's name. */
  scoreCheck: string | null;
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

/** When a name was reported more than once (re-runs), the last report counts. */
function latestByName(observed: ObservedCheck[]): Map<string, ObservedCheck> {
  const byName = new Map<string, ObservedCheck>();
  for (const check of observed) byName.set(check.name, check);
  return byName;
}

function requiredFromPatterns(patterns: string[], byName: Map<string, ObservedCheck>): RequiredCheck[] {
  const required: RequiredCheck[] = [];
  const seen = new Set<string>();
  for (const pattern of patterns) {
    const isGlob = picomatch.scan(pattern).isGlob;
    const matches = isGlob ? [...byName.keys()].filter((name) => picomatch.isMatch(name, pattern)) : byName.has(pattern) ? [pattern] : [];
    if (matches.length === 0) {
      if (!seen.has(pattern)) required.push({ name: pattern, outcome: 'missing', raw: null, kind: null });
      seen.add(pattern);
      continue;
    }
    for (const name of matches.sort()) {
      if (seen.has(name)) continue;
      seen.add(name);
      const check = byName.get(name)!;
      required.push({ name, outcome: check.outcome, raw: check.raw, kind: check.kind });
    }
  }
  return required;
}

function describe(required: RequiredCheck[], settled: boolean, source: GateEvidence['source']): string {
  const failed = required.filter((c) => c.outcome === 'fail').map((c) => `\`${c.name}\``);
  if (failed.length > 0) return `required check ${failed.join(', ')} failed`;
  if (!settled) {
    const waiting = required.filter((c) => c.outcome === 'pending' || c.outcome === 'missing').map((c) => `\`${c.name}\``);
    return `waiting on ${waiting.join(', ')}`;
  }
  if (required.length === 0) return source === 'all-suites' ? 'no checks reported' : 'no required checks';
  return 'every required check passed';
}

export function computeGate(input: GateInput): GateEvidence {
  const observed = input.observed.filter((c) => !isArbiterCheck(c.name));
  const byName = latestByName(observed);
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
    required = [...byName.values()].map((c) => ({ name: c.name, outcome: c.outcome, raw: c.raw, kind: c.kind }));
  }
  const failed = required.some((c) => c.outcome === 'fail');
  // The score ranks siblings, so a candidate waits for its scoring check to report too: else
  // the order in which scores arrive would decide.
  const scoreRun = input.scoreCheck ? byName.get(input.scoreCheck) : undefined;
  const scorePending = input.scoreCheck !== null && (!scoreRun || scoreRun.outcome === 'pending');
  // A failed required check settles the candidate at once: nothing can make it promotable again.
  const settled = failed || (required.every((c) => c.outcome === 'pass') && !scorePending);
  const promotable = settled && !failed;
  const passingChecks = [...byName.values()].filter((c) => c.outcome === 'pass').length;
  const score = input.scoreCheck ? readScore(scoreRun) : null;
  const reason = !failed && !settled && required.every((c) => c.outcome === 'pass') ? `waiting on the scoring check \`${input.scoreCheck}\`` : describe(required, settled, source);
  return { required, source, settled, promotable, reason, passingChecks, score, timedOut: false };
}

/** The sweep's verdict on a sibling whose checks never finished. */
export function timeOutGate(gate: GateEvidence): GateEvidence {
  if (gate.settled) return gate;
  return { ...gate, settled: true, promotable: false, timedOut: true, reason: `timed out: ${gate.reason}` };
}
