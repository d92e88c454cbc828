// Acts on checks: check suites (one per app per head sha), check runs with their output,
// annotations and buttons, commit statuses, button clicks and repository dispatches.
import type { Annotation, CheckAction, CheckRun, CheckSuite, CommitStatus, Repo } from './model.ts';
import { checkRunJson, checkSuiteJson, statusJson } from './payloads.ts';
import type { Sent } from './issue-acts.ts';
import { settleAutoMerges } from './auto-merge.ts';
import { ACTIONS_APP_SLUG, GitHubError, type World } from './world.ts';

export interface CheckRunInput {
  name?: string;
  head_sha?: string;
  status?: CheckRun['status'];
  conclusion?: string | null;
  started_at?: string;
  completed_at?: string;
  external_id?: string;
  details_url?: string;
  output?: { title?: string; summary?: string; text?: string; annotations?: Annotation[] };
  actions?: CheckAction[];
}

const ACTION_LIMITS = { count: 3, label: 20, description: 40, identifier: 20 };
const ANNOTATIONS_PER_REQUEST = 50;
/** GitHub's limit for a check run's summary and text, which it counts in UTF-8 bytes. */
export const CHECK_OUTPUT_BYTE_LIMIT = 65_535;

function checkLimits(input: CheckRunInput): void {
  for (const field of ['summary', 'text'] as const) {
    const value = input.output?.[field];
    const bytes = value === undefined ? 0 : Buffer.byteLength(value, 'utf8');
    if (bytes > CHECK_OUTPUT_BYTE_LIMIT)
      throw new GitHubError(
        422,
        `Invalid request.\n\nOnly ${CHECK_OUTPUT_BYTE_LIMIT} characters are allowed; ${bytes} were supplied.`,
      );
  }
  const actions = input.actions ?? [];
  if (actions.length > ACTION_LIMITS.count)
    throw new GitHubError(422, `Invalid request.\n\nOnly ${ACTION_LIMITS.count} actions are allowed.`);
  for (const action of actions) {
    if (action.label.length > ACTION_LIMITS.label)
      throw new GitHubError(
        422,
        `Invalid request.\n\nactions label "${action.label}" is longer than ${ACTION_LIMITS.label} characters.`,
      );
    if (action.description.length > ACTION_LIMITS.description)
      throw new GitHubError(
        422,
        `Invalid request.\n\nactions description is longer than ${ACTION_LIMITS.description} characters.`,
      );
    if (action.identifier.length > ACTION_LIMITS.identifier)
      throw new GitHubError(
        422,
        `Invalid request.\n\nactions identifier is longer than ${ACTION_LIMITS.identifier} characters.`,
      );
  }
  if ((input.output?.annotations?.length ?? 0) > ANNOTATIONS_PER_REQUEST)
    throw new GitHubError(
      422,
      `Invalid request.\n\nOnly ${ANNOTATIONS_PER_REQUEST} annotations are allowed per request.`,
    );
  if (input.output && input.output.annotations && input.output.title === undefined)
    throw new GitHubError(422, 'Invalid request.\n\n"title" wasn\'t supplied.');
}

function suiteFor(world: World, repo: Repo, app: string, sha: string): CheckSuite {
  const existing = repo.suites.find((s) => s.app === app && s.headSha === sha);
  if (existing) return existing;
  const headBranch = [...repo.git.branches.entries()].find(([, head]) => head === sha)?.[0] ?? null;
  const suite: CheckSuite = {
    id: world.ids.take(),
    app,
    headSha: sha,
    headBranch,
    status: 'queued',
    conclusion: null,
    createdAt: world.now(),
    updatedAt: world.now(),
  };
  repo.suites.push(suite);
  return suite;
}

export function runPayload(world: World, repo: Repo, run: CheckRun): Record<string, unknown> {
  const suite = repo.suites.find((s) => s.id === run.suiteId);
  if (!suite) throw new GitHubError(500, `check run ${run.id} has no suite`);
  return checkRunJson(world.urls, repo, run, suite, world.app(run.app));
}

export function suitePayload(world: World, repo: Repo, suite: CheckSuite): Record<string, unknown> {
  const runs = repo.runs.filter((r) => r.suiteId === suite.id);
  return checkSuiteJson(world.urls, repo, suite, world.app(suite.app), runs.length, repo.git.get(suite.headSha));
}

