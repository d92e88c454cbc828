// `npm run bench`: the four benchmarks of docs/PERFORMANCE.md in one run, each bounded in time,
// printed as tables (ratios side by side) and written to bench/results/latest.json.
//   --only=requests,intake,context,e2e,citations,memory   run some sections (citations: the citation rule over
//                                         real files; memory: idle RSS of `npm start`)
//   --quick                               smaller sizes (a smoke run)
//   --sizes=2,5,20,100 --deliveries=3000 --changes=20 --no-postgres --budget-requests=SECONDS
// The default --changes=20 keeps the run near five minutes; the 100-Change figure is
// `npm run bench -- --only=e2e --changes=100` (see docs/PERFORMANCE.md).
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchCitationPairs, citationPairsLine, loadCitationPairs } from './citation-pairs.ts';
import { benchCitations, citationCorpusLine } from './citations.ts';
import { benchContext, type ContextResult } from './context.ts';
import { runManyChanges, type E2eResult } from './e2e.ts';
import { runRealistic, type RealisticResult } from './realistic.ts';
import { benchIntake, type IntakeResult } from './intake.ts';
import { benchMemory, type MemoryResult } from './memory.ts';
import { benchRequests, type GroupRequests } from './requests.ts';
import { renderTable } from './table.ts';

const SECTIONS = ['requests', 'intake', 'context', 'e2e', 'citations', 'memory'] as const;
type Section = (typeof SECTIONS)[number];

interface Settings {
  only: Section[];
  sizes: number[];
  deliveries: number;
  changes: number;
  /** `--realistic`: only the realistic end-to-end run (with --only=e2e); else both. */
  realisticOnly: boolean;
  realistic: { installations: number; changes: number; seed: number; step: number };
  postgres: string | null;
  /** Per-section limits in seconds. */
  budget: Record<Section, number>;
}

function flag(name: string): string | undefined {
  const hit = process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (hit === undefined) return undefined;
  return hit.includes('=') ? hit.slice(hit.indexOf('=') + 1) : '';
}

const list = (v: string | undefined): number[] | undefined =>
  v
    ? v
        .split(',')
        .map(Number)
        .filter((n) => Number.isInteger(n) && n > 0)
    : undefined;

