// The emulator enforces branch rules as GitHub does: the repository's "Allow auto-merge" (off by
// default) and merge methods; the REST merge's 405s in GitHub's words; mergeable_state and
// mergeStateStatus (blocked, behind, unstable, clean); the merge queue refusing a PR missing a
// review; classic protection beside rulesets; update-branch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
const OWNER = 'acme';

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

/** A repository with one pull request (#2, ready) changing b.txt; returns its head sha and node id. */
async function setup(
  name: string,
  input: Parameters<Harness['emulator']['createRepo']>[0] extends infer I ? Partial<I> : never,
) {
  h.emulator.createRepo({
    owner: OWNER,
    name,
    files: { 'a.txt': 'a\n' },
    users: { maintainer: { permission: 'write' } },
    ...input,
  });
  const full = `${OWNER}/${name}`;
  await h.emulator.openIssue(full, { number: 1, title: 'Change', body: 'x', user: 'maintainer' });
  h.emulator.commit(full, 'agent/a', { files: { 'b.txt': 'b\n' }, from: 'main' });
  await h.emulator.openPullRequest(full, { number: 2, head: 'agent/a', title: 'A', body: '', user: 'agent' });
  const { data: pr } = await h.octokit.pulls.get({ owner: OWNER, repo: name, pull_number: 2 });
  return { full, sha: pr.head.sha, id: pr.node_id };
}

const mergeState = async (name: string): Promise<string> => {
  const answer: { repository: { pullRequest: { mergeStateStatus: string } } } = await h.octokit.graphql(
    'query($o: String!, $n: String!) { repository(owner: $o, name: $n) { pullRequest(number: 2) { mergeStateStatus } } }',
    { o: OWNER, n: name },
  );
  return answer.repository.pullRequest.mergeStateStatus;
};
const restState = async (name: string): Promise<string | undefined> => {
  await h.octokit.pulls.get({ owner: OWNER, repo: name, pull_number: 2 }); // the first read computes
  return (await h.octokit.pulls.get({ owner: OWNER, repo: name, pull_number: 2 })).data.mergeable_state;
};
const merge = (name: string, sha: string) =>
  h.octokit.pulls.merge({ owner: OWNER, repo: name, pull_number: 2, sha }).then(
    () => ({ status: 200, message: '' }),
    (e: { status: number; response: { data: { message: string } } }) => ({
      status: e.status,
      message: e.response.data.message,
    }),
  );