const SUITE_CONCLUSION_ORDER = [
  'action_required',
  'cancelled',
  'timed_out',
  'failure',
  'neutral',
  'skipped',
  'success',
];

/** Recomputes a suite from its runs; sends `check_suite.completed` when the last run completes. */
function refreshSuite(world: World, repo: Repo, suite: CheckSuite, actor: string, out: Sent): void {
  const runs = repo.runs.filter((r) => r.suiteId === suite.id);
  const allDone = runs.length > 0 && runs.every((r) => r.status === 'completed');
  const wasDone = suite.status === 'completed';
  suite.updatedAt = world.now();
  if (!allDone) {
    suite.status = runs.some((r) => r.status !== 'queued') ? 'in_progress' : 'queued';
    suite.conclusion = null;
    return;
  }
  suite.status = 'completed';
  const conclusions = runs.map((r) => r.conclusion ?? 'neutral');
  const worst = SUITE_CONCLUSION_ORDER.find((c) => conclusions.includes(c)) ?? 'neutral';
  suite.conclusion = worst === 'skipped' ? 'success' : worst;
  if (!wasDone)
    out.push(
      world.emit(repo, 'check_suite', { action: 'completed', check_suite: suitePayload(world, repo, suite) }, actor),
    );
}

function applyInput(world: World, run: CheckRun, input: CheckRunInput): void {
  if (input.name !== undefined) run.name = input.name;
  if (input.external_id !== undefined) run.externalId = input.external_id;
  if (input.details_url !== undefined) run.detailsUrl = input.details_url;
  if (input.started_at !== undefined) run.startedAt = Date.parse(input.started_at);
  if (input.status !== undefined) run.status = input.status;
  if (input.conclusion !== undefined && input.conclusion !== null) {
    run.conclusion = input.conclusion;
    run.status = 'completed';
  }
  if (run.status === 'completed' && run.conclusion === null)
    throw new GitHubError(422, 'Invalid request.\n\n"conclusion" wasn\'t supplied.');
  // GitHub shows an action_required run only with the page where the action is.
  if (run.conclusion === 'action_required' && !run.detailsUrl)
    throw new GitHubError(422, 'Invalid request.\n\n"details_url" is required when "conclusion" is "action_required".');
  if (run.status === 'completed' && run.completedAt === null)
    run.completedAt = input.completed_at ? Date.parse(input.completed_at) : world.now();
  if (input.output) {
    if (input.output.title !== undefined) run.output.title = input.output.title;
    if (input.output.summary !== undefined) run.output.summary = input.output.summary;
    if (input.output.text !== undefined) run.output.text = input.output.text;
    // annotations accumulate across updates, like GitHub's
    run.annotations.push(...(input.output.annotations ?? []));
  }
  if (input.actions !== undefined) run.actions = input.actions;
}

export function createCheckRun(
  world: World,
  repo: Repo,
  app: string,
  input: CheckRunInput,
  actor: string,
  out: Sent,
): CheckRun {
  checkLimits(input);
  if (!input.name || !input.head_sha)
    throw new GitHubError(422, 'Invalid request.\n\n"name" and "head_sha" are required.');
  const sha = repo.git.resolve(input.head_sha);
  if (sha === null || sha !== input.head_sha) throw new GitHubError(422, `No commit found for SHA: ${input.head_sha}`);
  const suite = suiteFor(world, repo, app, sha);
  const run: CheckRun = {
    id: world.ids.take(),
    suiteId: suite.id,
    app,
    name: input.name,
    headSha: sha,
    status: 'queued',
    conclusion: null,
    startedAt: world.now(),
    completedAt: null,
    externalId: '',
    detailsUrl: null,
    output: { title: null, summary: null, text: null },
    annotations: [],
    actions: [],
  };
  applyInput(world, run, input);
  repo.runs.push(run);
  out.push(world.emit(repo, 'check_run', { action: 'created', check_run: runPayload(world, repo, run) }, actor));
  if (run.status === 'completed')
    out.push(world.emit(repo, 'check_run', { action: 'completed', check_run: runPayload(world, repo, run) }, actor));
  refreshSuite(world, repo, suite, actor, out);
  settleAutoMerges(world, repo, out);
  return run;
}

