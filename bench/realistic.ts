// Benchmark 4, realistic: CI as a real repository has it, on many installations at once.
// Each installation is its own emulator behind one proxy (bench/installations-proxy.ts); the app
// runs as its own process with the production client and pacing unchanged. Every head gets 15
// check runs from 3 CI apps and 2 commit statuses, 3 of them required, finishing spread over
// 10 minutes of the app's clock; one candidate of each Change fails a required check once and is
// re-run to green. The clock moves in steps, so the sweep, the dashboard and the waiting lists run
// as in production.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeAnthropic, type ModelScripts } from '../sim/anthropic/index.ts';
import { GitHubEmulator, type PullSnapshot } from '../sim/github/index.ts';
import type { WriteRecord } from '../sim/github/server.ts';
import { AppProcess, appBuild, freePort } from '../sim/runner/app-process.ts';
import { mulberry32 } from '../sim/runner/prng.ts';
import { createTempDatabase, type TempDatabase } from '../sim/runner/temp-database.ts';
import { SCENARIO_EPOCH_MS } from '../sim/runner/index.ts';
import { TOKEN_ROUTE } from '../src/github/request-meter.ts';
import { CANDIDATE_AUTHOR, ConcurrentPump, requestsByRoute } from './e2e.ts';
import {
  BASE_FILES,
  CHANGE_BODY,
  candidateFiles,
  candidateModel,
  planGroup,
  scoreOf,
  type GroupPlan,
} from './group-scenario.ts';
import { InstallationsProxy } from './installations-proxy.ts';
import { checkGroup, duplicateWrites, repeatedComments } from './transcript-checks.ts';

const SECRET = 'arbiter-bench-realistic';
const APP_SLUG = 'arbiter';
const METRICS_TOKEN = 'arbiter-bench-metrics';
const SIBLINGS = 3;
/** GitHub's limits per installation and hour: requests (the floor for an installation) and content. */
const HOURLY_REQUESTS = 5000;
const HOURLY_CONTENT = 500;

/** Three required checks (one is the scoring check), twelve that nobody requires, two statuses. */
const REQUIRED = ['test', 'lint', 'bench'] as const;
const CHECKS: { name: string; app: string }[] = [
  { name: 'test', app: 'ci' },
  { name: 'lint', app: 'ci' },
  { name: 'typecheck', app: 'ci' },
  { name: 'unit (node 18)', app: 'ci' },
  { name: 'unit (node 20)', app: 'ci' },
  { name: 'bench', app: 'buildkite' },
  { name: 'integration 1', app: 'buildkite' },
  { name: 'integration 2', app: 'buildkite' },
  { name: 'integration 3', app: 'buildkite' },
  { name: 'e2e', app: 'buildkite' },
  { name: 'quality gate', app: 'sonarcloud' },
  { name: 'coverage', app: 'sonarcloud' },
  { name: 'security', app: 'sonarcloud' },
  { name: 'duplication', app: 'sonarcloud' },
  { name: 'maintainability', app: 'sonarcloud' },
];
const STATUSES = ['codecov/patch', 'netlify/deploy-preview'];

export const REALISTIC_CONFIG =
  'gate:\n  required: [test, lint, bench]\n  score: bench\nacceptance:\n  budget:\n    perChange: 400\n';

/**
 * The notifying routes of @octokit/plugin-throttling (its `triggers-notification-paths`): the
 * writes GitHub counts against the content-creation limits (80 a minute, 500 an hour).
 */
const CONTENT_ROUTES = new Set([
  '/repos/{owner}/{repo}/issues',
  '/repos/{owner}/{repo}/issues/{issue_number}/comments',
  '/repos/{owner}/{repo}/pulls',
  '/repos/{owner}/{repo}/pulls/{pull_number}/comments',
  '/repos/{owner}/{repo}/pulls/{pull_number}/merge',
  '/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers',
  '/repos/{owner}/{repo}/pulls/{pull_number}/reviews',
  '/repos/{owner}/{repo}/commits/{commit_sha}/comments',
]);

export const isContentWrite = (w: Pick<WriteRecord, 'method' | 'route'>): boolean =>
  w.method !== 'GET' && CONTENT_ROUTES.has(w.route.replace(/^[A-Z]+ /, ''));

