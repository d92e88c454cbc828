// Merging through the emulator over HTTP: GitHub's compare-and-swap on `sha` (409), drafts
// (405), REST `draft: false` ignored, the GraphQL ready-for-review mutation, and what a merge does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settle, startHarness, type Harness } from './harness.ts';

const REPO = 'acme/merge';
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({
    owner: 'acme',
    name: 'merge',
    files: { 'src/app.ts': 'export const a = 1;\n', 'README.md': '# demo\n' },
    users: { maintainer: { permission: 'write' } },
  });
  await h.emulator.openIssue(REPO, {
    number: 42,
    title: 'Change',
    body: '## Acceptance criteria\n- works',
    user: 'maintainer',
  });
  h.emulator.commit(REPO, 'agent/one', {
    files: { 'src/one.ts': 'export const one = 1;\n' },
    from: 'main',
    message: 'one',
  });
  await h.emulator.openPullRequest(REPO, {
    number: 12,
    head: 'agent/one',
    title: 'One',
    body: 'Candidate-for: #42',
    user: 'agent',
    draft: true,
  });
});

afterAll(async () => {
  await h.stop();
});

const prNodeId = async (number: number): Promise<string> => {
  const { data } = await h.octokit.pulls.get({ owner: 'acme', repo: 'merge', pull_number: number });
  return data.node_id;
};

