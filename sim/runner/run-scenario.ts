// Runs one scenario end to end: the emulator and the fake model in-process, Arbiter as a
// child process, the timeline on a virtual clock, faults, and the transcript at the end.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeAnthropic, type ModelScripts } from '../anthropic/index.ts';
import { GitHubEmulator, type WriteRecord } from '../github/index.ts';
import { baseBranches, DEFAULT_CANDIDATE_AUTHOR, repoOf, type Scenario } from '../scenario-schema.ts';
import { createFurtherRepos, stateOfAll } from './all-repos.ts';
import { completeCheck, runAct, startChecks, type ActContext } from './acts.ts';
import { WorkflowApprovals } from './approvals.ts';
import { AppProcess, freePort, type AppHost } from './app-process.ts';
import { ReplicaSet } from './replicas.ts';
import { seedPgliteFolder } from './pglite-template.ts';
import { createTempDatabase, type TempDatabase } from './temp-database.ts';
import { DeliveryPump } from './deliveries.ts';
import { ScenarioRunError } from './errors.ts';
import { AgentScripts } from './agents.ts';
import { Agenda, buildTimeline, type HeadKey } from './timeline.ts';
import { parseTranscript, renderFinalState, verdictLine, type Restart, type Transcript } from './transcript.ts';
import { waitUntilQuiet } from './quiet.ts';
import { collapseRepeats } from './collapse.ts';
import { replayRun } from './replay-run.ts';
import { keepRun } from './keep-run.ts';

/** Scenario time 0 on the virtual clock, so transcripts are the same from run to run. */
export const SCENARIO_EPOCH_MS = Date.UTC(2026, 0, 1);
const WEBHOOK_SECRET = 'arbiter-sim-secret';
const APP_ID = 1;
const APP_SLUG = 'arbiter';

export interface RunOptions {
  /** Log the JSON transcript at the end instead of the readable lines. */
  json?: boolean;
  /** A PostgreSQL server: the run gets a fresh database on it, dropped at the end. Unset: PGlite. */
  databaseUrl?: string;
  log?: (line: string) => void;
  /** Extension for testing the runner: what to run after `node` instead of `--import tsx sim/runner/app-entry.ts`. */
  appArgs?: string[];
  /** Extra environment for the app process. */
  appEnv?: Record<string, string>;
  /** Safety limit of one wait for quiet, in real milliseconds (default 90 000). */
  quietTimeoutMs?: number;
  /**
   * Called with the emulator once the run is quiet, before everything stops (tests read its
   * webhooks), and the running app's base URL (tests read its /metrics); awaited.
   */
  inspect?: (emulator: GitHubEmulator, app: { baseUrl: string }) => unknown;
  /**
   * Extension for the soak: this many Arbiter processes on the one PostgreSQL database (needs
   * `databaseUrl`), behind a proxy that spreads webhook deliveries between them; a restart fault
   * kills one of them. Default 1.
   */
  replicas?: number;
  /** Which replica a delivery goes to and which one a restart kills, drawn from this seed. */
  replicaSeed?: number;
  /** Extra environment for each replica, on top of `appEnv`. */
  replicaEnv?: Record<string, string>;
  /**
   * Extension for the soak's own test: called with the run's database URL once the app has
   * migrated it, before the first webhook is delivered (the test breaks the claim there).
   */
  onDatabaseReady?: (databaseUrl: string) => Promise<void>;
}

function modelScripts(s: Scenario): ModelScripts {
  const candidates: ModelScripts['candidates'] = {};
  for (const c of s.candidates) if (c.model) candidates[c.number] = c.model;
  return { candidates, ...(s.judge ? { judge: s.judge } : {}) };
}

function writeKey(w: WriteRecord): string {
  return w.operation ? `${w.method} ${w.route} ${w.operation}` : `${w.method} ${w.route}`;
}

let key: { privateKey: string; publicKey: string } | null = null;
/** The sim app's key pair: made once per runner process (an RSA key costs about 0.2 s of CPU). */
function appKey(): { privateKey: string; publicKey: string } {
  key ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return key;
}

