// The emulator refuses what GitHub refuses, and records it: bodies against the OpenAPI
// description, GraphQL documents against GitHub's schema, unknown routes, bad credentials,
// check-run limits (50 annotations per request, accumulated; 3 buttons) and dispatch limits.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settle, startHarness, type Harness } from './harness.ts';

const OWNER = 'acme';
const NAME = 'contract';
let h: Harness;
let head: string;

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({ owner: OWNER, name: NAME, files: { 'src/a.ts': 'export {};\n' } });
  h.emulator.commit(`${OWNER}/${NAME}`, 'agent/x', { files: { 'src/x.ts': 'x\n' }, from: 'main' });
  await h.emulator.openPullRequest(`${OWNER}/${NAME}`, {
    number: 5,
    head: 'agent/x',
    title: 'X',
    body: 'Candidate-for: #1',
    user: 'agent',
    draft: true,
  });
  head = h.emulator.pullHead(`${OWNER}/${NAME}`, 5);
});

afterAll(async () => {
  await h.stop();
});

beforeEach(() => {
  h.emulator.violations.length = 0;
});

const annotations = (
  n: number,
  from = 1,
): { path: string; start_line: number; end_line: number; annotation_level: 'notice'; message: string }[] =>
  Array.from({ length: n }, (_, i) => ({
    path: 'src/x.ts',
    start_line: from + i,
    end_line: from + i,
    annotation_level: 'notice',
    message: `note ${from + i}`,
  }));

describe('REST contract', () => {
  it('refuses a check run with a conclusion GitHub does not know, and records the violation', async () => {
    // a plain string route: Octokit's types would refuse the bad conclusion before it is sent
    const route: string = 'POST /repos/{owner}/{repo}/check-runs';
    await expect(
      h.octokit.request(route, {
        owner: OWNER,
        repo: NAME,
        name: 'Arbiter / gate',
        head_sha: head,
        conclusion: 'passed',
      }),
    ).rejects.toMatchObject({ status: 422 });
    expect(h.emulator.violations).toHaveLength(1);
    expect(h.emulator.violations[0]).toContain('POST /repos/acme/contract/check-runs');
    expect(h.emulator.violations[0]).toContain('conclusion');
    const runs = await h.octokit.checks.listForRef({ owner: OWNER, repo: NAME, ref: head });
    expect(runs.data.total_count).toBe(0);
  });

  it('accepts a valid check run and lists it by name', async () => {
    const created = await h.octokit.checks.create({
      owner: OWNER,
      repo: NAME,
      name: 'Arbiter / selection',
      head_sha: head,
      status: 'in_progress',
      output: { title: 'Waiting', summary: 'siblings' },
    });
    expect(created.status).toBe(201);
    const listed = await h.octokit.checks.listForRef({
      owner: OWNER,
      repo: NAME,
      ref: head,
      check_name: 'Arbiter / selection',
    });
    expect(listed.data.check_runs.map((r) => [r.name, r.status, r.app?.slug])).toEqual([
      ['Arbiter / selection', 'in_progress', 'arbiter'],
    ]);
    expect(h.emulator.violations).toEqual([]);
  });

  it('refuses 51 annotations in one request, and accumulates them across updates', async () => {
    const { data: run } = await h.octokit.checks.create({
      owner: OWNER,
      repo: NAME,
      name: 'Arbiter / acceptance',
      head_sha: head,
      status: 'in_progress',
    });
    await expect(
      h.octokit.checks.update({
        owner: OWNER,
        repo: NAME,
        check_run_id: run.id,
        output: { title: 'AC', summary: 's', annotations: annotations(51) },
      }),
    ).rejects.toMatchObject({ status: 422 });
    expect(h.emulator.violations.join('\n')).toMatch(/annotations must NOT have more than 50 items/);
    await h.octokit.checks.update({
      owner: OWNER,
      repo: NAME,
      check_run_id: run.id,
      output: { title: 'AC', summary: 's', annotations: annotations(50) },
    });
    const { data } = await h.octokit.checks.update({
      owner: OWNER,
      repo: NAME,
      check_run_id: run.id,
      conclusion: 'neutral',
      output: { title: 'AC', summary: 's', annotations: annotations(20, 51) },
    });
    expect(data.output.annotations_count).toBe(70);
    expect(data.status).toBe('completed');
  });

  it('refuses more than 3 buttons and a label over 20 characters', async () => {
    const action = (label: string, identifier: string): { label: string; description: string; identifier: string } => ({
      label,
      description: 'does it',
      identifier,
    });
    await expect(
      h.octokit.checks.create({
        owner: OWNER,
        repo: NAME,
        name: 'b',
        head_sha: head,
        actions: [action('a', 'a'), action('b', 'b'), action('c', 'c'), action('d', 'd')],
      }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      h.octokit.checks.create({
        owner: OWNER,
        repo: NAME,
        name: 'b',
        head_sha: head,
        actions: [action('a'.repeat(21), 'a')],
      }),
    ).rejects.toMatchObject({ status: 422 });
    expect(h.emulator.violations).toHaveLength(2);
  });

  it('answers 404 and records a violation for a route outside the subset', async () => {
    await expect(
      h.octokit.request('GET /repos/{owner}/{repo}/git/trees/{sha}', { owner: OWNER, repo: NAME, sha: head }),
    ).rejects.toMatchObject({ status: 404 });
    expect(h.emulator.violations[0]).toContain('GET /repos/acme/contract/git/trees');
  });

  it('refuses a dispatch with an event type over 100 characters or more than 10 payload keys', async () => {
    await expect(
      h.octokit.repos.createDispatchEvent({ owner: OWNER, repo: NAME, event_type: 'x'.repeat(101) }),
    ).rejects.toMatchObject({ status: 422 });
    const payload = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i]));
    await expect(
      h.octokit.repos.createDispatchEvent({
        owner: OWNER,
        repo: NAME,
        event_type: 'arbiter.repair',
        client_payload: payload,
      }),
    ).rejects.toMatchObject({ status: 422 });
    await h.octokit.repos.createDispatchEvent({
      owner: OWNER,
      repo: NAME,
      event_type: 'arbiter.repair',
      client_payload: { change: 1 },
    });
    expect(h.emulator.state(`${OWNER}/${NAME}`).dispatches).toEqual([
      { event_type: 'arbiter.repair', client_payload: { change: 1 } },
    ]);
    await settle(h.emulator);
    expect(h.events('repository_dispatch')).toHaveLength(1);
  });

  it('answers 401 to an unknown token and to a JWT from another key', async () => {
    const stranger = new Octokit({ baseUrl: h.emulator.url, auth: 'ghs_not-issued' });
    await expect(stranger.repos.get({ owner: OWNER, repo: NAME })).rejects.toMatchObject({ status: 401 });
    const [header, claims] = h.jwt().split('.');
    const forged = new Octokit({ baseUrl: h.emulator.url, auth: `${header}.${claims}.c2lnbmF0dXJl` });
    await expect(forged.apps.getAuthenticated()).rejects.toMatchObject({ status: 401 });
    const app = new Octokit({ baseUrl: h.emulator.url, auth: h.jwt() });
    expect((await app.apps.getAuthenticated()).data?.slug).toBe('arbiter');
  });

  it('serves the same API under /api/v3, as for GitHub Enterprise', async () => {
    const ghe = new Octokit({
      baseUrl: `${h.emulator.url}/api/v3`,
      auth: (
        await new Octokit({ baseUrl: h.emulator.url, auth: h.jwt() }).apps.createInstallationAccessToken({
          installation_id: 1,
        })
      ).data.token,
    });
    const { data } = await ghe.repos.get({ owner: OWNER, repo: NAME });
    expect(data.full_name).toBe('acme/contract');
  });
});

