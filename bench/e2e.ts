// Benchmark 4, end to end: many Changes × 3 candidates in one repository, all at once, through
// the emulator, the fake model and the real app as its own process (on PGlite or PostgreSQL).
// Time until quiet, every decision checked, duplicate writes counted. A bench-only driver: the
// scenario runner plays one Change; this reuses its app process and the emulator directly.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeAnthropic, type ModelScripts } from '../sim/anthropic/index.ts';
import { GitHubEmulator, type PullSnapshot } from '../sim/github/index.ts';
import { AppProcess, appBuild, freePort } from '../sim/runner/app-process.ts';
import { createTempDatabase, type TempDatabase } from '../sim/runner/temp-database.ts';
import { SCENARIO_EPOCH_MS } from '../sim/runner/index.ts';
import {
  BASE_FILES,
  BENCH_CONFIG,
  CHANGE_BODY,
  candidateFiles,
  candidateModel,
  planGroup,
  scoreOf,
  type GroupPlan,
} from './group-scenario.ts';
import { checkGroup, duplicateWrites, repeatedComments } from './transcript-checks.ts';

const REPO = 'bench/many';
const SECRET = 'arbiter-bench-e2e';
const APP_SLUG = 'arbiter';
/** Webhooks on the wire at once, as GitHub delivers them concurrently. */
const DELIVERY_CONCURRENCY = 8;
const SIBLINGS = 3;
const METRICS_TOKEN = 'arbiter-bench-metrics';
export const CANDIDATE_AUTHOR = 'arbiter-candidate[bot]';

export interface E2eOptions {
  changes: number;
  databaseUrl?: string;
  /** Safety limit of each wait for quiet. */
  timeoutMs: number;
}

export interface E2eResult {
  backend: 'PGlite' | 'PostgreSQL';
  changes: number;
  candidates: number;
  bootSeconds: number;
  /** From the first Change opening to quiet after every CI result (the whole run). */
  seconds: number;
  /** From the CI results (t=1) to quiet: verification and every selection. */
  decideSeconds: number;
  /**
   * From the last CI result sent to the last winner's merge (wall clock), with the production
   * client and its pacing unchanged (ARBITER_SIM_PACING_SCALE=1); null when nothing merged.
   */
  lastCiToMergeSeconds: number | null;
  decided: number;
  correct: number;
  wrong: string[];
  duplicateWrites: number;
  webhooks: number;
  reads: number;
  writes: number;
  violations: number;
  modelCalls: number;
  /** Installation-token requests (the emulator does not count JWT routes), from the app's /metrics. */
  tokenRequests: number;
  /** Every GitHub request the app made, by route and status, from its /metrics. */
  byRoute: Record<string, number>;
  /** Which app ran: `dist` (the build) or `source` (tsx). */
  app: string;
  error?: string;
}

