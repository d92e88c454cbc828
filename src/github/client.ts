// The one GitHub client Arbiter runs with: `npm start`, the scenario runner, the bench and the
// tests build it here. Probot's Octokit, the request meter, Octokit's retry plugin off (the
// executor retries idempotently; a blind retry of a POST whose answer was lost would duplicate a
// comment), and Arbiter's own policy for @octokit/plugin-throttling:
// - paced per installation (the plugin's `id`): two installations never share a queue;
// - every write and every GraphQL call of an installation from one token bucket, under GitHub's
//   REST secondary limit (900 points a minute, 5 points a write: 180 a minute);
// - content-creating writes (the plugin's routes that notify people: comments, issues, pull
//   requests, merges, reviews, review requests) under 80 in any minute and 500 in any hour;
// - a rate-limit answer is never slept on: both handlers return false, so GitHub's answer reaches
//   the job, which defers itself to the reset on the app's clock (src/github/rate-limit.ts).
// The buckets run on real time (Bottleneck's timers). The scenario runner shortens them with
// `pacing(scale)`, the same policy on compressed time; the bench runs them unchanged.
import Bottleneck from 'bottleneck';
import { ProbotOctokit } from 'probot';
import { countPacingWait } from '../metrics.ts';
import { requestMeter } from './request-meter.ts';

/** A token bucket: `burst` requests at once, then one more every `refillMs`. */
export interface Bucket {
  burst: number;
  refillMs: number;
}

export interface Pacing {
  /** Every write and GraphQL call of one installation. */
  writes: Bucket;
  /** Content-creating writes of one installation, through both buckets. */
  contentMinute: Bucket;
  contentHour: Bucket;
}

/** GitHub's secondary limits (docs: "About secondary rate limits"), per installation. */
export const GITHUB_SECONDARY_LIMITS = {
  /** 900 REST points a minute, a write costing 5. */
  writesPerMinute: 180,
  contentPerMinute: 80,
  contentPerHour: 500,
} as const;

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/**
 * The bucket of `burst` whose refill never lets more than `limit` requests start in any window of
 * `windowMs`: a token is added at most once per `refillMs`, so a window holds at most
 * `burst + floor(windowMs / refillMs) + 1` starts.
 */
export function bucketUnder(limit: number, windowMs: number, burst: number): Bucket {
  if (!(burst >= 1 && burst < limit - 1)) throw new Error(`a burst of ${burst} leaves no room under ${limit}`);
  return { burst, refillMs: Math.ceil(windowMs / (limit - burst - 1)) };
}

/** The most requests `bucket` lets start within any window of `windowMs`. */
export const mostInWindow = (bucket: Bucket, windowMs: number): number =>
  bucket.burst + Math.floor(windowMs / bucket.refillMs) + 1;

/**
 * Arbiter's pacing. `scale` < 1 compresses time (the scenario runner, whose clock is virtual):
 * the same buckets with every interval multiplied by `scale`.
 */
export function pacing(scale = 1): Pacing {
  if (!(scale > 0 && scale <= 1)) throw new Error(`pacing scale must be in (0, 1], not ${scale}`);
  const L = GITHUB_SECONDARY_LIMITS;
  const scaled = (b: Bucket): Bucket => ({ burst: b.burst, refillMs: Math.max(1, Math.ceil(b.refillMs * scale)) });
  return {
    writes: scaled(bucketUnder(L.writesPerMinute, MINUTE_MS, 30)),
    contentMinute: scaled(bucketUnder(L.contentPerMinute, MINUTE_MS, 20)),
    // 420 at once (still at most 59 a minute), then one every 46 s: never 500 within an hour.
    contentHour: scaled(bucketUnder(L.contentPerHour, HOUR_MS, 420)),
  };
}

