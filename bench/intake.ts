// Benchmark 2, webhook intake: signed deliveries per second and p50/p99 time to answer, through
// Arbiter's real server (store + queue) on PGlite and on PostgreSQL, against a bare Probot app
// with an empty handler; same payload, same connections, same count, in one run.
import { createRequire } from 'node:module';
import { z } from 'zod';
import { createTempDatabase } from '../sim/runner/temp-database.ts';
import { startChild } from './child.ts';
import { BENCH_SECRET } from './intake-constants.ts';
import { sendLoad, type LoadResult } from './load.ts';

export interface IntakeOptions {
  count: number;
  warmup: number;
  connections: number;
  /** Bound on each measured phase, so a slow target cannot hold up the bench. */
  maxSeconds: number;
  databaseUrl: string | null;
}

export interface IntakeTarget {
  name: string;
  load: LoadResult;
  /** Deliveries answered 2xx, warm-up included. */
  answered: number;
  /** Deliveries the store held afterwards (warm-up included; at least `answered`); null for the bare app. */
  recorded: number | null;
  maxRssMb: number | null;
  /** Throughput relative to the bare app. */
  ratio: number;
  p99Ratio: number;
}

export interface IntakeResult {
  payloadBytes: number;
  count: number;
  warmup: number;
  connections: number;
  targets: IntakeTarget[];
}

const Example = z.object({ action: z.string().optional() }).loose();
const Examples = z.array(z.object({ name: z.string(), examples: z.array(Example) }));

/** The pull_request.opened example nearest 24 KB, serialised compactly. */
export function loadPayload(): string {
  const require = createRequire(import.meta.url);
  const all = Examples.parse(require('@octokit/webhooks-examples/api.github.com/index.json'));
  const opened = all.find((e) => e.name === 'pull_request')?.examples.filter((e) => e.action === 'opened') ?? [];
  const bodies = opened
    .map((e) => JSON.stringify(e))
    .sort((a, b) => Math.abs(a.length - 24_000) - Math.abs(b.length - 24_000));
  if (!bodies[0]) throw new Error('@octokit/webhooks-examples has no pull_request.opened example');
  return bodies[0];
}

const Ready = z.object({ port: z.number().int().positive() });
const Stopped = z.object({ maxRssKb: z.number(), recorded: z.number().nullable() });

async function measure(mode: 'bare' | 'arbiter', env: Record<string, string>, body: string, o: IntakeOptions) {
  const child = startChild('intake-server.ts', [mode], env, 240_000);
  try {
    const ready = Ready.parse(await child.ready);
    const base = {
      port: ready.port,
      path: '/api/github/webhooks',
      event: 'pull_request',
      body,
      secret: BENCH_SECRET,
      connections: o.connections,
    };
    const warm = await sendLoad({ ...base, count: o.warmup, maxSeconds: o.maxSeconds / 4 });
    const load = await sendLoad({ ...base, count: o.count, maxSeconds: o.maxSeconds });
    await child.stop();
    const { last } = await child.exited;
    const stopped = Stopped.safeParse(last);
    return {
      load,
      answered: warm.ok + load.ok,
      recorded: stopped.success ? stopped.data.recorded : null,
      maxRssMb: stopped.success ? stopped.data.maxRssKb / 1024 : null,
    };
  } finally {
    await child.stop();
  }
}

export async function benchIntake(o: IntakeOptions, say: (line: string) => void): Promise<IntakeResult> {
  const body = loadPayload();
  const runs: Omit<IntakeTarget, 'ratio' | 'p99Ratio'>[] = [];
  say(`intake: bare Probot app, ${o.count} deliveries over ${o.connections} connections`);
  runs.push({ name: 'bare Probot (empty handler)', ...(await measure('bare', {}, body, o)) });
  say('intake: Arbiter on PGlite');
  runs.push({ name: 'Arbiter, PGlite', ...(await measure('arbiter', {}, body, o)) });
  if (o.databaseUrl) {
    say('intake: Arbiter on PostgreSQL');
    const db = await createTempDatabase(o.databaseUrl);
    try {
      runs.push({
        name: 'Arbiter, PostgreSQL',
        ...(await measure('arbiter', { BENCH_DATABASE_URL: db.url }, body, o)),
      });
    } finally {
      await db.drop().catch(() => undefined);
    }
  }
  const bare = runs[0].load;
  return {
    payloadBytes: Buffer.byteLength(body),
    count: o.count,
    warmup: o.warmup,
    connections: o.connections,
    targets: runs.map((r) => ({ ...r, ratio: r.load.perSecond / bare.perSecond, p99Ratio: r.load.p99Ms / bare.p99Ms })),
  };
}