export function updateCheckRun(
  world: World,
  repo: Repo,
  run: CheckRun,
  input: CheckRunInput,
  actor: string,
  out: Sent,
): CheckRun {
  checkLimits(input);
  const wasCompleted = run.status === 'completed';
  if (wasCompleted && input.status !== undefined && input.status !== 'completed') {
    // GitHub lets a completed run be re-opened by its app: it starts over
    run.conclusion = null;
    run.completedAt = null;
  }
  applyInput(world, run, input);
  if (run.status === 'completed' && (!wasCompleted || input.conclusion !== undefined))
    out.push(world.emit(repo, 'check_run', { action: 'completed', check_run: runPayload(world, repo, run) }, actor));
  const suite = repo.suites.find((s) => s.id === run.suiteId);
  if (suite) refreshSuite(world, repo, suite, actor, out);
  settleAutoMerges(world, repo, out);
  return run;
}

export function findRun(repo: Repo, id: number): CheckRun {
  const run = repo.runs.find((r) => r.id === id);
  if (!run) throw new GitHubError(404, 'Not Found');
  return run;
}

/** The latest run of each name (per app) on a sha, as GitHub lists them by default. */
export function latestRuns(repo: Repo, sha: string): CheckRun[] {
  const latest = new Map<string, CheckRun>();
  for (const run of repo.runs) if (run.headSha === sha) latest.set(`${run.app}\0${run.name}`, run);
  return [...latest.values()];
}

