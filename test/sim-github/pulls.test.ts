// Reading pull requests through the emulator: files paged like GitHub (per_page ≤ 100, Link
// header), binary files without a patch, the unified diff and its 406 when too large, paged
// comments, file contents with encoded paths; and faults injected before and after a write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settle, startHarness, type Harness } from './harness.ts';

const OWNER = 'acme';
const NAME = 'pulls';
const REPO = `${OWNER}/${NAME}`;
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({
    owner: OWNER,
    name: NAME,
    files: {
      'src/app.ts': 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n',
      'img/logo.png': 'PNG\0old',
    },
  });
  const many = Object.fromEntries(
    Array.from({ length: 250 }, (_, i) => [
      `gen/file-${String(i).padStart(3, '0')}.ts`,
      `export const v${i} = ${i};\n`,
    ]),
  );
  h.emulator.commit(REPO, 'agent/many', {
    files: {
      ...many,
      'src/app.ts': 'line 1\nline 2\nline 3\nline 4 changed\nline 5\nline 6\nline 7\nline 8\n',
      'img/logo.png': 'PNG\0new',
    },
    from: 'main',
  });
  await h.emulator.openPullRequest(REPO, {
    number: 3,
    head: 'agent/many',
    title: 'Many',
    body: 'Candidate-for: #1',
    user: 'agent',
  });
  h.emulator.commit(REPO, 'agent/small', {
    files: { 'src/app.ts': 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\n' },
    deleted: ['img/logo.png'],
    from: 'main',
  });
  await h.emulator.openPullRequest(REPO, {
    number: 4,
    head: 'agent/small',
    title: 'Small',
    body: 'Candidate-for: #1',
    user: 'agent',
    draft: true,
  });
});

afterAll(async () => {
  await h.stop();
});