describe('GraphQL contract', () => {
  it('refuses a query with a field GitHub does not have, and records the violation', async () => {
    await expect(
      h.octokit.graphql(
        'query { repository(owner: "acme", name: "contract") { pullRequest(number: 5) { number isReady } } }',
      ),
    ).rejects.toThrow(/isReady/);
    expect(h.emulator.violations).toHaveLength(1);
    expect(h.emulator.violations[0]).toContain('Cannot query field "isReady" on type "PullRequest"');
  });

  it('answers a pull request query with rollup contexts and aliased blobs', async () => {
    await h.emulator.completeCheck(`${OWNER}/${NAME}`, head, 'test', 'success', { title: 'score: 0.9' });
    await h.emulator.setStatus(`${OWNER}/${NAME}`, head, 'ci/lint', 'failure', 'lint failed');
    type Result = {
      repository: {
        pullRequest: {
          number: number;
          isDraft: boolean;
          state: string;
          headRefOid: string;
          commits: {
            nodes: {
              commit: { statusCheckRollup: { state: string; contexts: { nodes: Record<string, unknown>[] } } };
            }[];
          };
        };
        a: { text: string; byteSize: number } | null;
        missing: { text: string } | null;
      };
    };
    const result = await h.octokit.graphql<Result>(
      `query($sha: String!) { repository(owner: "acme", name: "contract") {
        pullRequest(number: 5) { number isDraft state headRefOid
          commits(last: 1) { nodes { commit { statusCheckRollup { state contexts(first: 100) { pageInfo { hasNextPage endCursor } nodes { __typename
            ... on CheckRun { name status conclusion title checkSuite { app { slug } } }
            ... on StatusContext { context state description } } } } } } } }
        a: object(expression: $sha) { ... on Blob { text byteSize isBinary isTruncated } }
        missing: object(expression: "main:nope.ts") { ... on Blob { text } }
      } }`,
      { sha: `${head}:src/x.ts` },
    );
    const pr = result.repository.pullRequest;
    expect(pr).toMatchObject({ number: 5, isDraft: true, state: 'OPEN', headRefOid: head });
    const rollup = pr.commits.nodes[0].commit.statusCheckRollup;
    expect(rollup.state).toBe('FAILURE');
    expect(rollup.contexts.nodes).toContainEqual({
      __typename: 'CheckRun',
      name: 'test',
      status: 'COMPLETED',
      conclusion: 'SUCCESS',
      title: 'score: 0.9',
      checkSuite: { app: { slug: 'ci' } },
    });
    expect(rollup.contexts.nodes).toContainEqual({
      __typename: 'StatusContext',
      context: 'ci/lint',
      state: 'FAILURE',
      description: 'lint failed',
    });
    expect(result.repository.a).toEqual({ text: 'x\n', byteSize: 2, isBinary: false, isTruncated: false });
    expect(result.repository.missing).toBeNull();
    expect(h.emulator.violations).toEqual([]);
  });
});