export function setStatus(
  world: World,
  repo: Repo,
  sha: string,
  input: { state: CommitStatus['state']; context?: string; description?: string | null; target_url?: string | null },
  actor: string,
  out: Sent,
): CommitStatus {
  if (!repo.git.commits.has(sha)) throw new GitHubError(422, `No commit found for SHA: ${sha}`);
  const now = world.now();
  const status: CommitStatus = {
    id: world.ids.take(),
    sha,
    context: input.context ?? 'default',
    state: input.state,
    description: input.description ?? null,
    targetUrl: input.target_url ?? null,
    creator: actor,
    createdAt: now,
    updatedAt: now,
  };
  repo.statuses.push(status);
  const commit = repo.git.get(sha);
  const branches = [...repo.git.branches.entries()]
    .filter(([, head]) => head === sha)
    .map(([name]) => ({
      name,
      commit: { sha, url: `${world.urls.api}/repos/${repo.fullName}/commits/${sha}` },
      protected: false,
    }));
  const person = {
    name: commit.author,
    email: `${commit.author}@users.noreply.github.com`,
    date: new Date(commit.timestamp).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  out.push(
    world.emit(
      repo,
      'status',
      {
        id: status.id,
        sha,
        name: repo.fullName,
        target_url: status.targetUrl,
        avatar_url: null,
        context: status.context,
        description: status.description,
        state: status.state,
        commit: statusCommitJson(world, repo, sha, person),
        branches,
        created_at: statusJson(world.urls, repo, status).created_at,
        updated_at: statusJson(world.urls, repo, status).updated_at,
      },
      actor,
    ),
  );
  settleAutoMerges(world, repo, out);
  return status;
}

function statusCommitJson(
  world: World,
  repo: Repo,
  sha: string,
  person: { name: string; email: string; date: string },
): Record<string, unknown> {
  const commit = repo.git.get(sha);
  const api = `${world.urls.api}/repos/${repo.fullName}`;
  return {
    sha,
    node_id: Buffer.from(`0:C_${sha}`).toString('base64'),
    commit: {
      author: person,
      committer: person,
      message: commit.message,
      tree: { sha: commit.treeSha, url: `${api}/git/trees/${commit.treeSha}` },
      url: `${api}/git/commits/${sha}`,
      comment_count: 0,
      verification: { verified: false, reason: 'unsigned', signature: null, payload: null },
    },
    url: `${api}/commits/${sha}`,
    html_url: `${world.urls.html}/${repo.fullName}/commit/${sha}`,
    comments_url: `${api}/commits/${sha}/comments`,
    author: null,
    committer: null,
    parents: commit.parents.map((p) => ({
      sha: p,
      url: `${api}/commits/${p}`,
      html_url: `${world.urls.html}/${repo.fullName}/commit/${p}`,
    })),
  };
}

/** A person clicks a check-run button: `check_run.requested_action` to the run's app. */
export function clickButton(
  world: World,
  repo: Repo,
  run: CheckRun,
  identifier: string,
  user: string,
  out: Sent,
): void {
  if (!run.actions.some((a) => a.identifier === identifier))
    throw new GitHubError(422, `check run ${run.name} has no button ${identifier}`);
  out.push(
    world.emit(
      repo,
      'check_run',
      { action: 'requested_action', check_run: runPayload(world, repo, run), requested_action: { identifier } },
      user,
    ),
  );
}

/**
 * A person's "Re-run" of a completed check run (`check_run.rerequested`) or of its whole suite
 * (`check_suite.rerequested`), sent to the run's app, which answers with new runs.
 */
export function rerequestRun(world: World, repo: Repo, run: CheckRun, user: string, suite: boolean, out: Sent): void {
  if (run.status !== 'completed')
    throw new GitHubError(422, `check run ${run.name} is ${run.status}: only a completed run can be re-run`);
  if (!suite) {
    out.push(world.emit(repo, 'check_run', { action: 'rerequested', check_run: runPayload(world, repo, run) }, user));
    return;
  }
  const checkSuite = repo.suites.find((s) => s.id === run.suiteId);
  if (!checkSuite) throw new GitHubError(500, `check run ${run.id} has no suite`);
  out.push(
    world.emit(
      repo,
      'check_suite',
      { action: 'rerequested', check_suite: suitePayload(world, repo, checkSuite) },
      user,
    ),
  );
}

export function dispatch(
  world: World,
  repo: Repo,
  eventType: string,
  clientPayload: Record<string, unknown>,
  actor: string,
  out: Sent,
): void {
  if (eventType.length === 0 || eventType.length > 100)
    throw new GitHubError(422, 'Invalid request.\n\nevent_type must be between 1 and 100 characters.');
  if (Object.keys(clientPayload).length > 10)
    throw new GitHubError(
      422,
      'Invalid request.\n\nNo more than 10 properties are allowed; client_payload has too many.',
    );
  repo.dispatches.push({ event_type: eventType, client_payload: clientPayload });
  out.push(
    world.emit(
      repo,
      'repository_dispatch',
      { action: eventType, branch: repo.defaultBranch, client_payload: clientPayload },
      actor,
    ),
  );
}

/** The app whose suites are GitHub Actions workflow runs (defined with the world's apps). */
export { ACTIONS_APP_SLUG };

/**
 * GitHub Actions runs that wait for a maintainer's approval (a bot's or a first-time contributor's
 * push): the head's Actions suite completes `action_required` before any job runs, so it holds no
 * check run, and GitHub sends `check_suite.completed` with that conclusion.
 */
export function awaitWorkflowApproval(world: World, repo: Repo, sha: string, out: Sent): CheckSuite {
  const suite = suiteFor(world, repo, ACTIONS_APP_SLUG, sha);
  if (suite.status === 'completed' && suite.conclusion === 'action_required') return suite;
  if (repo.runs.some((r) => r.suiteId === suite.id))
    throw new GitHubError(422, `the GitHub Actions suite on ${sha} already runs: it awaits no approval`);
  suite.status = 'completed';
  suite.conclusion = 'action_required';
  suite.updatedAt = world.now();
  out.push(
    world.emit(
      repo,
      'check_suite',
      { action: 'completed', check_suite: suitePayload(world, repo, suite) },
      `${ACTIONS_APP_SLUG}[bot]`,
    ),
  );
  return suite;
}

/** Whether the Actions suite on a head waits for approval (completed `action_required`, no run). */
export function awaitsApproval(repo: Repo, sha: string): boolean {
  return repo.suites.some(
    (s) =>
      s.app === ACTIONS_APP_SLUG &&
      s.headSha === sha &&
      s.conclusion === 'action_required' &&
      !repo.runs.some((r) => r.suiteId === s.id),
  );
}

/** A maintainer approves the waiting runs on a head: the Actions suite is queued again, its jobs may start. */
export function approveWorkflowRuns(world: World, repo: Repo, sha: string): boolean {
  let approved = false;
  for (const suite of repo.suites) {
    if (suite.app !== ACTIONS_APP_SLUG || suite.headSha !== sha || suite.conclusion !== 'action_required') continue;
    if (repo.runs.some((r) => r.suiteId === suite.id)) continue;
    suite.status = 'queued';
    suite.conclusion = null;
    suite.updatedAt = world.now();
    approved = true;
  }
  return approved;
}