describe('merging a pull request', () => {
  it('answers 405 while the pull request is a draft', async () => {
    const head = h.emulator.pullHead(REPO, 12);
    await expect(
      h.octokit.pulls.merge({ owner: 'acme', repo: 'merge', pull_number: 12, sha: head, merge_method: 'merge' }),
    ).rejects.toMatchObject({ status: 405 });
    expect(h.emulator.state(REPO).prs[12]).toMatchObject({ state: 'open', merged: false });
  });

  it('keeps the draft on REST `draft: false`, and leaves it with markPullRequestReadyForReview', async () => {
    await h.octokit.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner: 'acme',
      repo: 'merge',
      pull_number: 12,
      draft: false,
    });
    expect(h.emulator.state(REPO).prs[12].draft).toBe(true);
    const id = await prNodeId(12);
    const result = await h.octokit.graphql<{
      markPullRequestReadyForReview: { pullRequest: { isDraft: boolean; number: number } };
    }>(
      'mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft number } } }',
      { id },
    );
    expect(result.markPullRequestReadyForReview.pullRequest).toEqual({ isDraft: false, number: 12 });
    expect(h.emulator.state(REPO).prs[12].draft).toBe(false);
    await settle(h.emulator);
    const ready = h.events('pull_request', 'ready_for_review');
    expect(ready).toHaveLength(1);
    expect(ready[0].sender).toMatchObject({ login: 'arbiter[bot]', type: 'Bot' });
    const write = h.emulator.writes.find((w) => w.operation === 'markPullRequestReadyForReview');
    expect(write).toMatchObject({ method: 'POST', route: '/graphql', summary: 'ready for review #12' });
  });

  it('answers 409 when `sha` is not the head any more', async () => {
    const before = h.emulator.pullHead(REPO, 12);
    await h.emulator.push(
      REPO,
      'agent/one',
      { files: { 'src/one.ts': 'export const one = 2;\n' }, message: 'two' },
      'agent',
    );
    expect(h.emulator.pullHead(REPO, 12)).not.toBe(before);
    await expect(
      h.octokit.pulls.merge({ owner: 'acme', repo: 'merge', pull_number: 12, sha: before }),
    ).rejects.toMatchObject({ status: 409 });
    expect(h.emulator.state(REPO).prs[12].merged).toBe(false);
    expect(h.emulator.writes.at(-1)).toMatchObject({
      route: '/repos/{owner}/{repo}/pulls/{pull_number}/merge',
      status: 409,
    });
  });

  it('refuses auto-merge when expectedHeadOid is stale', async () => {
    const id = await prNodeId(12);
    await expect(
      h.octokit.graphql(
        'mutation($id: ID!, $oid: GitObjectID!) { enablePullRequestAutoMerge(input: { pullRequestId: $id, expectedHeadOid: $oid }) { pullRequest { number } } }',
        { id, oid: '0'.repeat(40) },
      ),
    ).rejects.toThrow(/expected head oid/i);
  });

  it('merges with the current sha: advances the base, closes the PR and its referenced issue, sends the webhooks', async () => {
    const baseBefore = h.emulator.branchHead(REPO, 'main');
    const head = h.emulator.pullHead(REPO, 12);
    const received = h.received.length;
    const { data } = await h.octokit.pulls.merge({
      owner: 'acme',
      repo: 'merge',
      pull_number: 12,
      sha: head,
      merge_method: 'merge',
    });
    expect(data.merged).toBe(true);
    const baseAfter = h.emulator.branchHead(REPO, 'main');
    expect(baseAfter).toBe(data.sha);
    expect(baseAfter).not.toBe(baseBefore);
    const content = await h.octokit.repos.getContent({ owner: 'acme', repo: 'merge', path: 'src/one.ts', ref: 'main' });
    expect('content' in content.data && Buffer.from(content.data.content, 'base64').toString()).toBe(
      'export const one = 2;\n',
    );
    const state = h.emulator.state(REPO);
    expect(state.prs[12]).toMatchObject({ state: 'closed', merged: true });
    // `Candidate-for: #42` is no closing keyword: the Change stays open, as on GitHub.
    expect(state.issues[42].state).toBe('open');
    await settle(h.emulator);
    const after = h.received.slice(received);
    const closed = after.find((r) => r.event === 'pull_request' && r.payload.action === 'closed');
    expect(closed?.payload.pull_request).toMatchObject({ merged: true, merge_commit_sha: data.sha });
    const push = after.find((r) => r.event === 'push');
    expect(push?.payload).toMatchObject({ ref: 'refs/heads/main', before: baseBefore, after: data.sha });
    expect(
      after.some(
        (r) =>
          r.event === 'issues' &&
          r.payload.action === 'closed' &&
          (r.payload.issue as { number: number }).number === 42,
      ),
    ).toBe(false);
    expect(h.emulator.writes.at(-1)).toMatchObject({ summary: 'merge #12', status: 200 });
  });

  it('answers 405 for a pull request that conflicts with its base', async () => {
    h.emulator.commit(REPO, 'agent/two', {
      files: { 'README.md': '# theirs\n' },
      from: h.emulator.branchHead(REPO, 'main') ?? 'main',
    });
    await h.emulator.push(REPO, 'main', { files: { 'README.md': '# ours\n' } }, 'maintainer');
    await h.emulator.openPullRequest(REPO, {
      number: 13,
      head: 'agent/two',
      title: 'Two',
      body: 'Candidate-for: #42',
      user: 'agent',
    });
    // GitHub computes mergeability in the background: the first read after a push answers null.
    const { data: first } = await h.octokit.pulls.get({ owner: 'acme', repo: 'merge', pull_number: 13 });
    expect(first).toMatchObject({ mergeable: null, mergeable_state: 'unknown' });
    const { data } = await h.octokit.pulls.get({ owner: 'acme', repo: 'merge', pull_number: 13 });
    expect(data).toMatchObject({ mergeable: false, mergeable_state: 'dirty' });
    await expect(
      h.octokit.pulls.merge({ owner: 'acme', repo: 'merge', pull_number: 13, sha: data.head.sha }),
    ).rejects.toMatchObject({ status: 405 });
  });

  it('records no contract violations along the way', () => {
    expect(h.emulator.violations).toEqual([]);
  });
});