/** A Bottleneck group of one bucket per key (installation). */
function bucketGroup(b: Bucket): Bottleneck.Group {
  return new Bottleneck.Group({
    reservoir: b.burst,
    reservoirIncreaseAmount: 1,
    reservoirIncreaseInterval: b.refillMs,
    reservoirIncreaseMaximum: b.burst,
    // Bottleneck adds a token on a heartbeat once `refillMs` has passed: a beat a quarter of the
    // refill (at most a second) keeps the refill within 25 % of nominal without a timer firing
    // every 250 ms for each installation's slow hourly bucket.
    heartbeatInterval: Math.min(1000, Math.max(1, Math.ceil(b.refillMs / 4))),
    // A key idle this long has refilled anyway; dropping it earlier would reset its count.
    timeout: b.burst * b.refillMs + HOUR_MS,
  } as Bottleneck.ConstructorOptions);
}

/** The shape of the plugin's groups it calls: `group.key(id).schedule(options, fn)`. */
interface Scheduler {
  key(id: string): { schedule<R>(options: Bottleneck.JobOptions, fn: () => PromiseLike<R>): Promise<R> };
}

/** Both content buckets of a key, one after the other. */
function bothGroups(first: Bottleneck.Group, second: Bottleneck.Group): Scheduler {
  return {
    key: (id) => ({
      schedule: async (options, fn) => {
        await first.key(id).schedule(options, async () => undefined);
        return second.key(id).schedule(options, fn);
      },
    }),
  };
}

/**
 * A scheduler that reports how long each request waited for its key's bucket
 * (`arbiter_github_pacing_wait_seconds_total{installation, bucket}`): an installation's wait is
 * its own bucket's, and the metric shows whether one ever waited at all.
 */
function metered(bucket: 'writes' | 'content', inner: Scheduler): Scheduler {
  return {
    key: (id) => ({
      schedule: (options, fn) => {
        const queuedAt = process.hrtime.bigint();
        return inner.key(id).schedule(options, () => {
          countPacingWait(id, bucket, Number(process.hrtime.bigint() - queuedAt) / 1e9);
          return fn();
        });
      },
    }),
  };
}

/** The installation a client acts as (`auth.installationId`), or `app` for the app's own JWT client. */
function throttleIdOf(options: Record<string, unknown>): string {
  const auth = options['auth'];
  const id = typeof auth === 'object' && auth !== null ? Reflect.get(auth, 'installationId') : undefined;
  return typeof id === 'number' || typeof id === 'string' ? `installation-${id}` : 'app';
}

interface LimitHandlerOptions {
  method?: string;
  url?: string;
}
interface LoggingOctokit {
  log: { debug(obj: object, msg: string): void };
}

/** Never sleeps: the error reaches the job, which defers itself (src/github/rate-limit.ts). */
const handOver =
  (kind: 'primary' | 'secondary') =>
  (retryAfter: number, options: LimitHandlerOptions, octokit: LoggingOctokit): false => {
    octokit.log.debug(
      { kind, retryAfter, request: `${options.method} ${options.url}` },
      'GitHub rate limit: handed to the job, not slept on',
    );
    return false;
  };

/**
 * The Octokit class Arbiter runs with, paced by `p` (default: production's `pacing()`). Every call
 * builds its own buckets: one class per process (or per test) shares them across its clients.
 */
export function arbiterOctokit(p: Pacing = pacing()): typeof ProbotOctokit {
  const write = metered('writes', bucketGroup(p.writes));
  const notifications = metered('content', bothGroups(bucketGroup(p.contentMinute), bucketGroup(p.contentHour)));
  return ProbotOctokit.plugin(requestMeter).defaults((o: Record<string, unknown>) => ({
    ...o,
    retry: { enabled: false },
    throttle: {
      ...Object(o['throttle']),
      enabled: true,
      id: throttleIdOf(o),
      write,
      notifications,
      onRateLimit: handOver('primary'),
      onSecondaryRateLimit: handOver('secondary'),
    },
  }));
}
