// The emulator answers `issueOrPullRequest { comments }` as GitHub does (a Bot author by its slug,
// the comment's REST id as a BigInt string, the last page with what precedes it), and refuses a
// connection without `first` or `last`, as GitHub refuses the whole document.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

const REPO = 'acme/talk';
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({ owner: 'acme', name: 'talk', files: { 'a.ts': 'export {};\n' } });
  await h.emulator.openIssue(REPO, { number: 3, title: 'Change', body: 'AC1', user: 'maintainer' });
  h.emulator.commit(REPO, 'agent/4', { files: { 'b.ts': 'b\n' }, from: 'main' });
  await h.emulator.openPullRequest(REPO, {
    number: 4,
    head: 'agent/4',
    title: 'Four',
    body: 'Candidate-for: #3',
    user: 'agent',
  });
});

afterAll(async () => {
  await h?.stop();
});

beforeEach(() => {
  h.emulator.violations.length = 0;
});

interface Page {
  totalCount: number;
  pageInfo: { hasPreviousPage: boolean };
  nodes: { fullDatabaseId: string; body: string; author: { __typename: string; login: string } }[];
}

const query = (last: number): string => `query Talk { repository(owner: "acme", name: "talk") {
  issue: issueOrPullRequest(number: 3) { ... on Issue { comments(last: ${last}) { ...P } } ... on PullRequest { comments(last: ${last}) { ...P } } }
  pull: issueOrPullRequest(number: 4) { ... on Issue { comments(last: ${last}) { ...P } } ... on PullRequest { comments(last: ${last}) { ...P } } }
} }
fragment P on IssueCommentConnection { totalCount pageInfo { hasPreviousPage } nodes { fullDatabaseId body author { __typename login } } }`;

describe('issueOrPullRequest { comments } in the emulator', () => {
  it("answers issues and pull requests alike: the app's comments by a Bot named by its slug, with their REST ids", async () => {
    const { data: mine } = await h.octokit.issues.createComment({
      owner: 'acme',
      repo: 'talk',
      issue_number: 4,
      body: 'from the app',
    });
    await h.emulator.comment(REPO, 4, 'arbiter', 'from a user named like the app');
    await h.emulator.comment(REPO, 3, 'maintainer', 'hello');
    const { repository } = await h.octokit.graphql<{
      repository: { issue: { comments: Page }; pull: { comments: Page } };
    }>(query(2));
    expect(h.emulator.violations).toEqual([]);
    expect(repository.pull.comments.nodes).toEqual([
      { fullDatabaseId: String(mine.id), body: 'from the app', author: { __typename: 'Bot', login: 'arbiter' } },
      {
        fullDatabaseId: expect.stringMatching(/^\d+$/),
        body: 'from a user named like the app',
        author: { __typename: 'User', login: 'arbiter' },
      },
    ]);
    expect(repository.issue.comments).toMatchObject({
      totalCount: 1,
      pageInfo: { hasPreviousPage: false },
      nodes: [{ body: 'hello', author: { __typename: 'User', login: 'maintainer' } }],
    });
  });

  it('the last page says that earlier comments exist', async () => {
    const { repository } = await h.octokit.graphql<{ repository: { pull: { comments: Page } } }>(query(1));
    expect(repository.pull.comments).toMatchObject({
      totalCount: 2,
      pageInfo: { hasPreviousPage: true },
      nodes: [{ body: 'from a user named like the app' }],
    });
  });

  it('refuses a connection without `first` or `last`, and one with both, as GitHub does', async () => {
    await expect(
      h.octokit.graphql(
        'query { repository(owner: "acme", name: "talk") { issue(number: 3) { comments { totalCount } } } }',
      ),
    ).rejects.toThrow(/must provide a `first` or `last` value to properly paginate the `comments` connection/);
    await expect(
      h.octokit.graphql(
        'query { repository(owner: "acme", name: "talk") { issue(number: 3) { comments(first: 1, last: 1) { totalCount } } } }',
      ),
    ).rejects.toThrow(/Passing both `first` and `last`/);
    expect(h.emulator.violations).toHaveLength(2);
  });

  it('a number that is neither: NOT_FOUND in GitHub words, the rest still answered', async () => {
    const error = await h.octokit
      .graphql(
        'query { repository(owner: "acme", name: "talk") { a: issueOrPullRequest(number: 3) { __typename } b: issueOrPullRequest(number: 99) { __typename } } }',
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      data: { repository: { a: { __typename: 'Issue' }, b: null } },
      errors: [
        {
          type: 'NOT_FOUND',
          path: ['repository', 'b'],
          message: 'Could not resolve to an issue or pull request with the number of 99.',
        },
      ],
    });
  });
});