/** `arbiter_github_requests_total{route="…",status="…"} n` lines of the app's /metrics, by route. */
export function requestsByRoute(metrics: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of metrics.split('\n')) {
    const m = /^arbiter_github_requests_total\{route="(.*)",status="(\d+)"\} (\S+)$/.exec(line);
    if (m) out[m[1]] = (out[m[1]] ?? 0) + Number(m[3]);
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Delivers whatever the emulator holds, a few at a time, until nothing is held. */
export class ConcurrentPump {
  delivered = 0;
  failed = 0;
  private sending = 0;
  constructor(private readonly gh: GitHubEmulator) {
    gh.holdWebhooks(true);
  }
  busy(): boolean {
    return this.sending > 0;
  }
  async pump(): Promise<number> {
    const held = this.gh.takeHeldWebhooks();
    let next = 0;
    const worker = async () => {
      while (next < held.length) {
        const w = held[next++];
        this.sending++;
        let status = 0;
        for (let attempt = 0; attempt < 3 && status === 0; attempt++)
          status = await this.gh.sendWebhook(w).catch(() => 0);
        this.sending--;
        this.delivered++;
        if (status < 200 || status >= 300) this.failed++;
      }
    };
    await Promise.all(Array.from({ length: DELIVERY_CONCURRENCY }, worker));
    return held.length;
  }
}

async function waitQuiet(app: AppProcess, gh: GitHubEmulator, pump: ConcurrentPump, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  let writes = gh.writes.length;
  while (quiet < 3) {
    if (app.crashed) throw new Error(`${app.crashed}\n${app.stderrTail()}`);
    if (Date.now() > deadline) throw new Error(`not quiet after ${timeoutMs / 1000} s`);
    const sent = await pump.pump();
    const idle = await app.idle();
    const still = sent === 0 && idle.idle && !pump.busy() && gh.inflightWebhooks() === 0 && gh.writes.length === writes;
    writes = gh.writes.length;
    quiet = still ? quiet + 1 : 0;
    await sleep(100);
  }
}

function plans(changes: number): GroupPlan[] {
  return Array.from({ length: changes }, (_, k) => planGroup(1 + k * (SIBLINGS + 1), SIBLINGS));
}

export async function runManyChanges(o: E2eOptions): Promise<E2eResult> {
  const groups = plans(o.changes);
  const backend = o.databaseUrl ? 'PostgreSQL' : 'PGlite';
  const result: E2eResult = {
    backend,
    changes: o.changes,
    candidates: o.changes * SIBLINGS,
    bootSeconds: 0,
    seconds: 0,
    decideSeconds: 0,
    lastCiToMergeSeconds: null,
    decided: 0,
    correct: 0,
    wrong: [],
    duplicateWrites: 0,
    webhooks: 0,
    reads: 0,
    writes: 0,
    violations: 0,
    modelCalls: 0,
    tokenRequests: 0,
    byRoute: {},
    app: appBuild(),
  };
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'arbiter-bench-e2e-'));
  const port = await freePort();
  let seconds = 0;
  const now = () => SCENARIO_EPOCH_MS + seconds * 1000;
  let gh: GitHubEmulator | null = null;
  let model: FakeAnthropic | null = null;
  let db: TempDatabase | null = null;
  let app: AppProcess | null = null;
  try {
    gh = await GitHubEmulator.start({
      webhookUrl: `http://127.0.0.1:${port}/api/github/webhooks`,
      webhookSecret: SECRET,
      appId: 1,
      appSlug: APP_SLUG,
      appPublicKeyPem: publicKey,
      now,
    });
    gh.setScenarioStart(SCENARIO_EPOCH_MS);
    const scripts: ModelScripts = { candidates: {} };
    for (const g of groups) for (const pr of g.candidates) scripts.candidates[pr] = candidateModel(g.change, pr);
    model = await FakeAnthropic.start({ scripts });
    if (o.databaseUrl) db = await createTempDatabase(o.databaseUrl);
    app = new AppProcess({
      port,
      env: {
        APP_ID: '1',
        PRIVATE_KEY: privateKey,
        WEBHOOK_SECRET: SECRET,
        GHE_HOST: new URL(gh.url).host,
        GHE_PROTOCOL: 'http',
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'sim-key',
        ARBITER_DATA_DIR: dataDir,
        ARBITER_APP_SLUG: APP_SLUG,
        ARBITER_SIM_START_MS: String(SCENARIO_EPOCH_MS),
        // The production client with production's pacing: the bench measures real time, on which
        // the pacing runs (scenarios compress it; this does not).
        ARBITER_SIM_PACING_SCALE: '1',
        LOG_LEVEL: 'warn',
        ARBITER_METRICS_TOKEN: METRICS_TOKEN,
        // The candidates' author is a bot, which GitHub's permission API answers 404 for: it is
        // trusted as a listed agent, as the scenario runner lists it.
        ARBITER_TRUST_AGENTS: CANDIDATE_AUTHOR,
        // As production runs (the scenario runner turns the wait off).
        ARBITER_CHECK_EVENT_WAIT: '1',
        ...(db ? { DATABASE_URL: db.url } : {}),
      },
    });
    const pump = new ConcurrentPump(gh);
    const bootStart = Date.now();
    await app.start();
    await app.setClock(now());
    result.bootSeconds = (Date.now() - bootStart) / 1000;

    const started = Date.now();
    gh.createRepo({ owner: 'bench', name: 'many', files: { ...BASE_FILES, '.github/arbiter.yml': BENCH_CONFIG } });
    const shas = new Map<number, string>();
    for (const g of groups) {
      await gh.openIssue(REPO, {
        number: g.change,
        title: `Greeting ${g.change}`,
        body: CHANGE_BODY,
        user: 'requester',
      });
      for (const pr of g.candidates) {
        const branch = `agent/c${g.change}-attempt-${pr}`;
        shas.set(
          pr,
          gh.commit(REPO, branch, {
            files: candidateFiles(g.change, pr),
            message: `Attempt ${pr}`,
            author: CANDIDATE_AUTHOR,
            from: 'main',
          }),
        );
        await gh.openPullRequest(REPO, {
          number: pr,
          head: branch,
          base: 'main',
          title: `Attempt ${pr}`,
          body: `Candidate-for: #${g.change}`,
          user: CANDIDATE_AUTHOR,
          draft: true,
        });
        await gh.startCheck(REPO, shas.get(pr)!, 'test');
        await gh.startCheck(REPO, shas.get(pr)!, 'bench');
      }
    }
    await waitQuiet(app, gh, pump, o.timeoutMs);

    seconds = 1;
    await app.setClock(now());
    const decideStart = Date.now();
    let lastMergeAt: number | null = null;
    gh.onWrite((w) => {
      if (w.status < 300 && w.summary.startsWith('merge ')) lastMergeAt = Date.now();
    });
    for (const g of groups)
      for (const pr of g.candidates) {
        await gh.completeCheck(REPO, shas.get(pr)!, 'test', 'success');
        await gh.completeCheck(REPO, shas.get(pr)!, 'bench', 'success', { title: `score: ${scoreOf(g, pr)}` });
      }
    const lastCiAt = Date.now();
    await waitQuiet(app, gh, pump, o.timeoutMs);
    const mergedAt: number | null = lastMergeAt;
    result.lastCiToMergeSeconds = mergedAt === null ? null : Math.max(0, (mergedAt - lastCiAt) / 1000);
    result.decideSeconds = (Date.now() - decideStart) / 1000;
    result.seconds = (Date.now() - started) / 1000;
  } catch (e) {
    result.error = e instanceof Error ? e.message.split('\n').slice(0, 6).join('\n') : String(e);
  } finally {
    if (gh) {
      const state = gh.state(REPO);
      const prs: Record<string, PullSnapshot> = Object.fromEntries(Object.entries(state.prs));
      for (const g of groups) {
        const problems = checkGroup(prs, g.winner, g.candidates);
        const decided = g.candidates.every((pr) => prs[String(pr)]?.state === 'closed');
        if (decided) result.decided++;
        if (problems.length === 0) result.correct++;
        else if (result.wrong.length < 5) {
          const where = g.candidates.map((pr) => {
            const p = prs[String(pr)];
            const sel = p?.checks['Arbiter / selection'];
            return `#${pr} ${p?.state ?? '?'} (selection: ${sel ? `${sel.status} ${sel.conclusion ?? ''} ${sel.title ?? ''}`.trim() : 'none'})`;
          });
          result.wrong.push(`#${g.change}: ${problems[0]}; ${where.join(', ')}`);
        }
      }
      const dups = duplicateWrites(gh.writes);
      const comments = repeatedComments([...Object.entries(state.prs), ...Object.entries(state.issues)]);
      result.duplicateWrites = dups.length + comments.length;
      result.webhooks = gh.sentWebhooks.length;
      const c = gh.counters();
      result.reads = c.reads;
      result.writes = c.writes;
      result.violations = gh.violations.length;
    }
    result.modelCalls = model?.requests.length ?? 0;
    if (app?.running) {
      const text = await fetch(`${app.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      }).then(
        (r) => r.text(),
        () => '',
      );
      result.byRoute = requestsByRoute(text);
      result.tokenRequests = result.byRoute['POST /app/installations/{installation_id}/access_tokens'] ?? 0;
    }
    await app?.stop().catch(() => {});
    await model?.stop().catch(() => {});
    await gh?.stop().catch(() => {});
    await db?.drop().catch(() => {});
    await rm(dataDir, { recursive: true, force: true }).catch(() => {});
  }
  return result;
}
