// Load generator for the intake benchmark: a bounded number of correctly signed deliveries of
// one payload, each with its own X-GitHub-Delivery id, over N keep-alive connections.
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';

export interface LoadOptions {
  port: number;
  path: string;
  event: string;
  body: string;
  secret: string;
  count: number;
  connections: number;
  /** Per-request limit; a request over it counts as failed. */
  requestTimeoutMs?: number;
  /** No new request starts after this many seconds (a slow target sends fewer than `count`). */
  maxSeconds?: number;
}

export interface LoadResult {
  /** Deliveries sent (less than asked when `maxSeconds` ran out). */
  count: number;
  asked: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export const signature = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The q-quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

function post(agent: http.Agent, o: LoadOptions, sig: string, payload: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: o.port,
        path: o.path,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': payload.length,
          'user-agent': 'GitHub-Hookshot/bench',
          'x-github-event': o.event,
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': sig,
        },
        timeout: o.requestTimeoutMs ?? 30_000,
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', () => resolve(0));
      },
    );
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', () => resolve(0));
    req.end(payload);
  });
}

export async function sendLoad(o: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections });
  const payload = Buffer.from(o.body, 'utf8');
  const sig = signature(o.secret, o.body);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + (o.maxSeconds ?? Infinity) * 1000;
  const loop = async () => {
    while (next < o.count && Date.now() < deadline) {
      next++;
      const t0 = process.hrtime.bigint();
      const status = await post(agent, o, sig, payload);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: o.connections }, loop));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const ok = Object.entries(statuses).reduce((n, [s, k]) => (Number(s) >= 200 && Number(s) < 300 ? n + k : n), 0);
  return {
    count: next,
    asked: o.count,
    ok,
    failed: next - ok,
    statuses,
    seconds,
    perSecond: next / seconds,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: latencies[latencies.length - 1] ?? NaN,
  };
}
