// GET /metrics: served only with its token, only to that bearer token, and the Prometheus text of
// every counter Arbiter keeps (webhooks, jobs, decisions, GitHub requests and rate limit, model
// calls and tokens, settle-to-decision seconds), parsed line by line.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvError, readEnv } from '../../src/env.ts';
import { rateBudgets } from '../../src/github/rate-budget.ts';
import { routeOf } from '../../src/github/request-meter.ts';
import {
  countDecision,
  countGithubRequest,
  countModelCall,
  countWebhook,
  metricsHandler,
  type MetricsOptions,
} from '../../src/metrics.ts';

const TOKEN = 'metrics-test-token-0123';
const AUTH = { authorization: `Bearer ${TOKEN}` };

const servers: http.Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function serve(opts: MetricsOptions): Promise<string> {
  const handle = metricsHandler(opts);
  const server = http.createServer(async (req, res) => {
    if (!(await handle(req, res))) res.writeHead(404).end('not found');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/metrics`;
}

/** `name{labels} value` lines of the exposition, as a map (comments dropped). */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_:][a-z0-9_:]*(?:\{.*\})?) (\S+)$/i.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

describe('GET /metrics', () => {
  let open = '';
  beforeAll(async () => {
    open = await serve({ token: TOKEN, counts: async () => ({ queued: 3, active: 1, deferred: 0 }) });
  });

  it('is not served without a token (the webhook port is public)', async () => {
    const url = await serve({ token: undefined });
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(url, { headers: AUTH })).status).toBe(404);
  });

  it('ARBITER_METRICS=1 without ARBITER_METRICS_TOKEN is refused at start, with the reason', () => {
    expect(() => readEnv({ ARBITER_METRICS: '1' })).toThrow(EnvError);
    expect(() => readEnv({ ARBITER_METRICS: '1' })).toThrow(/ARBITER_METRICS_TOKEN/);
    expect(readEnv({ ARBITER_METRICS: '1', ARBITER_METRICS_TOKEN: TOKEN }).ARBITER_METRICS_TOKEN).toBe(TOKEN);
  });

  it('needs the bearer token', async () => {
    const url = await serve({ token: 'a-long-enough-secret' });
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer wrong-secret-of-size' } })).status).toBe(401);
    const ok = await fetch(url, { headers: { authorization: 'Bearer a-long-enough-secret' } });
    expect(ok.status).toBe(200);
  });

  it('answers with every counter in the Prometheus text format', async () => {
    countWebhook('pull_request', 'd-1');
    countWebhook('pull_request', 'd-2');
    countDecision('ship', 'd-2');
    countDecision('human', null);
    countGithubRequest('GET /repos/{owner}/{repo}/pulls/{pull_number}', 200);
    countGithubRequest('POST /graphql', 502);
    rateBudgets.record(42, {
      'x-ratelimit-remaining': '4321',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-reset': '1900000000',
    });
    countModelCall('small', 'ok', { input: 1200, output: 80 });
    countModelCall('large', 'timeout');
    const res = await fetch(open, { headers: AUTH });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const s = samples(await res.text());
    expect(s.get('arbiter_webhooks_received_total{event="pull_request"}')).toBe(2);
    expect(s.get('arbiter_jobs{state="queued"}')).toBe(3);
    expect(s.get('arbiter_jobs{state="active"}')).toBe(1);
    expect(s.get('arbiter_decisions_total{verdict="ship"}')).toBe(1);
    expect(s.get('arbiter_decisions_total{verdict="human"}')).toBe(1);
    // Only the decision whose settling delivery is known is timed.
    expect(s.get('arbiter_settle_to_decision_seconds_count')).toBe(1);
    expect(
      s.get('arbiter_github_requests_total{route="GET /repos/{owner}/{repo}/pulls/{pull_number}",status="200"}'),
    ).toBe(1);
    expect(s.get('arbiter_github_requests_total{route="POST /graphql",status="502"}')).toBe(1);
    expect(s.get('arbiter_github_rate_limit_remaining{installation="42",resource="core"}')).toBe(4321);
    expect(s.get('arbiter_model_calls_total{tier="small",outcome="ok"}')).toBe(1);
    expect(s.get('arbiter_model_calls_total{tier="large",outcome="timeout"}')).toBe(1);
    expect(s.get('arbiter_model_tokens_total{tier="small",direction="input"}')).toBe(1200);
    expect(s.get('arbiter_model_tokens_total{tier="small",direction="output"}')).toBe(80);
    expect(s.get('arbiter_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('answers only GET', async () => {
    expect((await fetch(open, { method: 'POST', headers: AUTH })).status).toBe(405);
  });
});

describe('routeOf', () => {
  it.each([
    ['get', '/repos/{owner}/{repo}/pulls', 'GET /repos/{owner}/{repo}/pulls'],
    ['GET', 'https://api.github.com/repositories/123/pulls?page=2', 'GET /repositories/{n}/pulls'],
    [
      'GET',
      'http://ghe.local/api/v3/repositories/9/issues/4/comments?page=3',
      'GET /repositories/{n}/issues/{n}/comments',
    ],
    ['POST', 'http://ghe.local/api/graphql', 'POST /graphql'],
  ])('%s %s is %s', (method, url, route) => {
    expect(routeOf(method, url)).toBe(route);
  });
});

describe('rate budgets', () => {
  it('is low below a tenth of the limit, until the window resets', () => {
    rateBudgets.record(7, { 'x-ratelimit-remaining': '499', 'x-ratelimit-limit': '5000', 'x-ratelimit-reset': '2000' });
    expect(rateBudgets.isLow(7, 1_999_000)).toBe(true);
    expect(rateBudgets.isLow(7, 2_000_000)).toBe(false);
    rateBudgets.record(7, { 'x-ratelimit-remaining': '500', 'x-ratelimit-limit': '5000', 'x-ratelimit-reset': '2000' });
    expect(rateBudgets.isLow(7, 1_999_000)).toBe(false);
    expect(rateBudgets.isLow(8, 0)).toBe(false);
  });

  it('keeps REST (core) and GraphQL apart (x-ratelimit-resource): a GraphQL answer does not overwrite REST', () => {
    const at = (remaining: string, resource?: string) => ({
      'x-ratelimit-remaining': remaining,
      'x-ratelimit-limit': '5000',
      'x-ratelimit-reset': '2000',
      ...(resource ? { 'x-ratelimit-resource': resource } : {}),
    });
    rateBudgets.record(9, at('100', 'graphql'));
    rateBudgets.record(9, at('4900', 'core'));
    expect(rateBudgets.get(9, 'graphql')?.remaining).toBe(100);
    expect(rateBudgets.get(9, 'core')?.remaining).toBe(4900);
    // The installation is low (GraphQL is), and its scarcest budget is GraphQL's.
    expect(rateBudgets.isLow(9, 1_000_000)).toBe(true);
    expect(rateBudgets.isLow(9, 1_000_000, 'core')).toBe(false);
    expect(rateBudgets.get(9)?.resource).toBe('graphql');
    // An answer without the header is REST's.
    rateBudgets.record(10, at('42'));
    expect(rateBudgets.get(10, 'core')?.remaining).toBe(42);
  });
});
