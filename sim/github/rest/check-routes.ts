// REST routes on checks: create and update check runs (with GitHub's limits), list runs and
// suites of a ref.
import { z } from 'zod';
import {
  createCheckRun,
  findRun,
  latestRuns,
  runPayload,
  suitePayload,
  updateCheckRun,
  type CheckRunInput,
} from '../check-acts.ts';
import type { Repo } from '../model.ts';
import { botLogin } from '../payloads.ts';
import { ACTIONS_APP_SLUG, GitHubError } from '../world.ts';
import { intParam, ok, paged, parseBody, repoOf, type RouteTable } from './route-kit.ts';

const Annotation = z.object({
  path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  start_column: z.number().int().optional(),
  end_column: z.number().int().optional(),
  annotation_level: z.enum(['notice', 'warning', 'failure']),
  message: z.string(),
  title: z.string().optional(),
  raw_details: z.string().optional(),
});
const JobRerunBody = z
  .object({ enable_debug_logging: z.boolean().optional(), enable_debugger: z.boolean().optional() })
  .nullable();
const CheckRunBody = z.object({
  name: z.string().optional(),
  head_sha: z.string().optional(),
  details_url: z.string().optional(),
  external_id: z.string().optional(),
  status: z.enum(['queued', 'in_progress', 'completed', 'waiting', 'requested', 'pending']).optional(),
  started_at: z.string().optional(),
  conclusion: z
    .enum(['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'stale', 'timed_out'])
    .optional(),
  completed_at: z.string().optional(),
  output: z
    .object({
      title: z.string().optional(),
      summary: z.string().optional(),
      text: z.string().optional(),
      annotations: z.array(Annotation).optional(),
    })
    .optional(),
  actions: z.array(z.object({ label: z.string(), description: z.string(), identifier: z.string() })).optional(),
});

function prNumbers(repo: Repo, sha: string): string {
  const numbers = [...repo.pulls.values()].filter((p) => p.headSha === sha).map((p) => `#${p.number}`);
  return numbers.length > 0 ? numbers.join(', ') : sha.slice(0, 7);
}

function describe(
  repo: Repo,
  input: CheckRunInput,
  run: { name: string; headSha: string; status: string; conclusion: string | null },
): string {
  const state = run.status === 'completed' ? `completed ${run.conclusion ?? ''}`.trim() : run.status;
  const notes = input.output?.annotations?.length ? ` (+${input.output.annotations.length} annotations)` : '';
  return `check-run ${run.name} on ${prNumbers(repo, run.headSha)}: ${state}${notes}`;
}

export const checkRoutes: RouteTable = {
  'POST /repos/{owner}/{repo}/check-runs': (req) => {
    const repo = repoOf(req);
    const body = parseBody(CheckRunBody, req.body);
    const run = createCheckRun(req.world, repo, req.app, body, req.actor, req.out);
    return ok(runPayload(req.world, repo, run), describe(repo, body, run), 201);
  },
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}': (req) => {
    const repo = repoOf(req);
    return ok(runPayload(req.world, repo, findRun(repo, intParam(req, 'check_run_id'))));
  },
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}': (req) => {
    const repo = repoOf(req);
    const run = findRun(repo, intParam(req, 'check_run_id'));
    const body = parseBody(CheckRunBody, req.body);
    updateCheckRun(req.world, repo, run, body, req.actor, req.out);
    return ok(runPayload(req.world, repo, run), describe(repo, body, run));
  },
  // GitHub tells only the run's own app (check_run.rerequested), never Arbiter: the app answers with
  // a new run. The emulator records the request; the scenario runner plays the app (scripted readings).
  'POST /repos/{owner}/{repo}/check-runs/{check_run_id}/rerequest': (req) => {
    const repo = repoOf(req);
    const run = findRun(repo, intParam(req, 'check_run_id'));
    repo.rerequests.push({
      runId: run.id,
      name: run.name,
      headSha: run.headSha,
      app: run.app,
      by: req.actor,
      via: 'rerequest',
    });
    return ok({}, `rerequest check-run ${run.name} on ${prNumbers(repo, run.headSha)}`, 201);
  },
  // A GitHub Actions job is a check run of the github-actions app with the same id. Re-running it
  // queues the job again as a new check run on the same head (the old run keeps its result); the
  // scenario runner plays the runner that completes it. Any other id is not a job: 404.
  'POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun': (req) => {
    const repo = repoOf(req);
    const job = repo.runs.find((r) => r.id === intParam(req, 'job_id') && r.app === ACTIONS_APP_SLUG);
    if (!job) throw new GitHubError(404, 'Not Found');
    parseBody(JobRerunBody, req.body ?? {});
    const run = createCheckRun(
      req.world,
      repo,
      ACTIONS_APP_SLUG,
      { name: job.name, head_sha: job.headSha, status: 'queued' },
      botLogin(ACTIONS_APP_SLUG),
      req.out,
    );
    repo.rerequests.push({
      runId: job.id,
      name: job.name,
      headSha: job.headSha,
      app: job.app,
      by: req.actor,
      via: 'job-rerun',
      newRunId: run.id,
    });
    return ok({}, `re-run job ${job.name} on ${prNumbers(repo, job.headSha)}`, 201);
  },
  'GET /repos/{owner}/{repo}/commits/{ref}/check-runs': (req) => {
    const repo = repoOf(req);
    const sha = req.world.resolveSha(repo, req.params.ref);
    const name = req.query.get('check_name');
    const status = req.query.get('status');
    const runs = (
      req.query.get('filter') === 'all' ? repo.runs.filter((r) => r.headSha === sha) : latestRuns(repo, sha)
    )
      .filter((r) => name === null || r.name === name)
      .filter((r) => status === null || r.status === status)
      .sort((a, b) => b.id - a.id);
    const page = paged(req, runs);
    return {
      status: 200,
      headers: page.headers,
      json: { total_count: runs.length, check_runs: page.items.map((r) => runPayload(req.world, repo, r)) },
    };
  },
  'GET /repos/{owner}/{repo}/commits/{ref}/check-suites': (req) => {
    const repo = repoOf(req);
    const sha = req.world.resolveSha(repo, req.params.ref);
    const suites = repo.suites.filter((s) => s.headSha === sha);
    const page = paged(req, suites);
    return {
      status: 200,
      headers: page.headers,
      json: { total_count: suites.length, check_suites: page.items.map((s) => suitePayload(req.world, repo, s)) },
    };
  },
};
