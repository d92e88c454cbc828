// GitHub's limits, in the emulator and at Arbiter's boundary: every answer carries the caller's
// rate limit (x-ratelimit-*, REST and GraphQL apart, falling, reset an hour on); a check run's
// summary or text over 65,535 bytes is refused (422) as GitHub refuses it, a comment over 65,536
// characters too; and Arbiter's production client cuts a 70,000-byte non-ASCII summary and a
// comment on a character boundary so that GitHub takes them, saying they were cut.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arbiterOctokit } from '../../src/github/client.ts';
import { systemClock } from '../../src/clock.ts';
import { GitHubGateway } from '../../src/github/gateway.ts';
import { CUT_NOTE, fitBytes, OUTPUT_BYTE_LIMIT, utf8Bytes } from '../../src/core/render/byte-limit.ts';
import { startHarness, type Harness } from './harness.ts';

const OWNER = 'acme';
const NAME = 'limits';
const REPO = `${OWNER}/${NAME}`;
let h: Harness;
let gh: GitHubGateway;
let sha = '';

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({ owner: OWNER, name: NAME, files: { 'a.ts': 'export {};\n' } });
  sha = h.emulator.commit(REPO, 'agent/one', { files: { 'b.ts': 'b\n' }, from: 'main' });
  await h.emulator.openPullRequest(REPO, { number: 2, head: 'agent/one', title: 'One', body: '', user: 'dev' });
  const { data } = await new (arbiterOctokit())({ auth: { token: h.jwt() }, baseUrl: h.emulator.url }).request(
    'POST /app/installations/{installation_id}/access_tokens',
    { installation_id: 1 },
  );
  const Octokit = arbiterOctokit();
  gh = new GitHubGateway(
    new Octokit({ auth: { token: data.token }, baseUrl: h.emulator.url }),
    OWNER,
    NAME,
    'arbiter',
    systemClock,
  );
});
afterAll(async () => h?.stop());

/** 70,002 bytes of text in 2-, 3- and 4-byte characters (9 bytes a repetition). */
const NON_ASCII = 'é中😀'.repeat(7_778);

describe('rate-limit headers on every answer', () => {
  it('REST (core) and GraphQL count apart; remaining falls; used + remaining = limit; reset an hour on (emulator clock)', async () => {
    const rest = async () =>
      (await h.octokit.request('GET /repos/{owner}/{repo}', { owner: OWNER, repo: NAME })).headers;
    const first = await rest();
    const second = await rest();
    expect(first['x-ratelimit-resource']).toBe('core');
    expect(Number(first['x-ratelimit-limit'])).toBe(5000);
    expect(Number(second['x-ratelimit-remaining'])).toBe(Number(first['x-ratelimit-remaining']) - 1);
    expect(Number(second['x-ratelimit-used']) + Number(second['x-ratelimit-remaining'])).toBe(5000);
    const reset = Number(second['x-ratelimit-reset']);
    expect(reset * 1000).toBeGreaterThan(h.clock.ms);
    expect(reset * 1000).toBeLessThanOrEqual(h.clock.ms + 3_600_000);
    // GitHub's Date is the clock the reset counts on: the emulator's.
    expect(Date.parse(String(second['date']))).toBe(Math.floor(h.clock.ms / 1000) * 1000);

    const graphql = await h.octokit.request('POST /graphql', { query: '{ viewer { login } }' });
    expect(graphql.headers['x-ratelimit-resource']).toBe('graphql');
    expect(Number(graphql.headers['x-ratelimit-used'])).toBe(1);
    // An error answer carries them too.
    const missing = await h.octokit
      .request('GET /repos/{owner}/{repo}', { owner: OWNER, repo: 'nothing-here' })
      .catch((e: { status: number; response: { headers: Record<string, string> } }) => e);
    expect('status' in missing && missing.status).toBe(404);
    expect(
      Number((missing as { response: { headers: Record<string, string> } }).response.headers['x-ratelimit-remaining']),
    ).toBe(Number(second['x-ratelimit-remaining']) - 1);
    // After the reset, a new window.
    const saved = h.clock.ms;
    h.clock.ms = reset * 1000 + 1;
    const after = await rest();
    expect(Number(after['x-ratelimit-used'])).toBe(1);
    h.clock.ms = saved;
  });
});

