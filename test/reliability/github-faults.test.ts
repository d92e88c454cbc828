// Reliability item 4: GitHub answering 500, 502, 503, 403 with retry-after (secondary rate limit),
// 409 on the merge and 422 on an annotation batch. Retried or recorded, never reported as done when
// it was not. Fast: the real gateway and executor retry against a scripted local server. Full app:
// the reliability base with faults on its writes, and with a 409 on its merge.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { GitHubError } from '../../src/github/errors.ts';
import { systemClock } from '../../src/clock.ts';
import { GitHubGateway } from '../../src/github/gateway.ts';
import type { RepoContext } from '../../src/workflows/context.ts';
import { withRetry } from '../../src/workflows/execute.ts';
import { applied, duplicateWrites, loadReliability, MERGE, play, SELECTION, SLOW, withFaults } from './helpers.ts';
import { arbiterOctokit } from '../../src/github/client.ts';

const SECONDARY = {
  message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
  documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
};

// ---- a scripted local GitHub: answers each request from a queue, records what it was sent

interface Scripted {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
interface Seen {
  method: string;
  path: string;
  body: unknown;
}

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

async function scriptedGitHub(answers: Scripted[]): Promise<{ gh: GitHubGateway; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', path: req.url ?? '', body: text ? JSON.parse(text) : null });
      const a = answers.shift() ?? { status: 500, body: { message: 'unscripted request' } };
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const Octokit = arbiterOctokit();
  const octokit = new Octokit({ auth: { token: 'test-token' }, baseUrl: `http://127.0.0.1:${port}` });
  return { gh: new GitHubGateway(octokit, 'acme', 'todo', 'arbiter', systemClock), seen };
}

/** withRetry only logs through the context; the rest of a RepoContext is not read. */
const retryCtx = { log: pino({ level: 'silent' }) } as unknown as RepoContext;

describe('GitHub errors at the gateway and executor (scripted local server)', () => {
  const transient: { name: string; answer: Scripted }[] = [
    { name: '500', answer: { status: 500, body: { message: 'Server Error' } } },
    { name: '502', answer: { status: 502, body: { message: 'Bad Gateway' } } },
    { name: '503', answer: { status: 503, body: { message: 'Service Unavailable' } } },
  ];
  for (const { name, answer } of transient) {
    it(`${name}: retried, and the label is added once it is answered`, async () => {
      const { gh, seen } = await scriptedGitHub([answer, { status: 200, body: [{ name: 'arbiter:lost' }] }]);
      await withRetry(retryCtx, 'label', () => gh.addLabels(12, ['arbiter:lost']));
      expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([
        'POST /repos/acme/todo/issues/12/labels',
        'POST /repos/acme/todo/issues/12/labels',
      ]);
    });
  }

  it('a rate limit is not slept on inside the job: it propagates with its wait, for the job to defer', async () => {
    const limits: Scripted[] = [
      { status: 403, body: SECONDARY, headers: { 'retry-after': '60' } },
      { status: 429, body: { message: 'Too many requests' }, headers: { 'retry-after': '7' } },
      {
        status: 403,
        body: { message: 'API rate limit exceeded' },
        headers: {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': '1767225700',
          date: new Date(1767225600_000).toUTCString(),
        },
      },
    ];
    const waits: (number | null)[] = [];
    for (const answer of limits) {
      const { gh, seen } = await scriptedGitHub([answer]);
      const error = await withRetry(retryCtx, 'label', () => gh.addLabels(12, ['arbiter:lost'])).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(GitHubError);
      expect((error as GitHubError).rateLimited).toBe(true);
      expect(seen).toHaveLength(1);
      waits.push((error as GitHubError).retryAfter);
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = null;
    }
    // retry-after as given (no 10 s cap); the primary limit counted from the answer's own Date.
    expect(waits).toEqual([60, 7, 100]);
  });

  it('a 403 that is no rate limit (no retry-after, no "secondary rate limit") is not retried', async () => {
    const { gh, seen } = await scriptedGitHub([
      { status: 403, body: { message: 'Resource not accessible by integration' } },
    ]);
    const error = await withRetry(retryCtx, 'label', () => gh.addLabels(12, ['arbiter:lost'])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect((error as GitHubError).transient).toBe(false);
    expect(seen).toHaveLength(1);
  });

  it('the secondary limit is recognised from the message alone, with a wait', async () => {
    const { gh } = await scriptedGitHub([{ status: 403, body: SECONDARY }]);
    const error = await gh.addLabels(12, ['arbiter:lost']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect((error as GitHubError).transient).toBe(true);
    expect((error as GitHubError).retryAfter).toBeGreaterThan(0);
    expect((error as GitHubError).rateLimited).toBe(true);
  });

  it('422 on the second annotation batch: the check-run write fails (never reported done), not retried blindly', async () => {
    const annotations = Array.from({ length: 60 }, (_, i) => ({
      path: 'src/a.ts',
      start_line: i + 1,
      end_line: i + 1,
      annotation_level: 'notice' as const,
      title: `AC${i + 1} met`,
      message: 'met',
    }));
    const { gh, seen } = await scriptedGitHub([
      { status: 200, body: { id: 7 } },
      { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'CheckRun', code: 'invalid' }] } },
    ]);
    const error = await withRetry(retryCtx, 'check', () =>
      gh.writeCheckRun({
        id: 7,
        sha: 'a'.repeat(40),
        name: 'Arbiter / acceptance',
        status: 'completed',
        conclusion: 'success',
        title: '60 of 60 criteria met',
        summary: '…',
        annotations,
      }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect((error as GitHubError).status).toBe(422);
    const batches = seen.map((s) => (s.body as { output?: { annotations?: unknown[] } }).output?.annotations?.length);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'PATCH /repos/acme/todo/check-runs/7',
      'PATCH /repos/acme/todo/check-runs/7',
    ]);
    expect(batches).toEqual([50, 10]);
  });

  it('409 on the merge is an answer, not an error and not a merge', async () => {
    const { gh, seen } = await scriptedGitHub([
      { status: 409, body: { message: 'Head branch was modified. Review and try the merge again.' } },
    ]);
    const result = await gh.merge(13, 'c'.repeat(40), 'squash');
    expect(result).toMatchObject({ ok: false, status: 409 });
    expect(seen).toHaveLength(1);
  });
});