export interface RealisticOptions {
  installations: number;
  /** Changes per installation, each with 3 candidates. */
  changes: number;
  seed: number;
  databaseUrl?: string;
  /** The app clock's step, in seconds. */
  stepSeconds: number;
  /** Safety limit of each wait for quiet. */
  timeoutMs: number;
  say?: (line: string) => void;
}

export interface Spread {
  median: number | null;
  p95: number | null;
  max: number | null;
}

export interface RealisticResult {
  backend: 'PGlite' | 'PostgreSQL';
  installations: number;
  changes: number;
  candidates: number;
  seed: number;
  webhooks: number;
  reads: number;
  writes: number;
  contentWrites: number;
  requestsPerCandidate: number;
  contentPerCandidate: number;
  /** Share of one installation's hourly limits that 100 candidates use (requests, content). */
  hourlySharePer100: { requests: number; content: number };
  /** From each Change's last required CI result to its merge, on the app's clock (seconds). */
  ciToMergeApp: Spread;
  /** The same on the wall clock, with the production pacing (seconds). */
  ciToMergeWall: Spread;
  /** Seconds each installation's requests waited for its own pacing buckets. */
  pacingWait: Record<string, number>;
  /** Installations that waited on pacing at all (each installation has its own buckets). */
  installationsThatWaited: number;
  /** Every GitHub request the app made, by route (from its /metrics). */
  byRoute: Record<string, number>;
  /** GraphQL reads by operation (`query ArbiterGroup`), summed over the installations' emulators. */
  graphqlByQuery: Record<string, number>;
  decided: number;
  correct: number;
  wrong: string[];
  duplicateWrites: number;
  violations: number;
  modelCalls: number;
  appSeconds: number;
  seconds: number;
  app: string;
  error?: string;
}

interface CiEvent {
  at: number;
  inst: number;
  pr: number;
  kind: 'open' | 'start' | 'complete' | 'fail' | 'rerun' | 'status-pending' | 'status';
  name: string;
  app: string;
  required: boolean;
}

/** Every CI event of one installation: opening times, check and status results, one flaky check per Change. */
export function ciTimeline(inst: number, groups: GroupPlan[], random: () => number): CiEvent[] {
  const events: CiEvent[] = [];
  const at = (s: number) => Math.round(s);
  for (const g of groups) {
    const flaky = g.candidates.find((pr) => pr !== g.winner)!;
    for (const pr of g.candidates) {
      const open = at(random() * 60);
      const base = { inst, pr, app: '', name: '', required: false };
      events.push({ ...base, at: open, kind: 'open' });
      for (const c of CHECKS) {
        const required = (REQUIRED as readonly string[]).includes(c.name);
        const done = at(open + 30 + random() * 570);
        const one = { ...base, name: c.name, app: c.app, required };
        events.push({ ...one, at: open + 2, kind: 'start' });
        if (pr === flaky && c.name === 'test') {
          // Fails once, is re-run by a person a minute later, and passes.
          events.push({ ...one, at: done, kind: 'fail' });
          events.push({ ...one, at: done + 60, kind: 'rerun' });
          events.push({ ...one, at: done + 120, kind: 'complete' });
        } else events.push({ ...one, at: done, kind: 'complete' });
      }
      for (const context of STATUSES) {
        const one = { ...base, name: context, app: 'status' };
        events.push({ ...one, at: open + 2, kind: 'status-pending' });
        events.push({ ...one, at: at(open + 30 + random() * 570), kind: 'status' });
      }
    }
  }
  return events.sort((a, b) => a.at - b.at);
}

export function spread(values: number[]): Spread {
  if (values.length === 0) return { median: null, p95: null, max: null };
  const sorted = [...values].sort((a, b) => a - b);
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { median: pick(0.5), p95: pick(0.95), max: sorted[sorted.length - 1] };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pacing waits by installation from the app's /metrics. */
export function pacingWaits(metrics: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of metrics.split('\n')) {
    const m = /^arbiter_github_pacing_wait_seconds_total\{installation="([^"]*)",bucket="[^"]*"\} (\S+)$/.exec(line);
    if (m) out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
  }
  return out;
}