describe('output in bytes', () => {
  it('fitBytes cuts on a character boundary, says so, and leaves text that fits alone', () => {
    expect(fitBytes('short')).toBe('short');
    const cut = fitBytes(NON_ASCII);
    expect(utf8Bytes(NON_ASCII)).toBeGreaterThanOrEqual(70_000);
    expect(utf8Bytes(cut)).toBeLessThanOrEqual(OUTPUT_BYTE_LIMIT);
    expect(cut.endsWith(CUT_NOTE)).toBe(true);
    const kept = cut.slice(0, -CUT_NOTE.length);
    expect(NON_ASCII.startsWith(kept)).toBe(true); // a prefix, no character split (no U+FFFD)
    expect(kept).not.toContain('\uFFFD');
    // Within 4 bytes (one character) of the room left.
    expect(OUTPUT_BYTE_LIMIT - utf8Bytes(CUT_NOTE) - utf8Bytes(kept)).toBeLessThan(4);
  });

  it('the emulator refuses a summary over 65,535 bytes (422, as GitHub); one at the limit is taken', async () => {
    const over = await h.octokit
      .request('POST /repos/{owner}/{repo}/check-runs', {
        owner: OWNER,
        repo: NAME,
        name: 'raw',
        head_sha: sha,
        output: { title: 'raw', summary: NON_ASCII },
      })
      .catch((e: { status: number; message: string }) => e);
    expect('status' in over && over.status).toBe(422);
    expect((over as { message: string }).message).toContain('Only 65535 characters are allowed');
    const exact = 'é'.repeat(32_767) + 'a'; // 65,535 bytes in 32,768 characters
    const ok = await h.octokit.request('POST /repos/{owner}/{repo}/check-runs', {
      owner: OWNER,
      repo: NAME,
      name: 'raw',
      head_sha: sha,
      output: { title: 'raw', summary: exact },
    });
    expect(ok.status).toBe(201);
  });

  it("Arbiter's check run with a 70,000-byte non-ASCII summary and text is taken, cut within the limit", async () => {
    await gh.writeCheckRun({
      id: null,
      sha,
      name: 'Arbiter / acceptance',
      status: 'completed',
      conclusion: 'neutral',
      title: 'long',
      summary: NON_ASCII,
      text: NON_ASCII,
    });
    const run = h.emulator.checkRunDetail(REPO, 2, 'Arbiter / acceptance');
    for (const field of [run?.summary, run?.text]) {
      expect(field).toBeTruthy();
      expect(utf8Bytes(field!)).toBeLessThanOrEqual(OUTPUT_BYTE_LIMIT);
      expect(field!.endsWith(CUT_NOTE)).toBe(true);
      expect(NON_ASCII.startsWith(field!.slice(0, -CUT_NOTE.length))).toBe(true);
    }
  });

  it('a comment over the limit is refused by the emulator; Arbiter cuts it, keeping its marker', async () => {
    const long = 'ü'.repeat(70_000);
    const refused = await h.octokit
      .request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        owner: OWNER,
        repo: NAME,
        issue_number: 2,
        body: long,
      })
      .catch((e: { status: number }) => e);
    expect('status' in refused && refused.status).toBe(422);
    const { id } = await gh.upsertComment(2, 'limits-test', long, []);
    const { data } = await h.octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner: OWNER,
      repo: NAME,
      issue_number: 2,
    });
    const body = String(data.find((c) => c.id === id)?.body);
    expect(utf8Bytes(body)).toBeLessThanOrEqual(OUTPUT_BYTE_LIMIT);
    expect(body.endsWith(CUT_NOTE)).toBe(true);
    expect(body).toContain('arbiter:limits-test');
  });
});