export async function runScenario(scenario: Scenario, opts: RunOptions = {}): Promise<Transcript> {
  const log = opts.log ?? (() => {});
  const readable = opts.json ? () => {} : log;
  let seconds = 0;
  const now = () => SCENARIO_EPOCH_MS + seconds * 1000;
  // A line that repeats the one before (a check run rewritten in_progress) is printed once, counted.
  const printer = collapseRepeats(readable);
  const say = (line: string) => printer.line(`${`t=${seconds}`.padEnd(6)} ${line}`);
  const restarts: Restart[] = [];
  let fatal: Error | null = null;

  const { privateKey, publicKey } = appKey();
  const dataDir = await mkdtemp(join(tmpdir(), 'arbiter-sim-'));
  // The embedded store starts from a copy of a ready-made folder instead of a fresh initdb.
  if (!opts.databaseUrl && process.env['ARBITER_SIM_FRESH_STORE'] !== '1') await seedPgliteFolder(dataDir);
  const port = await freePort();
  let emulator: GitHubEmulator | null = null;
  let model: FakeAnthropic | null = null;
  let db: TempDatabase | null = null;
  let app: AppHost | null = null;
  try {
    emulator = await GitHubEmulator.start({
      webhookUrl: `http://127.0.0.1:${port}/api/github/webhooks`,
      webhookSecret: WEBHOOK_SECRET,
      appId: APP_ID,
      appSlug: APP_SLUG,
      appPublicKeyPem: publicKey,
      now,
    });
    const gh = emulator;
    gh.setScenarioStart(SCENARIO_EPOCH_MS);
    const replicas = opts.replicas ?? 1;
    const pump = new DeliveryPump(
      gh,
      scenario.faults.redeliver,
      (line) => say(line),
      scenario.faults.reorder ?? null,
      replicas,
    );
    for (const f of scenario.faults.github) gh.addFault(f);
    for (const f of scenario.faults.deliveries) gh.addDeliveryFault(f);
    gh.onHookAttempt((a) => {
      const what = `${a.event}${a.action ? `.${a.action}` : ''} ${a.guid}`;
      if (a.fault) say(`Fault: the webhook ${what} fails before it reaches Arbiter (HTTP ${a.status_code})`);
      else if (a.requested) say(`GitHub delivered ${what} again, as Arbiter asked (HTTP ${a.status_code})`);
    });
    let scripts = modelScripts(scenario);
    model = await FakeAnthropic.start({ scripts, faults: scenario.faults.model });
    const fake = model;
    if (opts.databaseUrl) db = await createTempDatabase(opts.databaseUrl);

    if (replicas > 1 && !db) throw new ScenarioRunError('replicas share one PostgreSQL database: give a database URL');
    const appOptions = {
      port,
      args: opts.appArgs,
      env: {
        APP_ID: String(APP_ID),
        PRIVATE_KEY: privateKey,
        WEBHOOK_SECRET,
        GHE_HOST: new URL(gh.url).host,
        GHE_PROTOCOL: 'http',
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_API_KEY: 'sim-key',
        ARBITER_DATA_DIR: dataDir,
        ARBITER_APP_SLUG: APP_SLUG,
        ARBITER_SIM_START_MS: String(SCENARIO_EPOCH_MS),
        LOG_LEVEL: 'warn',
        ...(db ? { DATABASE_URL: db.url } : {}),
        // The dashboard issue only where a scenario asks for it: other scenarios' writes stay as they were.
        ARBITER_DASHBOARD: scenario.dashboard ? '1' : '0',
        // GitHub answers 404 for a bot's permission, so no bot is trusted by permission. The default
        // candidate author stands for the team's own agent, trusted for the whole deployment (as an
        // operator lists it), so a scenario that never names an author keeps its meaning without
        // a `trust.agents` line in its config.
        ARBITER_TRUST_AGENTS: DEFAULT_CANDIDATE_AUTHOR,
        ...opts.appEnv,
      },
    };
    const proc: AppHost =
      replicas > 1
        ? await ReplicaSet.create(appOptions, { replicas, seed: opts.replicaSeed ?? 1, env: opts.replicaEnv ?? {} })
        : new AppProcess(appOptions);
    app = proc;

    let restarting: Promise<void> | null = null;
    // Read through a call: the compiler cannot see the closures below that set it.
    const pendingRestart = (): Promise<void> | null => restarting;
    const restartNow = (afterSeq: number) => {
      if (proc.killStopsDeliveries) pump.pause();
      proc.killNow();
      restarts.push({ at: seconds, afterSeq });
      say(
        proc.killStopsDeliveries
          ? `Restart: Arbiter killed (SIGKILL) after write ${afterSeq}; a fresh process starts on the same store`
          : `Restart: one replica killed (SIGKILL) after write ${afterSeq}; the others serve until it is back`,
      );
      restarting = (async () => {
        await proc.waitExited();
        // A fresh port: the old one may be taken by another process the moment it is freed.
        const next = await freePort();
        proc.usePort(next);
        gh.setWebhookUrl(proc.webhookUrl);
        await proc.start();
        gh.setWebhookUrl(proc.webhookUrl);
        await proc.setClock(now());
        pump.resume();
      })()
        .catch((e: unknown) => {
          fatal = e instanceof Error ? e : new Error(String(e));
        })
        .finally(() => {
          restarting = null;
          // A kill whose write the fresh process made while it was starting comes now.
          const due = lateKill;
          lateKill = null;
          if (due !== null && !fatal) restartNow(due);
        });
    };
    /** The seq of a matching write seen while a restart was under way: that kill follows it. */
    let lateKill: number | null = null;

    // The combined candidate: its answers are scripted the moment Arbiter opens it (before any
    // acceptance call can ask), its CI starts once the run is quiet after that.
    const combinedSeen = new Set<number>();
    const combinedPending: { number: number; head: string; headSha: string }[] = [];
    const noticeCombined = () => {
      for (const p of gh.pullsOpenedByApp(scenario.repo)) {
        if (combinedSeen.has(p.number)) continue;
        combinedSeen.add(p.number);
        const expected = scenario.combined?.number;
        if (expected !== undefined && expected !== p.number && !fatal)
          fatal = new Error(
            `the combined candidate opened as #${p.number}, but the scenario's combined.number is ${expected}`,
          );
        combinedPending.push(p);
        const model = scenario.combined?.model;
        if (model) {
          scripts = { ...scripts, candidates: { ...scripts.candidates, [p.number]: model } };
          fake.setScripts(scripts);
        }
      }
    };

    // A combined PR Arbiter rebuilt (a parent's new head merged into its branch): its CI runs again
    // on the new head, as CI runs on every push, with the same `combined.checks`.
    const combinedStarted = new Map<number, string>();
    const noticeRebuilt = () => {
      for (const p of gh.pullsOpenedByApp(scenario.repo)) {
        if (!combinedSeen.has(p.number) || combinedStarted.get(p.number) === p.headSha) continue;
        if (combinedPending.some((q) => q.number === p.number && q.headSha === p.headSha)) continue;
        combinedPending.push(p);
      }
    };

    const afterFaults = scenario.faults.restart.flatMap((r) => ('after' in r ? [{ ...r, seen: 0 }] : []));
    // A branch Arbiter brought up to date (update-branch): CI runs the candidate's scripted checks
    // again on the new head, each as long after the update as it took after the candidate opened.
    const updatedPending: number[] = [];
    gh.onWrite((w) => {
      if (w.method === 'POST' && w.route === '/repos/{owner}/{repo}/pulls' && w.status < 300) noticeCombined();
      if (w.method === 'POST' && w.route === '/repos/{owner}/{repo}/merges' && w.status === 201) noticeRebuilt();
      if (w.method === 'PUT' && w.route === '/repos/{owner}/{repo}/pulls/{pull_number}/update-branch' && w.status < 300)
        updatedPending.push(Number(w.path.split('/')[5]));
      say(
        `Arbiter: ${w.summary}${w.status >= 400 && !w.summary.includes(String(w.status)) ? ` (HTTP ${w.status})` : ''}`,
      );
      if (w.status >= 400) return; // not applied (or a lost response): not "the nth applied write"
      for (const f of afterFaults) {
        if (writeKey(w) !== f.after && `${w.method} ${w.route}` !== f.after) continue;
        f.seen++;
        if (f.seen !== f.nth) continue;
        if (restarting) lateKill ??= w.seq;
        else restartNow(w.seq);
      }
    });

    const quiet = () =>
      waitUntilQuiet({
        app: proc,
        emulator: gh,
        pump,
        restarting: () => restarting,
        fatal: () => fatal,
        timeoutMs: opts.quietTimeoutMs ?? 90_000,
        where: () => `t=${seconds}`,
      });
    let agenda: Agenda | null = null;
    let acts: ActContext | null = null;
    const settle = async () => {
      await quiet();
      // CI of a combined candidate Arbiter opened meanwhile: started now, each result `at` seconds on.
      while (acts !== null && combinedPending.length > 0) {
        const p = combinedPending.shift()!;
        const rebuilt = combinedStarted.has(p.number);
        const head: HeadKey = rebuilt ? `sha:${p.headSha}` : `open:${p.number}`;
        if (!rebuilt) acts.heads.set(head, p.headSha);
        combinedStarted.set(p.number, p.headSha);
        say(
          rebuilt
            ? `Arbiter rebuilt the combined candidate #${p.number}: CI runs again on ${p.headSha.slice(0, 7)}`
            : `Arbiter opened the combined candidate #${p.number} from ${p.head}`,
        );
        const checks = scenario.combined?.checks ?? [];
        await startChecks(acts, p.headSha, p.number, checks);
        for (const check of checks) {
          if (check.never || check.at === undefined) continue;
          if (check.at === 0) await completeCheck(acts, p.number, head, check);
          else agenda?.add(seconds + check.at, { kind: 'check', candidate: p.number, head, check });
        }
        await quiet();
      }
      while (acts !== null && updatedPending.length > 0) {
        const pr = updatedPending.shift()!;
        const spec = scenario.candidates.find((c) => c.number === pr);
        if (!spec) continue;
        const sha = gh.pullHead(repoOf(scenario, pr), pr);
        const head: HeadKey = `sha:${sha}`;
        await startChecks(acts, sha, pr, spec.checks);
        for (const check of spec.checks) {
          if (check.never || check.at === undefined) continue;
          const after = Math.max(1, check.at - spec.openAt);
          agenda?.add(seconds + after, { kind: 'check', candidate: pr, head, check });
        }
        await quiet();
      }
    };

    // The app boots while the repository is seeded: webhooks are held until the first wait
    // for quiet, after the app's clock is set.
    const booting = proc.start();
    booting.catch(() => {});

    // Time 0: the repository and the Change.
    const files = {
      ...scenario.files,
      ...(scenario.config !== undefined ? { '.github/arbiter.yml': scenario.config } : {}),
    };
    gh.createRepo({
      owner: scenario.repo.split('/')[0],
      name: scenario.repo.split('/')[1],
      defaultBranch: scenario.defaultBranch,
      files,
      users: scenario.users,
      ...(scenario.branch ? { rules: scenario.branch } : {}),
      allowAutoMerge: scenario.allowAutoMerge,
      mergeMethods: scenario.mergeMethods,
    });
    for (const base of baseBranches(scenario)) gh.createBranch(scenario.repo, base, scenario.defaultBranch);
    createFurtherRepos(gh, scenario);
    const c = scenario.change;
    await gh.openIssue(scenario.repo, { number: c.number, title: c.title, body: c.body, user: c.author });
    say(`${c.author} opened Change #${c.number}: ${c.title}`);
    for (const more of scenario.changes) {
      await gh.openIssue(scenario.repo, { number: more.number, title: more.title, body: more.body, user: more.author });
      say(`${more.author} opened Change #${more.number}: ${more.title}`);
    }
    await booting;
    // The app may have moved to another port while starting (AppProcess.start).
    gh.setWebhookUrl(proc.webhookUrl);
    if (db && opts.onDatabaseReady) await opts.onDatabaseReady(db.url);
    await proc.setClock(now());
    await settle();
    while (pump.releaseWindow()) await settle();

    const agents = new AgentScripts(scenario, gh);
    const ctx: ActContext = (acts = {
      scenario,
      agents,
      emulator: gh,
      heads: new Map<HeadKey, string>(),
      approvals: new WorkflowApprovals(),
      get scripts() {
        return scripts;
      },
      setScripts(s) {
        scripts = s;
        fake.setScripts(s);
      },
      say,
      restart: () => restartNow(gh.writes.length ? gh.writes[gh.writes.length - 1].seq : 0),
    });
    agenda = new Agenda(buildTimeline(scenario));
    const answerAgents = () => {
      for (const s of agents.poll(seconds)) agenda?.add(s.at, s.act);
    };
    /**
     * Settles, then lets the clock run to the due time of each job Arbiter deferred (a rate
     * limit's wait), as time would pass, while that time comes before the next act on the agenda.
     */
    const settleThrough = async () => {
      for (;;) {
        await settle();
        answerAgents();
        if (restarting) return;
        const due = (await proc.idle()).deferredUntil ?? null;
        if (due === null) return;
        const at = Math.max(seconds, Math.ceil((due - SCENARIO_EPOCH_MS) / 1000));
        const limit = agenda?.nextAt() ?? null;
        if (limit !== null && at >= limit) return;
        seconds = at;
        say(
          `The clock runs on to t=${seconds}: Arbiter deferred work until then (a rate limit's wait, the dashboard's next minute)`,
        );
        await proc.setClock(now());
      }
    };
    /** The end of a time step: webhooks a reorder still holds back are delivered (shuffled) and settle. */
    const settleStep = async () => {
      await settleThrough();
      while (pump.releaseWindow()) await settleThrough();
    };
    // The agenda may grow while it runs (agents' PRs, re-runs, the combined candidate's CI).
    do {
      for (let step = agenda.next(seconds); step; step = agenda.next(seconds)) {
        seconds = step.at;
        const restart = pendingRestart();
        if (restart) await restart;
        await proc.setClock(now());
        await settle();
        answerAgents();
        for (const [i, act] of step.acts.entries()) {
          await runAct(ctx, act);
          // A scheduled restart right after this act interrupts whatever the act started.
          if (step.acts[i + 1]?.kind !== 'restart') await settle();
          answerAgents();
        }
        await settleStep();
      }
      await settleStep();
    } while (agenda.size > 0);
    await opts.inspect?.(gh, { baseUrl: proc.baseUrl });
    // Every decision of the run is replayed through the pure core: one that decides otherwise now
    // (or a receipt this version cannot read) fails the run, with the difference.
    const receipts = replayRun(await proc.receipts());

    const state = stateOfAll(gh, scenario);
    const parsed = parseTranscript({
      writes: gh.writes,
      prs: state.prs,
      issues: state.issues,
      dispatches: state.dispatches,
      restarts,
    });
    if (!parsed.ok)
      throw new ScenarioRunError(
        `the emulator's final state does not have the transcript shape:\n${parsed.errors.join('\n')}`,
      );
    const transcript = { ...parsed.transcript, receipts };
    printer.finish();
    if (opts.json) log(JSON.stringify(transcript, null, 2));
    else {
      for (const line of renderFinalState(transcript, scenario.change.number)) log(line);
      log('');
      log(verdictLine(transcript));
    }
    await keepRun(scenario, transcript);
    return transcript;
  } finally {
    printer.flush();
    await app?.stop().catch(() => {});
    await model?.stop().catch(() => {});
    await emulator?.stop().catch(() => {});
    await db?.drop().catch(() => {});
    await rm(dataDir, { recursive: true, force: true }).catch(() => {});
  }
}
