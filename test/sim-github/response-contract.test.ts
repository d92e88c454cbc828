// The emulator checks its own answers: a REST answer against GitHub's response schema for the
// operation and status, a query string against the operation's parameters, and a GraphQL answer
// against GitHub's schema (custom scalars included). Each breach names where it is.
import { execute, parse } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RestContract, type MatchedOperation } from '../../sim/github/contract.ts';
import { schemaBreaches } from '../../sim/github/graphql/answer-check.ts';
import { githubSchema } from '../../sim/github/graphql/endpoint.ts';
import { startHarness, type Harness } from './harness.ts';

const OWNER = 'acme';
const NAME = 'answers';
const contract = new RestContract(new URL('../../sim/github/openapi-subset.json', import.meta.url));
let h: Harness;

function matched(method: string, path: string): MatchedOperation {
  const found = contract.match(method, path);
  if (!found) throw new Error(`no operation for ${method} ${path}`);
  return found;
}

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({ owner: OWNER, name: NAME, files: { 'src/a.ts': 'export {};\n' } });
  h.emulator.commit(`${OWNER}/${NAME}`, 'agent/x', { files: { 'src/x.ts': 'x\n' }, from: 'main' });
  await h.emulator.openPullRequest(`${OWNER}/${NAME}`, {
    number: 2,
    head: 'agent/x',
    title: 'X',
    body: 'Candidate-for: #1',
    user: 'agent',
  });
});

afterAll(async () => {
  await h.stop();
});

beforeEach(() => {
  h.emulator.violations.length = 0;
});

describe('REST answers', () => {
  it('passes the pull request the emulator serves, and names each pointer where a changed copy breaks the schema', async () => {
    const { data } = await h.octokit.pulls.get({ owner: OWNER, repo: NAME, pull_number: 2 });
    expect(h.emulator.violations).toEqual([]);
    const { operation } = matched('GET', `/repos/${OWNER}/${NAME}/pulls/2`);
    expect(contract.checkResponse(operation, 200, data)).toEqual([]);

    const { number: _dropped, ...withoutNumber } = data;
    const broken = { ...withoutNumber, head: { ...data.head, sha: 42 }, state: 'merged' };
    const problems = contract.checkResponse(operation, 200, broken);
    expect(problems).toContain(`at "" (the body): must have required property 'number'`);
    expect(problems).toContain('at /head/sha: must be string');
    expect(problems).toContain('at /state: must be equal to one of the allowed values: ["open","closed"]');
  });

  it('knows which statuses an operation answers and which have no body', () => {
    const dispatch = matched('POST', `/repos/${OWNER}/${NAME}/dispatches`).operation;
    expect(contract.checkResponse(dispatch, 204, undefined)).toEqual([]);
    expect(contract.checkResponse(dispatch, 204, {})).toEqual([
      'GitHub answers 204 to repos/create-dispatch-event with no body, the emulator sent one',
    ]);
    expect(contract.checkResponse(dispatch, 200, {})[0]).toMatch(
      /^GitHub does not answer 200 to repos\/create-dispatch-event \(it documents 204, 404, 422\)$/,
    );
    // a status the operation does not document is GitHub's generic error
    expect(
      contract.checkResponse(dispatch, 502, {
        message: 'Server Error',
        documentation_url: 'https://docs.github.com/rest',
      }),
    ).toEqual([]);
    expect(contract.checkResponse(dispatch, 502, { message: 502 })).toEqual(['at /message: must be string']);
    // GitHub documents "409 Merge conflict" without a body, and sends its generic error
    const merges = matched('POST', `/repos/${OWNER}/${NAME}/merges`).operation;
    expect(
      contract.checkResponse(merges, 409, {
        message: 'Merge conflict',
        documentation_url: 'https://docs.github.com/rest',
      }),
    ).toEqual([]);
    expect(contract.checkResponse(merges, 409, { message: ['Merge', 'conflict'] })).toEqual([
      'at /message: must be string',
    ]);
    expect(contract.checkResponse(merges, 204, {})).toEqual([
      'GitHub answers 204 to repos/merge with no body, the emulator sent one',
    ]);
  });

  it('records a violation naming the operation, the status and the pointer when an answer breaks the schema', async () => {
    // a fault's body is an answer too: this one is not what GitHub sends for a 405
    h.emulator.addFault({
      route: 'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
      status: 405,
      body: { message: ['not', 'mergeable'] },
    });
    await expect(h.octokit.pulls.merge({ owner: OWNER, repo: NAME, pull_number: 2 })).rejects.toMatchObject({
      status: 405,
    });
    expect(h.emulator.violations).toEqual([
      `PUT /repos/${OWNER}/${NAME}/pulls/2/merge (pulls/merge): the emulator's 405 answer breaks GitHub's response schema: at /message: must be string`,
    ]);
  });
});

