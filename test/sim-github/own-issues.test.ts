// The dashboard's calls through the emulator: an issue opened by the app (with its webhook, sent
// as the app's bot), listed back by creator and state, oldest first, pull requests left out by
// the gateway's reader; a body without a title refused as GitHub's contract says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Octokit } from '../../src/deps.ts';
import { ownIssues } from '../../src/github/own-issues.ts';
import { settle, startHarness, type Harness } from './harness.ts';

const OWNER = 'acme';
const NAME = 'dash';
const REPO = `${OWNER}/${NAME}`;
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({ owner: OWNER, name: NAME, files: { 'README.md': 'hi\n' } });
  await h.emulator.openIssue(REPO, {
    number: 1,
    title: 'Arbiter dashboard',
    body: '<!-- arbiter:dashboard -->',
    user: 'mallory',
  });
  h.emulator.commit(REPO, 'agent/x', { files: { 'a.txt': 'a\n' }, from: 'main' });
  await h.emulator.openPullRequest(REPO, {
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

describe("Arbiter's own issues", () => {
  it('opens, lists by creator (the stranger and the pull request left out) and edits', async () => {
    const port = ownIssues({ octokit: h.octokit as unknown as Octokit, owner: OWNER, repo: NAME }, 'arbiter[bot]');
    expect(await port.listOwn()).toEqual([]);
    const opened = await port.open('Arbiter dashboard', 'first');
    expect(opened).toMatchObject({
      title: 'Arbiter dashboard',
      body: 'first',
      state: 'open',
      user: { login: 'arbiter[bot]' },
    });
    await settle(h.emulator);
    const [event] = h
      .events('issues', 'opened')
      .filter((p) => (p.issue as { number: number }).number === opened.number);
    expect((event?.sender as { login: string }).login).toBe('arbiter[bot]');
    await port.editBody(opened.number, 'second');
    await h.octokit.issues.update({ owner: OWNER, repo: NAME, issue_number: opened.number, state: 'closed' });
    expect(await port.listOwn()).toMatchObject([{ number: opened.number, body: 'second', state: 'closed' }]);
    // GitHub's own list holds pull requests too, and filters by creator and state.
    const all = await h.octokit.issues.listForRepo({ owner: OWNER, repo: NAME, state: 'all', direction: 'asc' });
    expect(all.data.map((i) => i.number)).toEqual([1, 2, opened.number]);
    const open = await h.octokit.issues.listForRepo({ owner: OWNER, repo: NAME, creator: 'mallory' });
    expect(open.data.map((i) => i.number)).toEqual([1]);
  });

  it('refuses an issue without a title (the request is checked against the contract)', async () => {
    await expect(
      h.octokit.request('POST /repos/{owner}/{repo}/issues', { owner: OWNER, repo: NAME, body: 'no title' } as never),
    ).rejects.toMatchObject({ status: 422 });
  });
});
