// The emulator speaks like GitHub for agents: a bot's permission is a 404, `closingIssuesReferences`
// follows GitHub's keyword rules on the rendered body (not in quotes, details, code or comments;
// only on the default branch; only issues that exist) plus links made in the sidebar, which send
// no webhook; a pull request's title edit sends `pull_request.edited` with `changes`.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keywordReferences } from '../../sim/github/closing-refs.ts';
import { settle, startHarness, type Harness } from './harness.ts';

const OWNER = 'acme';
const NAME = 'todo';
const REPO = `${OWNER}/${NAME}`;
let h: Harness;
let next = 10;

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({
    owner: OWNER,
    name: NAME,
    files: { 'src/app.ts': 'export {};\n' },
    users: { maintainer: { permission: 'write' }, helper: { permission: 'write', bot: true } },
  });
  h.emulator.createRepo({ owner: 'other', name: 'lib', files: { 'a.ts': '1\n' } });
  for (const n of [41, 42, 43])
    await h.emulator.openIssue(REPO, { number: n, title: `Issue ${n}`, body: '', user: 'maintainer' });
  await h.emulator.openIssue('other/lib', { number: 42, title: 'Elsewhere', body: '', user: 'maintainer' });
  h.emulator.commit(REPO, 'dev', { files: { 'src/app.ts': 'export {}; // dev\n' }, from: 'main' });
});

afterAll(async () => {
  await h.stop();
});

beforeEach(() => {
  h.emulator.violations.length = 0;
});

async function openPull(body: string, opts: { base?: string; user?: string } = {}): Promise<number> {
  const number = next++;
  h.emulator.commit(REPO, `agent/${number}`, { files: { [`src/f${number}.ts`]: `${number}\n` }, from: 'main' });
  await h.emulator.openPullRequest(REPO, {
    number,
    head: `agent/${number}`,
    ...(opts.base ? { base: opts.base } : {}),
    title: `PR ${number}`,
    body,
    user: opts.user ?? 'Copilot',
    draft: true,
  });
  return number;
}

async function closing(pr: number): Promise<string[]> {
  const answer = await h.octokit.graphql<{
    repository: {
      pullRequest: {
        author: { __typename: string; login: string };
        closingIssuesReferences: { nodes: { number: number; repository: { nameWithOwner: string } }[] };
      };
    };
  }>(
    `query($owner: String!, $name: String!, $pr: Int!) { repository(owner: $owner, name: $name) {
      pullRequest(number: $pr) { author { __typename login }
        closingIssuesReferences(first: 10) { nodes { number repository { nameWithOwner } } } } } }`,
    { owner: OWNER, name: NAME, pr },
  );
  expect(h.emulator.violations).toEqual([]);
  return answer.repository.pullRequest.closingIssuesReferences.nodes.map(
    (n) => `${n.repository.nameWithOwner}#${n.number}`,
  );
}