describe('pull request files and diff', () => {
  it('pages files at most 100 at a time, with a Link header that Octokit follows', async () => {
    const first = await h.octokit.pulls.listFiles({ owner: OWNER, repo: NAME, pull_number: 3, per_page: 100 });
    expect(first.data).toHaveLength(100);
    expect(first.headers.link).toMatch(/page=2>; rel="next"/);
    // GitHub documents per_page as at most 100: asking for more is the client's mistake
    await expect(
      h.octokit.pulls.listFiles({ owner: OWNER, repo: NAME, pull_number: 3, per_page: 500 }),
    ).rejects.toMatchObject({ status: 422 });
    expect(h.emulator.violations.splice(0)).toEqual([
      expect.stringContaining('query parameter per_page must be <= 100'),
    ]);
    const all = await h.octokit.paginate(h.octokit.pulls.listFiles, {
      owner: OWNER,
      repo: NAME,
      pull_number: 3,
      per_page: 100,
    });
    expect(all).toHaveLength(252);
    expect(new Set(all.map((f) => f.filename)).size).toBe(252);
    const app = all.find((f) => f.filename === 'src/app.ts');
    expect(app).toMatchObject({ status: 'modified', additions: 1, deletions: 1 });
    expect(app?.patch).toBe(
      '@@ -1,7 +1,7 @@\n line 1\n line 2\n line 3\n-line 4\n+line 4 changed\n line 5\n line 6\n line 7',
    );
    const logo = all.find((f) => f.filename === 'img/logo.png');
    expect(logo).toMatchObject({ status: 'modified' });
    expect(logo && 'patch' in logo).toBe(false);
  });

  it('answers the unified diff, and 406 when it is too large', async () => {
    const small = await h.octokit.pulls.get({
      owner: OWNER,
      repo: NAME,
      pull_number: 4,
      mediaType: { format: 'diff' },
    });
    const text = String(small.data);
    expect(text).toContain(
      'diff --git a/src/app.ts b/src/app.ts\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -6,3 +6,4 @@\n line 6\n line 7\n line 8\n+line 9\n',
    );
    expect(text).toContain('deleted file mode 100644');
    await expect(
      h.octokit.pulls.get({ owner: OWNER, repo: NAME, pull_number: 3, mediaType: { format: 'diff' } }),
    ).resolves.toMatchObject({ status: 200 });
    const huge = Array.from({ length: 20_001 }, (_, i) => `row ${i}`).join('\n') + '\n';
    await h.emulator.push(REPO, 'agent/small', { files: { 'data/huge.txt': huge } }, 'agent');
    await expect(
      h.octokit.pulls.get({ owner: OWNER, repo: NAME, pull_number: 4, mediaType: { format: 'diff' } }),
    ).rejects.toMatchObject({ status: 406 });
    const json = await h.octokit.pulls.get({ owner: OWNER, repo: NAME, pull_number: 4 });
    expect(json.data).toMatchObject({ number: 4, draft: true, changed_files: 3 });
  });

  it('answers 406 for more than 300 files', async () => {
    const files = Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`many/f${i}.txt`, `${i}\n`]));
    h.emulator.commit(REPO, 'agent/wide', { files, from: 'main' });
    await h.emulator.openPullRequest(REPO, {
      number: 5,
      head: 'agent/wide',
      title: 'Wide',
      body: 'Candidate-for: #1',
      user: 'agent',
    });
    await expect(
      h.octokit.pulls.get({ owner: OWNER, repo: NAME, pull_number: 5, mediaType: { format: 'diff' } }),
    ).rejects.toMatchObject({ status: 406 });
  });

  it('reads file contents with the path encoded, and compares branches from the merge base', async () => {
    const { data } = await h.octokit.repos.getContent({
      owner: OWNER,
      repo: NAME,
      path: 'src/app.ts',
      ref: 'agent/many',
    });
    expect('content' in data && Buffer.from(data.content, 'base64').toString()).toContain('line 4 changed');
    await expect(
      h.octokit.repos.getContent({ owner: OWNER, repo: NAME, path: '.github/arbiter.yml' }),
    ).rejects.toMatchObject({ status: 404 });
    const main = h.emulator.branchHead(REPO, 'main');
    const compare = await h.octokit.repos.compareCommitsWithBasehead({
      owner: OWNER,
      repo: NAME,
      basehead: 'main...agent/small',
    });
    expect(compare.data.merge_base_commit.sha).toBe(main);
    expect(compare.data.files?.map((f) => f.filename)).toEqual(['data/huge.txt', 'img/logo.png', 'src/app.ts']);
  });

  it('pages comments', async () => {
    for (let i = 0; i < 5; i++) await h.emulator.comment(REPO, 4, 'someone', `comment ${i}`);
    const page2 = await h.octokit.issues.listComments({
      owner: OWNER,
      repo: NAME,
      issue_number: 4,
      per_page: 2,
      page: 2,
    });
    expect(page2.data.map((c) => c.body)).toEqual(['comment 2', 'comment 3']);
    expect(page2.headers.link).toMatch(/rel="prev"/);
    const all = await h.octokit.paginate(h.octokit.issues.listComments, {
      owner: OWNER,
      repo: NAME,
      issue_number: 4,
      per_page: 2,
    });
    expect(all).toHaveLength(5);
  });
});

describe('a locked conversation', () => {
  it("refuses the app's new comment with GitHub's 403, and still takes a person's", async () => {
    const issue = await h.emulator.openIssue(REPO, {
      number: 900,
      title: 'Locked change',
      body: 'Please build it.',
      user: 'someone',
    });
    await h.emulator.lockIssue(REPO, issue, 'someone');
    await expect(
      h.octokit.issues.createComment({ owner: OWNER, repo: NAME, issue_number: issue, body: 'from the app' }),
    ).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining('Unable to create comment because issue is locked'),
    });
    await h.emulator.comment(REPO, issue, 'maintainer', 'a person with write access');
    const comments = await h.octokit.issues.listComments({ owner: OWNER, repo: NAME, issue_number: issue });
    expect(comments.data.map((c) => c.body)).toEqual(['a person with write access']);
  });
});

