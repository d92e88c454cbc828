// `npm run soak -- --schedules N --replicas R [--parallel P] [--seed S] [--from F] [--database-url URL] [--fixture NAME]...`
// plays N schedules (seeds F … F+N-1; each seed picks a fixture and its faults) against R Arbiter
// processes on one PostgreSQL and prints each schedule, the invariants violated and the seeds
// that failed. `--seed S` replays one schedule.
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { bundledFixtures, runSoak } from './soak.ts';

const USAGE = `usage: npm run soak -- [--schedules N] [--replicas R] [--parallel P] [--seed S | --from F] [--fixture NAME]... [--database-url URL]
  --schedules N     schedules to play (default 20), seeds F, F+1, ...
  --replicas R      Arbiter processes on the one database (default 3, at least 2)
  --parallel P      schedules played at once, each on its own database (default 1)
  --from F          the first seed (default 1)
  --seed S          replay the one schedule of seed S
  --fixture NAME    only these fixtures/scenarios/NAME.yml (repeatable; the seed picks among them)
  --database-url    the PostgreSQL server (default $TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test);
                    each run gets its own database, dropped at its end`;

const positiveInt = (v: string | undefined, fallback: number): number => {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`expected a whole number of at least 1, not ${JSON.stringify(v)}`);
  return n;
};

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        schedules: { type: 'string' },
        replicas: { type: 'string' },
        parallel: { type: 'string' },
        seed: { type: 'string' },
        from: { type: 'string' },
        fixture: { type: 'string', multiple: true },
        'database-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  let seeds: number[];
  let replicas: number;
  let parallel: number;
  try {
    parallel = positiveInt(values.parallel, 1);
    replicas = positiveInt(values.replicas, 3);
    if (replicas < 2) throw new Error('--replicas: a soak across replicas needs at least 2');
    if (values.seed !== undefined) seeds = [positiveInt(values.seed, 1)];
    else {
      const from = positiveInt(values.from, 1);
      seeds = Array.from({ length: positiveInt(values.schedules, 20) }, (_, k) => from + k);
    }
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    return 2;
  }
  let fixtures = await bundledFixtures();
  if (values.fixture?.length) {
    const wanted = new Set(values.fixture.map((f) => basename(f, '.yml')));
    fixtures = fixtures.filter((f) => wanted.has(basename(f, '.yml')));
    const missing = [...wanted].filter((w) => !fixtures.some((f) => basename(f, '.yml') === w));
    if (missing.length) {
      console.error(`no such fixture in fixtures/scenarios: ${missing.join(', ')}`);
      return 2;
    }
  }
  const databaseUrl =
    values['database-url'] ?? process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
  console.log(
    `Soak: ${seeds.length} schedule(s), ${replicas} replicas on one PostgreSQL, ${parallel} at once, ${fixtures.length} fixture(s), seeds ${seeds[0]}..${seeds[seeds.length - 1]}`,
  );
  const started = Date.now();
  const report = await runSoak({ databaseUrl, replicas, seeds, fixtures, parallel, log: (l) => console.log(l) });
  const failed = report.schedules.filter((s) => s.violations.length > 0);
  const count = report.schedules.reduce((n, s) => n + s.violations.length, 0);
  console.log('');
  console.log(`Schedules run: ${report.schedules.length} in ${Math.round((Date.now() - started) / 1000)} s`);
  console.log(`Invariants violated: ${count}`);
  if (report.endsOpen.length)
    console.log(
      `Fixtures whose fault-free run leaves a Change open (that check compares with it): ${report.endsOpen.join(', ')}`,
    );
  for (const s of failed)
    console.log(
      `Failed: seed ${s.seed} (${s.fixture}); replay with npm run soak -- --seed ${s.seed} --replicas ${replicas}`,
    );
  return failed.length === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