describe('closingIssuesReferences', () => {
  it.each<[string, string[]]>([
    ['Fixes #42', ['acme/todo#42']],
    ['fixes #42.', ['acme/todo#42']],
    ['This pull request fixes #42.', ['acme/todo#42']],
    ['- Fixes acme/todo#42', ['acme/todo#42']],
    ['Closes: #42 and RESOLVES #43', ['acme/todo#42', 'acme/todo#43']],
    ['Resolves http://github.example/acme/todo/issues/43', ['acme/todo#43']],
    ['Fixes other/lib#42', ['other/lib#42']],
    ['Fixes #999 (no such issue)', []],
    ['Candidate-for: #42', []],
    ['See #42', []],
    ['> Fixes #42', []],
    ['`Fixes #42`', []],
    ['```\nFixes #42\n```', []],
    ['<!-- Fixes #42 -->', []],
    [
      '<details>\n<summary>Original prompt</summary>\n\n> Fixes #41\n\n</details>\n\n- Fixes acme/todo#42',
      ['acme/todo#42'],
    ],
  ])('%j → %j', async (body, expected) => {
    expect(await closing(await openPull(body))).toEqual(expected);
  });

  it('a keyword links only on a pull request to the default branch; a sidebar link on any', async () => {
    const pr = await openPull('Fixes #42', { base: 'dev' });
    expect(await closing(pr)).toEqual([]);
    h.emulator.linkIssue(REPO, pr, 43, 'maintainer');
    expect(await closing(pr)).toEqual(['acme/todo#43']);
  });

  it('a sidebar link sends no webhook; it shows in the list', async () => {
    const pr = await openPull('No keyword at all');
    await settle(h.emulator);
    const before = h.received.length;
    h.emulator.linkIssue(REPO, pr, 41, 'maintainer');
    await settle(h.emulator);
    expect(h.received.length).toBe(before);
    expect(await closing(pr)).toEqual(['acme/todo#41']);
    // The issue's side: the open pull requests that close it (keywords and sidebar links).
    const issue = await h.octokit.graphql<{
      repository: { issue: { closedByPullRequestsReferences: { nodes: { number: number }[] } } };
    }>(
      `query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {
        issue(number: 41) { closedByPullRequestsReferences(first: 25, includeClosedPrs: false) { nodes { number } } } } }`,
      { owner: OWNER, name: NAME },
    );
    expect(issue.repository.issue.closedByPullRequestsReferences.nodes.map((n) => n.number)).toEqual([pr]);
    expect(h.emulator.violations).toEqual([]);
    expect(() => h.emulator.linkIssue(REPO, pr, 999, 'maintainer')).toThrow(/not an issue/);
    expect(() => h.emulator.linkIssue(REPO, pr, 42, 'stranger')).toThrow(/cannot link/);
  });
});

describe('identities', () => {
  it('Copilot is a Bot: `Copilot` in REST and webhooks, `copilot-swe-agent` in GraphQL', async () => {
    const pr = await openPull('Fixes #42');
    const { data } = await h.octokit.pulls.get({ owner: OWNER, repo: NAME, pull_number: pr });
    expect(data.user).toMatchObject({ login: 'Copilot', type: 'Bot' });
    const answer = await h.octokit.graphql<{ repository: { pullRequest: { author: unknown } } }>(
      `query($owner: String!, $name: String!, $pr: Int!) { repository(owner: $owner, name: $name) {
        pullRequest(number: $pr) { author { __typename login } } } }`,
      { owner: OWNER, name: NAME, pr },
    );
    expect(answer.repository.pullRequest.author).toEqual({ __typename: 'Bot', login: 'copilot-swe-agent' });
  });

  it.each(['Copilot', 'google-labs-jules[bot]', 'helper'])("%s's permission is GitHub's 404", async (username) => {
    await expect(
      h.octokit.repos.getCollaboratorPermissionLevel({ owner: OWNER, repo: NAME, username }),
    ).rejects.toMatchObject({ status: 404, message: expect.stringContaining(`${username} is not a user`) });
  });

  it("a person's permission is still read", async () => {
    const { data } = await h.octokit.repos.getCollaboratorPermissionLevel({
      owner: OWNER,
      repo: NAME,
      username: 'maintainer',
    });
    expect(data.permission).toBe('write');
  });
});

describe('edits', () => {
  it("a pull request's title edit sends pull_request.edited with changes.title", async () => {
    const pr = await openPull('Fixes #42');
    await settle(h.emulator);
    await h.emulator.editIssue(REPO, pr, { title: 'Add the calendar' }, 'Copilot');
    await settle(h.emulator);
    const edited = h.events('pull_request', 'edited').at(-1)!;
    expect(edited['changes']).toEqual({ title: { from: `PR ${pr}` } });
    expect(edited['pull_request']).toMatchObject({ number: pr, title: 'Add the calendar' });
    expect(keywordReferences('Fixes #42', REPO)).toEqual([{ repo: REPO, number: 42 }]);
  });
});
