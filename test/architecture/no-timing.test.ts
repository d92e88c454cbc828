// Tests assert behaviour, never how fast the machine is: no test measures a duration to compare it with a
// number. Only the files below read the wall clock, each for a reason that is not a measurement.
// And the app decides on the one injected clock (src/clock.ts): src/ reads the wall clock or a
// stopwatch only in the places listed, none of which decides what Arbiter does on its own time.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const src = fileURLToPath(new URL('../../src/', import.meta.url));

/** Files that may read `Date.now()`, and why it is not a measurement there. */
const WALL_CLOCK_READERS: Record<string, string> = {
  'jobs/wait.ts': 'a deadline after which a wait gives up (a hang becomes a failure, not a duration check)',
  'reliability/two-apps.ts': 'a deadline after which a wait gives up',
  'workflows/request-count.test.ts':
    'moves the wall clock (fake timers) to show a group read ages on the app clock only',
  'scenarios/fixtures/stand-in-app.ts': "the issued-at time of a GitHub App's JWT",
  'sim-github/harness.ts': "the issued-at time of a GitHub App's JWT",
  'github/production-client.test.ts':
    "a rate-limit answer's `x-ratelimit-reset` and `date`, which the throttling plugin reads against the real clock",
  'support/global-setup.ts': 'none (it only starts services); listed so the rule below stays exact',
};

/** The places in src/ that read the wall clock or a stopwatch, and why that is not the app's time. */
const SRC_TIME_READERS: Record<string, string> = {
  'clock.ts': 'the system clock itself: the Clock production injects',
  'github/errors.ts':
    "a rate limit's `x-ratelimit-reset` is GitHub's epoch time: without the answer's Date header, the host's real clock is the nearest",
  'github/client.ts': 'a stopwatch for the pacing-wait metric (a duration reported, not a decision)',
  'metrics.ts': 'a stopwatch for the delivery-to-decision metric (a duration reported, not a decision)',
};

/** A read of the wall clock (`Date.now()`, a `new Date()` of now) or of a stopwatch. */
const READS_TIME = /\bDate\.now\(|new Date\(\s*\)|performance\.now\(|process\.hrtime/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === '__snapshots__' ? [] : files(full);
    return /\.(m?ts)$/.test(name) ? [full] : [];
  });
}

const MEASURES = /performance\.now\(|process\.hrtime|console\.time\(/;
const WALL_CLOCK = /\bDate\.now\(\)/;

describe('no test measures a duration', () => {
  const all = files(root).map((file) => ({ rel: path.relative(root, file).split(path.sep).join('/'), file }));

  it('uses no stopwatch (performance.now, process.hrtime, console.time) anywhere under test/', () => {
    const offenders = all.filter(
      ({ file, rel }) => rel !== 'architecture/no-timing.test.ts' && MEASURES.test(readFileSync(file, 'utf8')),
    );
    expect(offenders.map((o) => o.rel)).toEqual([]);
  });

  it('reads the wall clock only in the listed files, for a deadline or a token', () => {
    const readers = all
      .filter(
        ({ file, rel }) => rel !== 'architecture/no-timing.test.ts' && WALL_CLOCK.test(readFileSync(file, 'utf8')),
      )
      .map((o) => o.rel)
      .filter((rel) => !(rel in WALL_CLOCK_READERS));
    expect(readers).toEqual([]);
  });
});

describe('the app reads time from the injected clock', () => {
  it('reads the wall clock or a stopwatch in src/ only in the listed places', () => {
    const readers = files(src)
      .filter((file) => READS_TIME.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(src, file).split(path.sep).join('/'));
    expect(readers.sort()).toEqual(Object.keys(SRC_TIME_READERS).sort());
  });
});