describe('faults', () => {
  it('a fault before a write answers the error and leaves the state alone', async () => {
    h.emulator.addFault({
      route: 'POST /repos/{owner}/{repo}/issues/{issue_number}/labels',
      status: 502,
      headers: { 'retry-after': '1' },
    });
    await expect(
      h.octokit.issues.addLabels({ owner: OWNER, repo: NAME, issue_number: 4, labels: ['arbiter:lost'] }),
    ).rejects.toMatchObject({ status: 502, response: { headers: { 'retry-after': '1' } } });
    expect(h.emulator.state(REPO).prs[4].labels).toEqual([]);
    await h.octokit.issues.addLabels({ owner: OWNER, repo: NAME, issue_number: 4, labels: ['arbiter:lost'] });
    expect(h.emulator.state(REPO).prs[4].labels).toEqual(['arbiter:lost']);
    expect(h.emulator.writes.slice(-2).map((w) => w.status)).toEqual([502, 200]);
  });

  it('a fault after a write applies it, then answers the error', async () => {
    const seen: string[] = [];
    h.emulator.onWrite((w) => seen.push(`${w.method} ${w.route} ${w.status}`));
    h.emulator.addFault({
      route: 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
      status: 500,
      when: 'after',
      times: 1,
    });
    await expect(
      h.octokit.pulls.update({ owner: OWNER, repo: NAME, pull_number: 4, state: 'closed' }),
    ).rejects.toMatchObject({ status: 500 });
    expect(h.emulator.state(REPO).prs[4].state).toBe('closed');
    expect(seen).toEqual(['PATCH /repos/{owner}/{repo}/pulls/{pull_number} 500']);
    expect(h.emulator.writes.at(-1)?.summary).toMatch(/^close #4/);
    await settle(h.emulator);
    expect(h.events('pull_request', 'closed').map((p) => p.number)).toEqual([4]);
  });

  it('a GraphQL mutation fault names the operation', async () => {
    h.emulator.addFault({ route: 'POST /graphql markPullRequestReadyForReview', status: 502 });
    const { data } = await h.octokit.pulls.get({ owner: OWNER, repo: NAME, pull_number: 5 });
    h.emulator.commit(REPO, 'agent/draft', { files: { 'd.txt': 'd\n' }, from: 'main' });
    await h.emulator.openPullRequest(REPO, {
      number: 6,
      head: 'agent/draft',
      title: 'D',
      body: '',
      user: 'agent',
      draft: true,
    });
    const six = await h.octokit.pulls.get({ owner: OWNER, repo: NAME, pull_number: 6 });
    const mutation =
      'mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }';
    await expect(h.octokit.graphql(mutation, { id: six.data.node_id })).rejects.toMatchObject({ status: 502 });
    expect(h.emulator.state(REPO).prs[6].draft).toBe(true);
    await h.octokit.graphql(mutation, { id: six.data.node_id });
    expect(h.emulator.state(REPO).prs[6].draft).toBe(false);
    expect(data.number).toBe(5);
    expect(h.emulator.violations).toEqual([]);
  });

  it('PATCH issues on a PR number closes the PR and replaces its labels, with the webhooks GitHub sends', async () => {
    h.emulator.commit(REPO, 'agent/lost', { files: { 'l.txt': 'l\n' }, from: 'main' });
    await h.emulator.openPullRequest(REPO, { number: 7, head: 'agent/lost', title: 'L', body: '', user: 'agent' });
    await h.octokit.issues.addLabels({ owner: OWNER, repo: NAME, issue_number: 7, labels: ['keep', 'waiting'] });
    await settle(h.emulator);
    const before = h.received.length;
    const { data } = await h.octokit.issues.update({
      owner: OWNER,
      repo: NAME,
      issue_number: 7,
      state: 'closed',
      labels: ['keep', 'arbiter:lost'],
    });
    expect(data).toMatchObject({ number: 7, state: 'closed', labels: [{ name: 'keep' }, { name: 'arbiter:lost' }] });
    expect(h.emulator.state(REPO).prs[7]).toMatchObject({ state: 'closed', merged: false });
    expect(h.emulator.state(REPO).prs[7].labels).toEqual(['keep', 'arbiter:lost']);
    expect(h.emulator.writes.at(-1)?.summary).toBe('close #7, label #7 arbiter:lost, unlabel #7 waiting');
    await settle(h.emulator);
    const sent = h.received.slice(before).map((r) => `${r.event}.${String(r.payload.action)}`);
    expect(sent).toEqual(['pull_request.unlabeled', 'pull_request.labeled', 'pull_request.closed']);
    expect(h.emulator.violations).toEqual([]);
  });
});