describe('auto-merge under branch rules', () => {
  const RULED = 'acme/ruled';

  it('merges by itself once the required check passes and the required approval is in', async () => {
    h.emulator.createRepo({
      owner: 'acme',
      name: 'ruled',
      files: { 'a.txt': 'a\n' },
      users: { maintainer: { permission: 'write' } },
      rules: { required: ['test'], requiredReviews: 1 },
      allowAutoMerge: true,
    });
    await h.emulator.openIssue(RULED, { number: 1, title: 'Change', body: 'x', user: 'maintainer' });
    h.emulator.commit(RULED, 'agent/a', { files: { 'b.txt': 'b\n' }, from: 'main' });
    await h.emulator.openPullRequest(RULED, {
      number: 2,
      head: 'agent/a',
      title: 'A',
      body: 'Closes #1',
      user: 'agent',
    });
    const { data: pr } = await h.octokit.pulls.get({ owner: 'acme', repo: 'ruled', pull_number: 2 });
    const enable =
      'mutation($id: ID!, $oid: GitObjectID!) { enablePullRequestAutoMerge(input: { pullRequestId: $id, expectedHeadOid: $oid, mergeMethod: MERGE }) { pullRequest { autoMergeRequest { mergeMethod } } } }';
    await h.octokit.graphql(enable, { id: pr.node_id, oid: pr.head.sha });
    await h.emulator.completeCheck(RULED, pr.head.sha, 'test', 'success');
    expect(h.emulator.state(RULED).prs[2].merged).toBe(false);
    await h.emulator.review(RULED, 2, 'maintainer', 'approved');
    expect(h.emulator.state(RULED).prs[2]).toMatchObject({ merged: true, state: 'closed' });
    expect(h.emulator.state(RULED).issues[1].state).toBe('closed');
  });

  it("keeps auto-merge through a writer's push, turns it off on a push without write access, and on the mutation", async () => {
    h.emulator.commit(RULED, 'agent/c', { files: { 'd.txt': 'd\n' }, from: 'main' });
    await h.emulator.openPullRequest(RULED, { number: 4, head: 'agent/c', title: 'C', body: '', user: 'agent' });
    const read = async () => (await h.octokit.pulls.get({ owner: 'acme', repo: 'ruled', pull_number: 4 })).data;
    const enable =
      'mutation($id: ID!, $oid: GitObjectID!) { enablePullRequestAutoMerge(input: { pullRequestId: $id, expectedHeadOid: $oid }) { clientMutationId } }';
    const first = await read();
    await h.octokit.graphql(enable, { id: first.node_id, oid: first.head.sha });
    const received = h.received.length;
    // The maintainer has write access: GitHub keeps the auto-merge on the new head.
    await h.emulator.push(RULED, 'agent/c', { files: { 'd.txt': 'd2\n' } }, 'maintainer');
    expect((await read()).auto_merge).toMatchObject({ enabled_by: { login: expect.any(String) } });
    // Someone with read access pushes: GitHub turns it off and says why.
    await h.emulator.push(RULED, 'agent/c', { files: { 'd.txt': 'd3\n' } }, 'drive-by');
    expect((await read()).auto_merge).toBeNull();
    await settle(h.emulator);
    const disabled = h.received
      .slice(received)
      .filter((r) => r.event === 'pull_request' && r.payload.action === 'auto_merge_disabled');
    expect(disabled.map((r) => r.payload.reason)).toEqual(['Head branch was pushed to by a user without write access']);
    // disablePullRequestAutoMerge turns it off (auto_merge_disabled again); with none on, GitHub refuses.
    const now = await read();
    await h.octokit.graphql(enable, { id: now.node_id, oid: now.head.sha });
    const disable =
      'mutation($id: ID!) { disablePullRequestAutoMerge(input: { pullRequestId: $id }) { pullRequest { autoMergeRequest { mergeMethod } } } }';
    const answer = await h.octokit.graphql<{
      disablePullRequestAutoMerge: { pullRequest: { autoMergeRequest: unknown } };
    }>(disable, { id: now.node_id });
    expect(answer.disablePullRequestAutoMerge.pullRequest.autoMergeRequest).toBeNull();
    expect((await read()).auto_merge).toBeNull();
    await expect(h.octokit.graphql(disable, { id: now.node_id })).rejects.toThrow(/not enabled/);
    await settle(h.emulator);
    expect(
      h.received
        .slice(received)
        .filter((r) => r.event === 'pull_request' && r.payload.action === 'auto_merge_disabled'),
    ).toHaveLength(2);
    expect(h.emulator.violations).toEqual([]);
  });

  it('refuses auto-merge on a pull request that could merge right now', async () => {
    h.emulator.commit(RULED, 'agent/b', { files: { 'c.txt': 'c\n' }, from: 'main' });
    await h.emulator.openPullRequest(RULED, { number: 3, head: 'agent/b', title: 'B', body: '', user: 'agent' });
    const { data: pr } = await h.octokit.pulls.get({ owner: 'acme', repo: 'ruled', pull_number: 3 });
    await h.emulator.completeCheck(RULED, pr.head.sha, 'test', 'success');
    await h.emulator.review(RULED, 3, 'maintainer', 'approved');
    await expect(
      h.octokit.graphql(
        'mutation($id: ID!) { enablePullRequestAutoMerge(input: { pullRequestId: $id }) { clientMutationId } }',
        { id: pr.node_id },
      ),
    ).rejects.toThrow(/clean status/);
    expect(h.emulator.state(RULED).prs[3].merged).toBe(false);
  });
});