describe('the REST merge under branch rules', () => {
  it("refuses a missing required check and a missing approval with GitHub's 405 words; blocked, then clean", async () => {
    const { full, sha } = await setup('rules', { rules: { required: ['test'], requiredReviews: 1 } });
    expect(await mergeState('rules')).toBe('BLOCKED');
    expect(await restState('rules')).toBe('blocked');
    expect(await merge('rules', sha)).toEqual({
      status: 405,
      message: 'Repository rule violations found\n\nRequired status check "test" is expected.',
    });
    await h.emulator.completeCheck(full, sha, 'test', 'success');
    expect(await merge('rules', sha)).toEqual({
      status: 405,
      message:
        'Repository rule violations found\n\nAt least 1 approving review is required by reviewers with write access.',
    });
    await h.emulator.review(full, 2, 'maintainer', 'approved');
    expect(await mergeState('rules')).toBe('CLEAN');
    expect(await merge('rules', sha)).toEqual({ status: 200, message: '' });
  });

  it('a failing check that is not required: unstable, and it merges', async () => {
    const { full, sha } = await setup('unstable', { rules: { required: ['test'] } });
    await h.emulator.completeCheck(full, sha, 'test', 'success');
    await h.emulator.completeCheck(full, sha, 'lint', 'failure');
    expect(await mergeState('unstable')).toBe('UNSTABLE');
    expect(await restState('unstable')).toBe('unstable');
    expect((await merge('unstable', sha)).status).toBe(200);
  });

  it('classic protection beside rulesets: GET /branches shows its checks, and the merge waits for them', async () => {
    const { full, sha } = await setup('classic', { rules: { protection: { required: ['e2e'], strict: false } } });
    const { data } = await h.octokit.repos.getBranch({ owner: OWNER, repo: 'classic', branch: 'main' });
    expect(data.protected).toBe(true);
    expect(data.protection.required_status_checks).toMatchObject({
      contexts: ['e2e'],
      checks: [{ context: 'e2e', app_id: null }],
    });
    expect(await merge('classic', sha)).toEqual({ status: 405, message: 'Required status check "e2e" is expected.' });
    await h.emulator.completeCheck(full, sha, 'e2e', 'success');
    expect((await merge('classic', sha)).status).toBe(200);
  });

  it('a strict branch that moved: behind; update-branch (expected_head_sha) brings it up to date, once', async () => {
    const { full, sha } = await setup('strict', { rules: { required: ['test'], strict: true } });
    await h.emulator.completeCheck(full, sha, 'test', 'success');
    expect(await mergeState('strict')).toBe('CLEAN');
    await h.emulator.push(full, 'main', { files: { 'c.txt': 'c\n' } }, 'maintainer');
    expect(await mergeState('strict')).toBe('BEHIND');
    expect(await restState('strict')).toBe('behind');
    expect(await merge('strict', sha)).toEqual({
      status: 405,
      message: 'Repository rule violations found\n\nRequired status check "test" is expected.',
    });
    const update = (expected: string) =>
      h.octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch', {
        owner: OWNER,
        repo: 'strict',
        pull_number: 2,
        expected_head_sha: expected,
      });
    await expect(update('0'.repeat(40))).rejects.toMatchObject({ status: 422 });
    const answer = await update(sha);
    expect(answer.status).toBe(202);
    expect(answer.data).toMatchObject({ message: 'Updating pull request branch.' });
    const head = h.emulator.pullHead(full, 2);
    expect(head).not.toBe(sha);
    expect(await mergeState('strict')).toBe('BLOCKED'); // the new head's checks have not run
    await expect(update(head)).rejects.toMatchObject({ status: 422 }); // nothing new on the base
    await h.emulator.completeCheck(full, head, 'test', 'success');
    expect((await merge('strict', head)).status).toBe(200);
  });

  it("a merge method the repository does not allow: 405 in GitHub's words", async () => {
    const { sha } = await setup('methods', { mergeMethods: ['squash'] });
    expect(await merge('methods', sha)).toEqual({
      status: 405,
      message: 'Merge commits are not allowed on this repository.',
    });
  });
});

describe('auto-merge and the merge queue', () => {
  const enable = (id: string) =>
    h.octokit.graphql(
      'mutation($id: ID!) { enablePullRequestAutoMerge(input: { pullRequestId: $id }) { clientMutationId } }',
      {
        id,
      },
    );

  it('"Allow auto-merge" off (GitHub\'s default): a GraphQL error in a 200, named', async () => {
    const { id } = await setup('noauto', { rules: { requiredReviews: 1 } });
    const { data } = await h.octokit.repos.get({ owner: OWNER, repo: 'noauto' });
    expect(data.allow_auto_merge).toBe(false);
    await expect(enable(id)).rejects.toMatchObject({
      errors: [
        expect.objectContaining({
          type: 'UNPROCESSABLE',
          message: 'Pull request Auto merge is not allowed for this repository',
        }),
      ],
    });
  });

  it('the queue refuses a pull request missing its required review, and takes it once approved', async () => {
    const { full, id } = await setup('queue', { rules: { requiredReviews: 1, mergeQueue: true } });
    const enqueue = () =>
      h.octokit.graphql(
        'mutation($id: ID!) { enqueuePullRequest(input: { pullRequestId: $id }) { clientMutationId } }',
        {
          id,
        },
      );
    await expect(enqueue()).rejects.toMatchObject({
      errors: [
        expect.objectContaining({
          message: 'Pull request At least 1 approving review is required by reviewers with write access.',
        }),
      ],
    });
    await h.emulator.review(full, 2, 'maintainer', 'approved');
    await enqueue();
    expect(h.emulator.state(full).prs[2].merged).toBe(true);
  });

  it('records no contract violations along the way', () => {
    expect(h.emulator.violations).toEqual([]);
  });
});