interface Installation {
  id: number;
  repo: string;
  gh: GitHubEmulator;
  pump: ConcurrentPump;
  shas: Map<number, string>;
}

async function waitQuiet(app: AppProcess, all: Installation[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  const writes = () => all.reduce((n, i) => n + i.gh.writes.length, 0);
  let seen = writes();
  while (quiet < 2) {
    if (app.crashed) throw new Error(`${app.crashed}\n${app.stderrTail()}`);
    if (Date.now() > deadline) throw new Error(`not quiet after ${timeoutMs / 1000} s`);
    const sent = (await Promise.all(all.map((i) => i.pump.pump()))).reduce((a, b) => a + b, 0);
    const idle = await app.idle();
    const busy = all.some((i) => i.pump.busy() || i.gh.inflightWebhooks() > 0);
    const now = writes();
    quiet = sent === 0 && idle.idle && !busy && now === seen ? quiet + 1 : 0;
    seen = now;
    await sleep(100);
  }
}

export async function runRealistic(o: RealisticOptions): Promise<RealisticResult> {
  const say = o.say ?? (() => {});
  const random = mulberry32(o.seed);
  const groupsOf = Array.from({ length: o.changes }, (_, k) => planGroup(1 + k * (SIBLINGS + 1), SIBLINGS));
  const backend = o.databaseUrl ? 'PostgreSQL' : 'PGlite';
  const candidates = o.installations * o.changes * SIBLINGS;
  const result: RealisticResult = {
    backend,
    installations: o.installations,
    changes: o.installations * o.changes,
    candidates,
    seed: o.seed,
    webhooks: 0,
    reads: 0,
    writes: 0,
    contentWrites: 0,
    requestsPerCandidate: 0,
    contentPerCandidate: 0,
    hourlySharePer100: { requests: 0, content: 0 },
    ciToMergeApp: spread([]),
    ciToMergeWall: spread([]),
    pacingWait: {},
    installationsThatWaited: 0,
    byRoute: {},
    graphqlByQuery: {},
    decided: 0,
    correct: 0,
    wrong: [],
    duplicateWrites: 0,
    violations: 0,
    modelCalls: 0,
    appSeconds: 0,
    seconds: 0,
    app: appBuild(),
  };
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'arbiter-bench-realistic-'));
  const port = await freePort();
  let seconds = 0;
  const now = () => SCENARIO_EPOCH_MS + seconds * 1000;
  const installations: Installation[] = [];
  let proxy: InstallationsProxy | null = null;
  let model: FakeAnthropic | null = null;
  let db: TempDatabase | null = null;
  let app: AppProcess | null = null;
  // Per Change (`inst:change`): the last required CI result (app seconds, wall ms) and the merge.
  const lastCi = new Map<string, { app: number; wall: number }>();
  const merged = new Map<string, { app: number; wall: number }>();
  const changeOf = new Map<number, number>();
  for (const g of groupsOf) for (const pr of g.candidates) changeOf.set(pr, g.change);
  const started = Date.now();
  try {
    for (let inst = 1; inst <= o.installations; inst++) {
      const gh = await GitHubEmulator.start({
        webhookUrl: `http://127.0.0.1:${port}/api/github/webhooks`,
        webhookSecret: SECRET,
        appId: 1,
        appSlug: APP_SLUG,
        appPublicKeyPem: publicKey,
        installationId: inst,
        now,
      });
      gh.setScenarioStart(SCENARIO_EPOCH_MS);
      gh.registerCiApp(9101, 'buildkite', 'Buildkite');
      gh.registerCiApp(9102, 'sonarcloud', 'SonarCloud');
      const repo = `org${inst}/app`;
      gh.onWrite((w) => {
        const pr = /^merge #(\d+)/.exec(w.summary)?.[1];
        if (w.status < 300 && pr !== undefined) {
          const change = changeOf.get(Number(pr));
          if (change !== undefined) merged.set(`${inst}:${change}`, { app: seconds, wall: Date.now() });
        }
      });
      installations.push({ id: inst, repo, gh, pump: new ConcurrentPump(gh), shas: new Map() });
    }
    proxy = new InstallationsProxy(
      installations.map((i) => ({ installationId: i.id, owner: `org${i.id}`, url: i.gh.url })),
    );
    await proxy.start();
    const scripts: ModelScripts = { candidates: {} };
    for (const g of groupsOf) for (const pr of g.candidates) scripts.candidates[pr] = candidateModel(g.change, pr);
    model = await FakeAnthropic.start({ scripts });
    if (o.databaseUrl) db = await createTempDatabase(o.databaseUrl);
    app = new AppProcess({
      port,
      env: {
        APP_ID: '1',
        PRIVATE_KEY: privateKey,
        WEBHOOK_SECRET: SECRET,
        GHE_HOST: new URL(proxy.url).host,
        GHE_PROTOCOL: 'http',
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'sim-key',
        ARBITER_DATA_DIR: dataDir,
        ARBITER_APP_SLUG: APP_SLUG,
        ARBITER_SIM_START_MS: String(SCENARIO_EPOCH_MS),
        // Production's client, pacing, check-event wait and dashboard.
        ARBITER_SIM_PACING_SCALE: '1',
        ARBITER_CHECK_EVENT_WAIT: '1',
        ARBITER_DASHBOARD: '1',
        LOG_LEVEL: 'warn',
        ARBITER_METRICS_TOKEN: METRICS_TOKEN,
        ARBITER_TRUST_AGENTS: CANDIDATE_AUTHOR,
        ...(db ? { DATABASE_URL: db.url } : {}),
      },
    });
    await app.start();
    await app.setClock(now());

    for (const i of installations) {
      i.gh.createRepo({
        owner: `org${i.id}`,
        name: 'app',
        files: { ...BASE_FILES, '.github/arbiter.yml': REALISTIC_CONFIG },
      });
      for (const g of groupsOf)
        await i.gh.openIssue(i.repo, {
          number: g.change,
          title: `Greeting ${g.change}`,
          body: CHANGE_BODY,
          user: 'requester',
        });
      // The candidates open later with the numbers their scripts know: an older issue numbered
      // past them keeps the dashboard issue Arbiter opens from taking one of those numbers.
      await i.gh.openIssue(i.repo, {
        number: 10_000,
        title: 'Roadmap',
        body: 'Plans for the year.',
        user: 'requester',
      });
    }
    const events = installations.flatMap((i) => ciTimeline(i.id, groupsOf, random)).sort((a, b) => a.at - b.at);
    const lastEventAt = events[events.length - 1]?.at ?? 0;
    const groupOf = (pr: number) => groupsOf.find((g) => g.candidates.includes(pr))!;
    const fire = async (e: CiEvent): Promise<void> => {
      const i = installations[e.inst - 1];
      const g = groupOf(e.pr);
      const sha = i.shas.get(e.pr);
      if (e.kind === 'open') {
        const branch = `agent/c${g.change}-attempt-${e.pr}`;
        const head = i.gh.commit(i.repo, branch, {
          files: candidateFiles(g.change, e.pr),
          message: `Attempt ${e.pr}`,
          author: CANDIDATE_AUTHOR,
          from: 'main',
        });
        i.shas.set(e.pr, head);
        await i.gh.openPullRequest(i.repo, {
          number: e.pr,
          head: branch,
          base: 'main',
          title: `Attempt ${e.pr}`,
          body: `Candidate-for: #${g.change}`,
          user: CANDIDATE_AUTHOR,
          draft: true,
        });
        return;
      }
      if (sha === undefined) throw new Error(`#${e.pr} has no head before its CI`);
      if (e.kind === 'start' || e.kind === 'rerun') await i.gh.startCheck(i.repo, sha, e.name, e.app);
      else if (e.kind === 'status-pending') await i.gh.setStatus(i.repo, sha, e.name, 'pending');
      else if (e.kind === 'status') await i.gh.setStatus(i.repo, sha, e.name, 'success', 'all good');
      else {
        const output = e.name === 'bench' ? { title: `score: ${scoreOf(g, e.pr)}` } : undefined;
        await i.gh.completeCheck(i.repo, sha, e.name, e.kind === 'fail' ? 'failure' : 'success', output, e.app);
        if (e.required) lastCi.set(`${e.inst}:${g.change}`, { app: e.at, wall: Date.now() });
      }
    };

    const decidedAll = () =>
      installations.every((i) => {
        const prs = i.gh.state(i.repo).prs;
        return groupsOf.every((g) => g.candidates.every((pr) => prs[pr]?.state === 'closed'));
      });
    let next = 0;
    // The clock runs on past the last CI result until every Change is decided, or 15 minutes more.
    for (seconds = 0; seconds <= lastEventAt + 900; seconds += o.stepSeconds) {
      // Production sweeps once a minute (a pg-boss schedule): so does the bench, whatever its step.
      await app.setClock(now(), { sweep: seconds % 60 < o.stepSeconds });
      while (next < events.length && events[next].at <= seconds) await fire(events[next++]);
      await waitQuiet(app, installations, o.timeoutMs);
      if (seconds % 60 === 0) say(`realistic ${backend}: t=${seconds} s, ${next}/${events.length} CI events`);
      if (next === events.length && decidedAll()) break;
    }
    result.appSeconds = seconds;
  } catch (e) {
    result.error = e instanceof Error ? e.message.split('\n').slice(0, 6).join('\n') : String(e);
  } finally {
    let reads = 0;
    let writes = 0;
    const appDeltas: number[] = [];
    const wallDeltas: number[] = [];
    for (const i of installations) {
      const state = i.gh.state(i.repo);
      const prs: Record<string, PullSnapshot> = Object.fromEntries(Object.entries(state.prs));
      for (const g of groupsOf) {
        const problems = checkGroup(prs, g.winner, g.candidates);
        if (g.candidates.every((pr) => prs[String(pr)]?.state === 'closed')) result.decided++;
        if (problems.length === 0) result.correct++;
        else if (result.wrong.length < 5) result.wrong.push(`${i.repo}#${g.change}: ${problems[0]}`);
        const ci = lastCi.get(`${i.id}:${g.change}`);
        const m = merged.get(`${i.id}:${g.change}`);
        if (ci && m) {
          appDeltas.push(Math.max(0, m.app - ci.app));
          wallDeltas.push(Math.max(0, (m.wall - ci.wall) / 1000));
        }
      }
      result.duplicateWrites +=
        duplicateWrites(i.gh.writes).length +
        repeatedComments([...Object.entries(state.prs), ...Object.entries(state.issues)]).length;
      result.contentWrites += i.gh.writes.filter((w) => w.status < 300 && isContentWrite(w)).length;
      result.webhooks += i.gh.sentWebhooks.length;
      result.violations += i.gh.violations.length;
      for (const [query, n] of Object.entries(i.gh.graphqlReads))
        result.graphqlByQuery[query] = (result.graphqlByQuery[query] ?? 0) + n;
      const c = i.gh.counters();
      reads += c.reads;
      writes += c.writes;
    }
    result.ciToMergeApp = spread(appDeltas);
    result.ciToMergeWall = spread(wallDeltas);
    result.modelCalls = model?.requests.length ?? 0;
    let tokenRequests = 0;
    if (app?.running) {
      const text = await fetch(`${app.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      }).then(
        (r) => r.text(),
        () => '',
      );
      result.pacingWait = pacingWaits(text);
      result.installationsThatWaited = Object.entries(result.pacingWait).filter(
        ([k, v]) => k.startsWith('installation-') && v > 0,
      ).length;
      result.byRoute = requestsByRoute(text);
      tokenRequests = result.byRoute[TOKEN_ROUTE] ?? 0;
    }
    // Token requests count as reads, as in the end-to-end section (the emulator leaves them out).
    result.reads = reads + tokenRequests;
    result.writes = writes;
    result.requestsPerCandidate = (result.reads + writes) / candidates;
    result.contentPerCandidate = result.contentWrites / candidates;
    result.hourlySharePer100 = {
      requests: (100 * result.requestsPerCandidate) / HOURLY_REQUESTS,
      content: (100 * result.contentPerCandidate) / HOURLY_CONTENT,
    };
    result.seconds = (Date.now() - started) / 1000;
    await app?.stop().catch(() => {});
    await model?.stop().catch(() => {});
    await proxy?.stop().catch(() => {});
    for (const i of installations) await i.gh.stop().catch(() => {});
    await db?.drop().catch(() => {});
    await rm(dataDir, { recursive: true, force: true }).catch(() => {});
  }
  return result;
}