describe('query parameters', () => {
  const files = (): MatchedOperation => matched('GET', `/repos/${OWNER}/${NAME}/pulls/2/files`);

  it('accepts the documented ones in range', () => {
    expect(contract.check(files(), undefined, new URLSearchParams('per_page=100&page=3'))).toEqual([]);
  });

  it('refuses per_page out of 1..100, a non-integer, an unknown enum value and an unknown name', () => {
    expect(contract.check(files(), undefined, new URLSearchParams('per_page=-3'))).toEqual([
      'query parameter per_page must be >= 1',
    ]);
    expect(contract.check(files(), undefined, new URLSearchParams('per_page=101'))).toEqual([
      'query parameter per_page must be <= 100',
    ]);
    expect(contract.check(files(), undefined, new URLSearchParams('page=two'))).toEqual([
      'query parameter page must be integer',
    ]);
    const list = matched('GET', `/repos/${OWNER}/${NAME}/pulls`);
    expect(contract.check(list, undefined, new URLSearchParams('state=merged'))).toEqual([
      'query parameter state must be equal to one of the allowed values: ["open","closed","all"]',
    ]);
    expect(contract.check(files(), undefined, new URLSearchParams('perpage=5'))).toEqual([
      "query parameter perpage is not one of pulls/list-files's (per_page, page)",
    ]);
  });

  it('refuses per_page=-3 over HTTP and records it', async () => {
    await expect(
      h.octokit.pulls.listFiles({ owner: OWNER, repo: NAME, pull_number: 2, per_page: -3 }),
    ).rejects.toMatchObject({ status: 422 });
    expect(h.emulator.violations).toEqual([
      `GET /repos/${OWNER}/${NAME}/pulls/2/files (/repos/{owner}/{repo}/pulls/{pull_number}/files) breaks GitHub's OpenAPI contract: query parameter per_page must be >= 1`,
    ]);
  });
});

describe('GraphQL answers', () => {
  const document = parse(
    'query { repository(owner: "acme", name: "answers") { pullRequest(number: 2) { number state headRefOid createdAt title } } }',
  );
  const run = (pullRequest: Record<string, unknown>): string[] => {
    const result = execute({ schema: githubSchema(), document, rootValue: { repository: () => ({ pullRequest }) } });
    if ('then' in result) throw new Error('resolved asynchronously');
    return schemaBreaches(result.errors);
  };
  const good = { number: 2, state: 'OPEN', headRefOid: 'a'.repeat(40), createdAt: '2026-01-02T03:04:05Z', title: 'X' };

  it('finds nothing in an answer that fits the selection', () => {
    expect(run(good)).toEqual([]);
  });

  it('names the path of a null non-null field, an unknown enum value and a malformed custom scalar', () => {
    expect(run({ ...good, title: null })).toEqual([
      'at /data/repository/pullRequest/title: Cannot return null for non-nullable field PullRequest.title.',
    ]);
    expect(run({ ...good, state: 'DRAFT' })).toEqual([
      'at /data/repository/pullRequest/state: Enum "PullRequestState" cannot represent value: "DRAFT"',
    ]);
    expect(run({ ...good, headRefOid: 'main' })).toEqual([
      'at /data/repository/pullRequest/headRefOid: GitObjectID cannot represent "main": GitHub sends a hexadecimal object id',
    ]);
    expect(run({ ...good, createdAt: 1767323045000 })).toEqual([
      'at /data/repository/pullRequest/createdAt: DateTime cannot represent 1767323045000: GitHub sends an ISO-8601 time with its zone',
    ]);
  });

  it('passes the answers the emulator serves', async () => {
    await h.octokit.graphql(
      'query { repository(owner: "acme", name: "answers") { pullRequest(number: 2) { number state headRefOid createdAt updatedAt url resourcePath author { login } } } }',
    );
    expect(h.emulator.violations).toEqual([]);
  });
});