describe('GitHub errors in the full app (the reliability base)', () => {
  it(
    '500, 502 (a lost answer), 503 and a secondary rate limit: the same outcome, nothing written twice',
    SLOW,
    async () => {
      const base = await loadReliability('selection');
      const { t } = await play(
        withFaults(base, {
          github: [
            {
              route: 'POST /repos/{owner}/{repo}/check-runs',
              status: 403,
              times: 1,
              when: 'before',
              headers: { 'retry-after': '1' },
              body: SECONDARY,
            },
            {
              route: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
              status: 500,
              times: 1,
              when: 'before',
            },
            // A loser is closed and labelled in one write (`PATCH issues/{n}`): its answer is lost.
            { route: 'PATCH /repos/{owner}/{repo}/issues/{issue_number}', status: 502, times: 1, when: 'after' },
            { route: 'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', status: 503, times: 1, when: 'before' },
          ],
        }),
      );
      // Each fault was met once...
      expect(
        t.writes
          .filter((w) => w.status >= 400)
          .map((w) => w.status)
          .sort(),
      ).toEqual([403, 500, 502, 503]);
      // ...and the story ends as the undisturbed one does: #73 ships, #71 and #72 lose.
      expect(t.prs['73']).toMatchObject({ state: 'closed', merged: true });
      for (const loser of ['71', '72']) {
        expect(t.prs[loser]).toMatchObject({ state: 'closed', merged: false });
        expect(t.prs[loser].labels).toEqual(['arbiter:lost']);
        expect(t.prs[loser].checks[SELECTION].title ?? '').toContain('Lost to #73');
      }
      expect(t.issues['7'].comments.filter((c) => c.user === 'arbiter[bot]')).toHaveLength(1);
      // The close whose answer was lost (502 after applying it) is not sent again.
      const closes = t.writes.filter((w) => /^close #/.test(w.summary));
      expect(closes.filter((w) => w.status < 300 || w.status === 502)).toHaveLength(2);
      expect(duplicateWrites(t)).toEqual([]);
    },
  );

  it('409 on the merge: no merge reported, the PR not merged, a new round merges it once', SLOW, async () => {
    const base = await loadReliability('selection');
    const { t } = await play(
      withFaults(base, { github: [{ route: `PUT ${MERGE}`, status: 409, times: 1, when: 'before' }] }),
    );
    const merges = t.writes.filter((w) => w.route === MERGE);
    expect(merges.map((w) => w.status)).toEqual([409, 200]);
    // Right after the 409, #73's selection check says the head moved; nothing says it shipped.
    const after409 = t.writes.filter((w) => w.seq > merges[0].seq && w.seq < merges[1].seq);
    const selection73 = after409.filter((w) => w.summary.startsWith(`check-run ${SELECTION} on #73`));
    expect(selection73[0]?.summary).toMatch(/completed neutral$/);
    expect(after409.filter((w) => /^close #/.test(w.summary))).toEqual([]);
    expect(t.prs['73']).toMatchObject({ state: 'closed', merged: true });
    expect(applied(t).filter((w) => w.route === MERGE)).toHaveLength(1);
    expect(duplicateWrites(t)).toEqual([]);
  });
});
