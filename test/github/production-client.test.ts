// The one client (src/github/client.ts), as `npm start` builds it, against a scripted local
// GitHub: a secondary rate limit (403, retry-after: 60) and a primary one (x-ratelimit-remaining:
// 0) reach the delivery job at once (one request, no sleep, no retry inside the job), which defers
// the delivery on the app's clock; the work lands after the wait; another installation neither
// waits for the block nor for the first one's pacing queue. And the pacing stays under GitHub's
// secondary limits.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { Deps, Octokit } from '../../src/deps.ts';
import { arbiterOctokit, GITHUB_SECONDARY_LIMITS, mostInWindow, pacing, type Pacing } from '../../src/github/client.ts';
import { GitHubError } from '../../src/github/errors.ts';
import { GitHubGateway } from '../../src/github/gateway.ts';
import { deliveryJob } from '../../src/jobs/delivery-job.ts';
import type { JobContext } from '../../src/jobs/queue-types.ts';
import { InstallationBlocks } from '../../src/github/rate-limit.ts';
import type { Store } from '../../src/store/types.ts';
import { silentLog } from '../jobs/test-deps.ts';

const START = Date.parse('2026-01-01T00:00:00Z');
const SECONDARY = {
  message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
  documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
};

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
/** What each installation (told apart by its token) is answered, in order; then 201. */
type Script = Record<string, Answer[]>;

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

const tokenOf = (req: IncomingMessage): string => (req.headers.authorization ?? '').replace(/^(token|bearer) /i, '');

