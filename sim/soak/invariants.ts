// The claims a soak checks on every schedule, from the transcripts of the faulty run and of the
// fault-free run of the same fixture (the baseline). Each violation is one readable line.
import { DEFAULT_CANDIDATE_AUTHOR } from '../scenario-schema.ts';
import type { PrState, Scenario, Transcript } from '../runner/index.ts';

const APP_BOT = 'arbiter[bot]';
const AWAITING = 'arbiter:awaiting-approval';
const ARBITER_CHECK = 'Arbiter / ';
const TRUSTED_PERMISSIONS = new Set(['write', 'maintain', 'admin']);
const MERGE_ROUTE = '/repos/{owner}/{repo}/pulls/{pull_number}/merge';
const MERGE_OPERATIONS = /^(mergePullRequest|enablePullRequestAutoMerge|enqueuePullRequest)\b/;

/** The Change a pull request is for: its `Candidate-for: #N`, else the scenario's Change. */
function changeOf(pr: PrState, scenario: Scenario): number {
  const m = /Candidate-for:\s*#(\d+)/i.exec(pr.body ?? '');
  return m ? Number(m[1]) : scenario.change.number;
}

/**
 * Candidates whose author the scenario does not trust: not the default agent, without write
 * access, and not merged by the fault-free run (an author admitted by `trust.agents` or a
 * person's `/arbiter admit` is merged there).
 */
function untrustedCandidates(scenario: Scenario, baseline: Transcript): number[] {
  return scenario.candidates
    .filter((c) => {
      if (c.author === DEFAULT_CANDIDATE_AUTHOR) return false;
      const user = scenario.users[c.author];
      if (user && TRUSTED_PERMISSIONS.has(user.permission)) return false;
      return baseline.prs[String(c.number)]?.merged !== true;
    })
    .map((c) => c.number);
}

/** What a Change ended as: merged, cancelled, before a person, or none of these. */
export function changeEnds(t: Transcript, scenario: Scenario): Map<number, string> {
  const out = new Map<number, string>();
  for (const change of [scenario.change, ...scenario.changes]) {
    const prs = Object.entries(t.prs).filter(([, pr]) => changeOf(pr, scenario) === change.number);
    const issue = t.issues[String(change.number)];
    const end = prs.some(([, pr]) => pr.merged)
      ? 'merged'
      : issue?.state === 'closed'
        ? 'cancelled'
        : prs.some(([, pr]) => pr.labels.includes(AWAITING))
          ? 'before a person (awaiting approval)'
          : prs.some(([, pr]) => pr.checks['Arbiter / selection']?.conclusion === 'action_required')
            ? 'before a person (action required)'
            : 'open';
    out.set(change.number, end);
  }
  return out;
}

/** The outcome the fault-free run is compared on: each PR's and issue's state, labels, and Arbiter's check conclusions. */
export function outcome(t: Transcript): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [n, pr] of Object.entries(t.prs)) {
    const state = pr.merged ? 'merged' : pr.state;
    const checks = Object.entries(pr.checks)
      .filter(([name]) => name.startsWith(ARBITER_CHECK))
      .map(([name, c]) => `${name}=${c.conclusion ?? c.status}`)
      .sort();
    out[`#${n}`] = `${state}${pr.draft ? ' draft' : ''} [${[...pr.labels].sort().join(', ')}] ${checks.join('; ')}`;
  }
  for (const [n, issue] of Object.entries(t.issues))
    out[`issue #${n}`] = `${issue.state} [${[...issue.labels].sort().join(', ')}]`;
  return out;
}

/** Arbiter's comments on each thread, counted by body. */
function commentCounts(t: Transcript): Map<string, number> {
  const counts = new Map<string, number>();
  const threads = [...Object.entries(t.prs), ...Object.entries(t.issues)];
  for (const [n, thread] of threads)
    for (const c of thread.comments) {
      if (c.user !== APP_BOT) continue;
      const key = `#${n}\u0000${c.body}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  return counts;
}

/**
 * Successful merge requests (REST merge, auto-merge, the merge queue) by request and pull request. A
 * GraphQL mutation's path is the endpoint's, the same for every pull request: its number comes from
 * the emulator's summary of the write (`auto-merge #7`). A fixture may ask twice for one pull request
 * (auto-merge enabled again after GitHub turned it off), so a run is held to its fault-free run.
 */
function mergeRequests(t: Transcript): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of t.writes) {
    const merge = w.route === MERGE_ROUTE || (w.operation !== null && MERGE_OPERATIONS.test(w.operation));
    if (!merge || w.status >= 300) continue;
    const key = [w.path, w.operation, /#\d+/.exec(w.summary)?.[0]].filter(Boolean).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

export function violations(scenario: Scenario, baseline: Transcript, run: Transcript): string[] {
  const found: string[] = [];
  for (const n of untrustedCandidates(scenario, baseline))
    if (run.prs[String(n)]?.merged) found.push(`untrusted author's #${n} was merged`);

  const mergedPerChange = new Map<number, number[]>();
  for (const [n, pr] of Object.entries(run.prs))
    if (pr.merged)
      mergedPerChange.set(changeOf(pr, scenario), [...(mergedPerChange.get(changeOf(pr, scenario)) ?? []), Number(n)]);
  const baselineMerged = new Map<number, number>();
  for (const pr of Object.values(baseline.prs))
    if (pr.merged) baselineMerged.set(changeOf(pr, scenario), (baselineMerged.get(changeOf(pr, scenario)) ?? 0) + 1);
  for (const [change, prs] of mergedPerChange)
    if (prs.length > Math.max(1, baselineMerged.get(change) ?? 0))
      found.push(`Change #${change} had ${prs.length} merges (${prs.map((p) => `#${p}`).join(', ')})`);
  const asked = mergeRequests(baseline);
  for (const [key, n] of mergeRequests(run)) {
    const allowed = Math.max(1, asked.get(key) ?? 0);
    if (n > allowed) found.push(`merge request ${key} succeeded ${n} times (the fault-free run: ${allowed})`);
  }

  const before = commentCounts(baseline);
  for (const [key, n] of commentCounts(run)) {
    const allowed = Math.max(1, before.get(key) ?? 0);
    if (n <= allowed) continue;
    const [thread, body] = key.split('\u0000');
    found.push(`comment on ${thread} written ${n} times: ${JSON.stringify(body.split('\n')[0].slice(0, 100))}`);
  }

  const baselineEnds = changeEnds(baseline, scenario);
  for (const [change, end] of changeEnds(run, scenario))
    if (end === 'open' && baselineEnds.get(change) !== 'open')
      found.push(`Change #${change} ends neither merged, cancelled nor before a person`);

  const expected = outcome(baseline);
  const got = outcome(run);
  for (const key of new Set([...Object.keys(expected), ...Object.keys(got)]))
    if (expected[key] !== got[key])
      found.push(
        `outcome differs on ${key}: fault-free "${expected[key] ?? '(absent)'}", this run "${got[key] ?? '(absent)'}"`,
      );
  return found;
}