function settings(): Settings {
  const quick = flag('quick') !== undefined;
  const only = (flag('only')?.split(',') ?? [...SECTIONS]).filter((s): s is Section =>
    (SECTIONS as readonly string[]).includes(s),
  );
  return {
    only,
    sizes: list(flag('sizes')) ?? (quick ? [2, 5] : [2, 5, 20, 100]),
    deliveries: Number(flag('deliveries') ?? (quick ? 500 : 3000)),
    changes: Number(flag('changes') ?? (quick ? 5 : 20)),
    realisticOnly: flag('realistic') !== undefined,
    // The full figure is 10 installations × 10 Changes (`--realistic`); the default run plays a
    // smaller one so it stays within minutes.
    realistic: {
      installations: Number(flag('installations') ?? (flag('realistic') !== undefined ? 10 : quick ? 2 : 3)),
      changes: Number(flag('changes-per') ?? (flag('realistic') !== undefined ? 10 : quick ? 2 : 3)),
      seed: Number(flag('seed') ?? 1),
      step: Number(flag('step') ?? 5),
    },
    postgres:
      flag('no-postgres') !== undefined
        ? null
        : (process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'),
    budget: {
      requests: Number(flag('budget-requests') ?? 300),
      intake: 40,
      context: 60,
      e2e: 120,
      citations: 30,
      memory: Number(flag('idle') ?? 20),
    },
  };
}

const say = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const print = (lines: string[]) => process.stdout.write(`${lines.join('\n')}\n\n`);

function printRequests(r: GroupRequests[]): void {
  const base = r.find((g) => !g.error);
  print([
    'GitHub requests per selection (emulator counts; "selection" = last sibling settling + selection step, minus one sibling\'s verify share)',
    ...renderTable(
      [
        'siblings',
        'sel reads',
        'sel writes',
        'reads vs 2',
        'last reads',
        'last writes',
        'total reads',
        'total writes',
        'reads/sibling',
        'seconds',
        'correct',
      ],
      r.map((g) => [
        g.size,
        g.selection.reads,
        g.selection.writes,
        base && base.selection.reads > 0 && !g.error ? g.selection.reads / base.selection.reads : null,
        g.last.reads,
        g.last.writes,
        g.total.reads,
        g.total.writes,
        g.error ? null : g.total.reads / g.size,
        g.seconds,
        g.error ? `no: ${g.problems[0]?.slice(0, 60)}` : g.correct ? 'yes' : `NO: ${g.problems[0]}`,
      ]),
    ),
  ]);
}

/** The t=3 window by route, side by side per group size: which requests grow with the group. */
function printRoutes(r: GroupRequests[]): void {
  const measured = r.filter((g) => !g.error);
  if (measured.length === 0) return;
  const routes = [...new Set(measured.flatMap((g) => Object.keys(g.lastByRoute)))];
  const biggest = measured[measured.length - 1];
  routes.sort((a, b) => (biggest.lastByRoute[b] ?? 0) - (biggest.lastByRoute[a] ?? 0));
  print([
    'Requests from the last CI result to quiet, by route (logging proxy; includes token requests)',
    ...renderTable(
      ['route', ...measured.map((g) => `${g.size} sibl.`)],
      routes.map((route) => [route, ...measured.map((g) => g.lastByRoute[route] ?? 0)]),
    ),
  ]);
}

function printIntake(r: IntakeResult): void {
  print([
    `Webhook intake (${r.payloadBytes} B pull_request.opened, ${r.connections} keep-alive connections, up to ${r.count} deliveries after ${r.warmup} warm-up)`,
    ...renderTable(
      ['server', 'sent', 'ok', 'per s', 'ratio', 'p50 ms', 'p99 ms', 'p99 ratio', 'recorded', 'max RSS MB'],
      r.targets.map((t) => [
        t.name,
        t.load.count,
        t.load.ok,
        t.load.perSecond,
        t.ratio,
        t.load.p50Ms,
        t.load.p99Ms,
        t.p99Ratio,
        t.recorded === null ? null : `${t.recorded}/${t.answered}`,
        t.maxRssMb,
      ]),
    ),
  ]);
}

function printContext(r: ContextResult): void {
  print([
    'Acceptance context (each case in its own process; RSS includes the generated PR itself)',
    ...renderTable(
      [
        'case',
        'diff MB',
        'fetchPatch ms',
        'select ms',
        'build ms',
        'context ms',
        'full parse ms',
        'material B',
        'input RSS MB',
        'peak RSS MB',
      ],
      r.cases.map((c) => [
        c.case,
        c.diffMb,
        c.fetchPatchMs,
        c.selectMs,
        c.buildMs,
        c.contextMs,
        c.parseFullDiffMs,
        c.materialBytes,
        c.inputRssMb,
        c.peakRssMb,
      ]),
    ),
    `Citations: ${r.citations.citations} over ${r.citations.materialBytes} B in ${r.citations.totalMs.toFixed(1)} ms (${r.citations.verified} verified); ` +
      `without the per-material cache ${r.citations.coldTotalMs.toFixed(0)} ms.`,
  ]);
}

const fixed = (n: number | null, digits = 1): string => (n === null ? '–' : n.toFixed(digits));

function printRealistic(r: RealisticResult[]): void {
  print([
    'End to end, realistic CI (15 check runs from 3 apps + 2 statuses per head, 3 required, spread over 10 min of app time; installations at once; production client and pacing)',
    ...renderTable(
      [
        'backend',
        'installations',
        'changes',
        'decided',
        'correct',
        'dup writes',
        'requests/cand.',
        'content/cand.',
        'hourly requests per 100',
        'hourly content per 100',
        'CI→merge app s (median, p95)',
        'CI→merge wall s (median, p95)',
        'installations that waited',
        'error',
      ],
      r.map((x) => [
        x.backend,
        x.installations,
        x.changes,
        x.decided,
        x.correct,
        x.duplicateWrites,
        x.requestsPerCandidate,
        x.contentPerCandidate,
        `${fixed(100 * x.hourlySharePer100.requests)} %`,
        `${fixed(100 * x.hourlySharePer100.content)} %`,
        `${fixed(x.ciToMergeApp.median, 0)}, ${fixed(x.ciToMergeApp.p95, 0)}`,
        `${fixed(x.ciToMergeWall.median)}, ${fixed(x.ciToMergeWall.p95)}`,
        x.installationsThatWaited,
        x.error ? x.error.split('\n')[0].slice(0, 50) : '',
      ]),
    ),
    ...r.map(
      (x) =>
        `${x.backend} (${x.app}): ${x.candidates} candidates, ${x.webhooks} webhooks, ${x.reads} reads, ${x.writes} writes (${x.contentWrites} content-creating), ${x.modelCalls} model calls, app clock ${x.appSeconds} s, ${fixed(x.seconds, 0)} s wall; pacing waits: ${
          Object.entries(x.pacingWait)
            .map(([k, v]) => `${k} ${v.toFixed(2)} s`)
            .join(', ') || 'none'
        }${x.wrong.length ? `; wrong: ${x.wrong.join(' | ')}` : ''}`,
    ),
    ...r.map(
      (x) =>
        `${x.backend}: requests per candidate by route: ${Object.entries(x.byRoute)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 12)
          .map(([route, n]) => `${route} ${(n / x.candidates).toFixed(1)}`)
          .join(', ')}`,
    ),
    ...r.map(
      (x) =>
        `${x.backend}: GraphQL reads per candidate by query: ${Object.entries(x.graphqlByQuery)
          .sort((a, b) => b[1] - a[1])
          .map(([query, n]) => `${query.replace(/^query /, '')} ${(n / x.candidates).toFixed(1)}`)
          .join(', ')}`,
    ),
  ]);
}

function printE2e(r: E2eResult[]): void {
  const pglite = r.find((x) => x.backend === 'PGlite');
  print([
    'End to end (Changes × 3 candidates in one repository, all at once)',
    ...renderTable(
      [
        'backend',
        'changes',
        'decided',
        'correct',
        'dup writes',
        'boot s',
        'decide s',
        'last CI → merge s',
        'total s',
        'vs PGlite',
        'webhooks',
        'reads',
        'writes',
        'error',
      ],
      r.map((x) => [
        x.backend,
        x.changes,
        x.decided,
        x.correct,
        x.duplicateWrites,
        x.bootSeconds,
        x.decideSeconds,
        x.lastCiToMergeSeconds,
        x.seconds,
        pglite && pglite.seconds > 0 && x.seconds > 0 ? x.seconds / pglite.seconds : null,
        x.webhooks,
        x.reads,
        x.writes,
        x.error ? x.error.split('\n')[0].slice(0, 50) : '',
      ]),
    ),
    // Token requests are reads here: the emulator leaves JWT routes out of its own counters.
    ...r.map((x) => {
      const reads = x.reads + x.tokenRequests;
      const per = x.candidates > 0 ? (reads + x.writes) / x.candidates : 0;
      return `${x.backend} (${x.app}): requests per candidate: ${per.toFixed(1)} (${reads} reads, ${x.writes} writes)`;
    }),
  ]);
  const routes = [...new Set(r.flatMap((x) => Object.keys(x.byRoute)))].sort(
    (a, b) => (r[0]?.byRoute[b] ?? 0) - (r[0]?.byRoute[a] ?? 0),
  );
  if (routes.length > 0)
    print([
      "End to end: GitHub requests by route (the app's /metrics; per candidate in brackets)",
      ...renderTable(
        ['route', ...r.map((x) => x.backend)],
        routes.map((route) => [
          route,
          ...r.map((x) => `${x.byRoute[route] ?? 0} (${((x.byRoute[route] ?? 0) / x.candidates).toFixed(2)})`),
        ]),
      ),
    ]);
}

function printMemory(r: MemoryResult): void {
  const app = r.app;
  print([
    `Idle memory of npm start on PGlite, data folder reopened, ${r.idleSeconds} s without traffic (RSS of every process)`,
    ...renderTable(
      ['process', 'RSS MB'],
      [
        ...r.processes.map((p) => [p.command, p.rssMb]),
        ['total', r.idleTotalMb],
        ['(first start, creating the folder)', r.firstStartTotalMb],
      ],
    ),
    app
      ? `The app: RSS ${app.rssMb.toFixed(0)} MB, of which the JS heap ${app.heapUsedMb.toFixed(0)} MB used of ${app.heapTotalMb.toFixed(0)} MB; ` +
        `external ${app.externalMb.toFixed(0)} MB; the rest (${(app.rssMb - app.heapTotalMb).toFixed(0)} MB) is PGlite's WebAssembly memory, code and Node itself.`
      : `not measured${r.error ? `: ${r.error}` : ''}`,
    `idle RSS total: ${r.idleTotalMb.toFixed(0)} MB${r.error ? ` (error: ${r.error})` : ''}`,
  ]);
}

async function main(): Promise<void> {
  const s = settings();
  const started = Date.now();
  const load = os.loadavg();
  const results: Record<string, unknown> = {
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      loadAverageAtStart: load,
    },
    settings: s,
    startedAt: new Date().toISOString(),
  };
  say(`${os.cpus().length} cores, Node ${process.version}, load average ${load.map((l) => l.toFixed(1)).join(' ')}`);
  if (s.only.includes('citations')) {
    const r = benchCitations();
    const all = loadCitationPairs();
    const pairs = benchCitationPairs(all);
    results.citations = { ...r, pairs };
    print([
      citationPairsLine(pairs),
      ...[undefined, 2, 3].map(
        (b) => `  batch ${b ?? 1}: ${citationPairsLine(benchCitationPairs(all.filter((p) => p.batch === b)))}`,
      ),
      ...pairs.rejectExamples.map((e) => `  refused, should verify: ${e}`),
      ...pairs.acceptExamples.map((e) => `  verified, self-description: ${e}`),
      citationCorpusLine(r),
    ]);
  }
  if (s.only.includes('context')) {
    const r = await benchContext(say);
    results.context = r;
    printContext(r);
  }
  if (s.only.includes('intake')) {
    const r = await benchIntake(
      {
        count: s.deliveries,
        warmup: Math.min(300, s.deliveries / 10),
        connections: 20,
        maxSeconds: s.budget.intake / 4,
        databaseUrl: s.postgres,
      },
      say,
    );
    results.intake = r;
    printIntake(r);
  }
  if (s.only.includes('requests')) {
    const r = await benchRequests(s.sizes, { budgetMs: s.budget.requests * 1000 }, say);
    results.requests = r;
    printRequests(r);
    printRoutes(r);
  }
  if (s.only.includes('e2e')) {
    const out: RealisticResult[] = [];
    for (const databaseUrl of [undefined, ...(s.postgres ? [s.postgres] : [])]) {
      const { installations, changes, seed, step } = s.realistic;
      say(
        `e2e realistic: ${installations} installations × ${changes} Changes × 3 candidates on ${databaseUrl ? 'PostgreSQL' : 'PGlite'}`,
      );
      const r = await runRealistic({
        installations,
        changes,
        seed,
        stepSeconds: step,
        timeoutMs: Math.max(s.budget.e2e, installations * changes * 6) * 1000,
        say,
        ...(databaseUrl ? { databaseUrl } : {}),
      });
      say(
        `e2e realistic: ${r.backend}: ${r.decided}/${r.changes} decided, ${r.correct} correct${r.error ? `, ${r.error.split('\n')[0]}` : ''}`,
      );
      out.push(r);
    }
    results.realistic = out;
    printRealistic(out);
  }
  if (s.only.includes('e2e') && !s.realisticOnly) {
    const out: E2eResult[] = [];
    for (const databaseUrl of [undefined, ...(s.postgres ? [s.postgres] : [])]) {
      say(`e2e: ${s.changes} Changes × 3 candidates on ${databaseUrl ? 'PostgreSQL' : 'PGlite'}`);
      // Each wait for quiet may take the budget, or about 6 s per Change on a busy 2-core machine.
      const r = await runManyChanges({
        changes: s.changes,
        timeoutMs: Math.max(s.budget.e2e, s.changes * 6) * 1000,
        ...(databaseUrl ? { databaseUrl } : {}),
      });
      say(
        `e2e: ${r.backend}: ${r.decided}/${r.changes} decided, ${r.correct} correct, ${r.duplicateWrites} duplicate writes${r.error ? `, ${r.error.split('\n')[0]}` : ''}`,
      );
      out.push(r);
    }
    results.e2e = out;
    printE2e(out);
  }
  if (s.only.includes('memory')) {
    const r = await benchMemory({ idleSeconds: s.budget.memory }, say);
    results.memory = r;
    printMemory(r);
  }
  results.seconds = (Date.now() - started) / 1000;
  results.loadAverageAtEnd = os.loadavg();
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}latest.json`, `${JSON.stringify(results, null, 2)}\n`);
  say(`done in ${((Date.now() - started) / 1000).toFixed(0)} s; bench/results/latest.json written`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