/** A local GitHub answering each installation from its script; every request is recorded by token. */
async function scriptedGitHub(script: Script, opts: { hold?: (token: string) => boolean } = {}) {
  const seen: string[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const token = tokenOf(req);
      seen.push(`${token} ${req.method} ${req.url}`);
      if (opts.hold?.(token)) return; // never answered: a request still on the wire
      const a = script[token]?.shift() ?? { status: 201, body: { id: seen.length, body: 'ok' } };
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** Installation clients of one production Octokit class, as Probot builds them (auth with installationId). */
function clients(baseUrl: string, p: Pacing = pacing()) {
  const Octokit = arbiterOctokit(p);
  const made = new Map<number, Octokit>();
  return (installationId: number): Octokit => {
    const known = made.get(installationId);
    if (known) return known;
    const octokit = new Octokit({ auth: { token: `inst-${installationId}`, installationId }, baseUrl });
    made.set(installationId, octokit);
    return octokit;
  };
}

const jobOf = (id: string): JobContext => ({
  id: `job-${id}`,
  name: 'delivery',
  data: { id },
  retryCount: 0,
  retryLimit: 3,
  final: false,
  log: silentLog,
});

/** A delivery job over the production client: each delivery comments once on acme/todo#1 as its installation. */
function world(
  baseUrl: string,
  act: (gh: GitHubGateway, id: string) => Promise<unknown> = (gh, id) =>
    gh.upsertComment(1, `<!-- ${id} -->`, `from ${id}`, []),
) {
  const clock = new ManualClock(START);
  const deliveries = new Map<string, { id: string; event: string; payload: unknown; doneAt: string | null }>();
  const store = {
    getDelivery: async (id: string) => deliveries.get(id) ?? null,
    markDeliveryDone: async (id: string) => {
      const d = deliveries.get(id);
      if (d) d.doneAt = clock.now().toISOString();
    },
  } as unknown as Store;
  const octokitFor = clients(baseUrl);
  const deps = {
    store,
    clock,
    log: silentLog,
    octokitFor: async (id: number) => octokitFor(id),
    appSlug: 'arbiter',
  } as unknown as Deps;
  const deferred: { id: string; until: number }[] = [];
  const job = deliveryJob(
    deps,
    async (d, delivery) => {
      const installation = (delivery.payload as { installation: { id: number } }).installation.id;
      const gh = new GitHubGateway(await d.octokitFor(installation), 'acme', 'todo', 'arbiter', clock);
      await act(gh, delivery.id);
    },
    {
      blocks: new InstallationBlocks(),
      defer: async (id, until) => void deferred.push({ id, until: until.getTime() }),
    },
  );
  const record = (id: string, installation: number) =>
    deliveries.set(id, { id, event: 'issues', payload: { installation: { id: installation } }, doneAt: null });
  const done = (id: string) => deliveries.get(id)?.doneAt != null;
  return { clock, job, deferred, record, done };
}

const comments = (seen: string[], token: string) =>
  seen.filter((s) => s === `${token} POST /repos/acme/todo/issues/1/comments`).length;

describe('the production client: a rate-limit answer is deferred on the app clock, never slept on', () => {
  const cases: { name: string; answer: (now: number) => Answer; wait: number }[] = [
    {
      name: 'secondary (403, retry-after: 60)',
      answer: () => ({ status: 403, body: SECONDARY, headers: { 'retry-after': '60' } }),
      wait: 60,
    },
    {
      name: 'primary (x-ratelimit-remaining: 0, reset 100 s after the answer)',
      answer: (now) => ({
        status: 403,
        body: { message: 'API rate limit exceeded for installation ID 1.' },
        headers: {
          'x-ratelimit-limit': '5000',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-used': '5000',
          'x-ratelimit-resource': 'core',
          'x-ratelimit-reset': String(Math.floor(now / 1000) + 100),
          date: new Date(now).toUTCString(),
        },
      }),
      wait: 100,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: one request, the delivery deferred by ${c.wait} s, the other installation unaffected`, async () => {
      const now = Date.now();
      const { baseUrl, seen } = await scriptedGitHub({ 'inst-1': [c.answer(now)] });
      const w = world(baseUrl);
      w.record('a-1', 1);
      w.record('b-1', 2);
      w.record('a-2', 1);
      // The job returns with the answer (a sleep inside it would outlast the test's timeout).
      await w.job.handler(jobOf('a-1'));
      expect(comments(seen, 'inst-1')).toBe(1);
      expect(w.done('a-1')).toBe(false);
      expect(w.deferred).toEqual([{ id: 'a-1', until: START + c.wait * 1000 }]);
      // Installation 2 does not wait for installation 1's block.
      await w.job.handler(jobOf('b-1'));
      expect(w.done('b-1')).toBe(true);
      expect(comments(seen, 'inst-2')).toBe(1);
      // Installation 1's other delivery waits for the same end without a request.
      w.clock.advance((c.wait - 1) * 1000);
      await w.job.handler(jobOf('a-2'));
      expect(comments(seen, 'inst-1')).toBe(1);
      expect(w.deferred.map((d) => d.id)).toEqual(['a-1', 'a-2']);
      expect(new Set(w.deferred.map((d) => d.until))).toEqual(new Set([START + c.wait * 1000]));
      // After the wait on the app's clock, the deferred jobs run and the comments land, once each.
      w.clock.set(START + c.wait * 1000);
      await w.job.handler(jobOf('a-1'));
      await w.job.handler(jobOf('a-2'));
      expect(w.done('a-1') && w.done('a-2')).toBe(true);
      expect(comments(seen, 'inst-1')).toBe(3); // the refused one and the two that landed
      expect(seen.every((s) => s.endsWith('/comments'))).toBe(true);
    });
  }
});

describe('a GraphQL rate limit (HTTP 200, errors of type RATE_LIMITED)', () => {
  it("is a rate limit, not a refusal: GitHub's whole message kept, the delivery deferred until the reset", async () => {
    const now = Date.now();
    const limited = {
      status: 200,
      body: {
        data: null,
        errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for installation ID 1.' }],
      },
      headers: {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-resource': 'graphql',
        'x-ratelimit-reset': String(Math.floor(now / 1000) + 100),
        date: new Date(now).toUTCString(),
      },
    };
    const { baseUrl, seen } = await scriptedGitHub({ 'inst-1': [limited, limited] });
    // The error as the gateway hands it to a workflow: a transient rate limit with GitHub's words.
    const direct = new GitHubGateway(clients(baseUrl)(1), 'acme', 'todo', 'arbiter', new ManualClock(START));
    const error: unknown = await direct.readGroup([7]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({ rateLimited: true, transient: true, retryAfter: 100 });
    expect((error as GitHubError).githubWords).toBe('API rate limit exceeded for installation ID 1.');
    expect((error as GitHubError).message).toContain('RATE_LIMITED');
    // Through the delivery job: one request, deferred on the app's clock, never slept on.
    const w = world(baseUrl, (gh) => gh.readGroup([7]));
    w.record('g-1', 1);
    await w.job.handler(jobOf('g-1'));
    expect(w.done('g-1')).toBe(false);
    expect(w.deferred).toEqual([{ id: 'g-1', until: START + 100_000 }]);
    expect(seen.filter((s) => s.endsWith('POST /graphql'))).toHaveLength(2);
  });
});

describe('pacing', () => {
  it("production's buckets stay under GitHub's secondary limits in any window", () => {
    const p = pacing();
    const L = GITHUB_SECONDARY_LIMITS;
    expect(mostInWindow(p.writes, 60_000)).toBeLessThanOrEqual(L.writesPerMinute);
    // A content-creating write passes both content buckets.
    expect(mostInWindow(p.contentMinute, 60_000)).toBeLessThanOrEqual(L.contentPerMinute);
    expect(mostInWindow(p.contentHour, 3_600_000)).toBeLessThanOrEqual(L.contentPerHour);
    // And lets work through in bursts: 5 GraphQL reads and 3 comments start together.
    expect(p.writes.burst).toBeGreaterThanOrEqual(8);
    expect(p.contentMinute.burst).toBeGreaterThanOrEqual(3);
    // The runner's compressed pacing is the same policy on a shorter clock.
    const fast = pacing(0.01);
    expect(mostInWindow(fast.contentMinute, 600)).toBeLessThanOrEqual(L.contentPerMinute);
    expect(mostInWindow(fast.writes, 600)).toBeLessThanOrEqual(L.writesPerMinute);
    expect(() => pacing(0)).toThrow(/scale/);
  });

  it('paces per installation: one whose content bucket is empty holds only its own content writes', async () => {
    // Production's shape with a content bucket of 2 that never refills within the test.
    const p: Pacing = { ...pacing(), contentMinute: { burst: 2, refillMs: 3_600_000 } };
    const { baseUrl, seen } = await scriptedGitHub({});
    const client = clients(baseUrl, p);
    const gh = (i: number) => new GitHubGateway(client(i), 'acme', 'todo', 'arbiter', new ManualClock(START));
    const comment = (i: number, text: string) => gh(i).upsertComment(1, `<!-- ${text} -->`, text, []);
    await comment(1, 'one');
    await comment(1, 'two');
    let third = false;
    const held = comment(1, 'three').then(() => (third = true));
    // Installation 2's comment and installation 1's reads go through meanwhile.
    await comment(2, 'other installation');
    await client(1).request('GET /repos/{owner}/{repo}/issues/{issue_number}', {
      owner: 'acme',
      repo: 'todo',
      issue_number: 1,
    });
    expect(third).toBe(false);
    expect(comments(seen, 'inst-1')).toBe(2);
    expect(comments(seen, 'inst-2')).toBe(1);
    expect(seen).toContain('inst-1 GET /repos/acme/todo/issues/1');
    void held;
  });
});
