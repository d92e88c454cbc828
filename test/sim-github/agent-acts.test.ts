// The emulator's acts for real agents (issue 30, item 6): a pull request's title edit, an agent's
// review request, GitHub Actions runs that wait for a maintainer's approval (as REST webhooks and
// GraphQL show them, read through Arbiter's own group query), and a check run that concludes
// `action_required` with the `details_url` GitHub requires.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitsWorkflowApproval } from '../../src/core/agent-work.ts';
import { readGroupState, type GraphqlFn } from '../../src/github/group-query.ts';
import { validateWebhook } from '../../sim/github/webhook-schemas.ts';
import { settle, startHarness, type Harness } from './harness.ts';

const REPO = 'acme/agents';
let h: Harness;
let sha = '';

const group = async () => {
  const graphql: GraphqlFn = (query, variables) => h.octokit.graphql(query, variables);
  return (await readGroupState(graphql, 'acme', 'agents', [2], 'arbiter')).get(2)!;
};

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({
    owner: 'acme',
    name: 'agents',
    files: { 'src/app.ts': 'export const app = 1;\n' },
    users: { maintainer: { permission: 'maintain' }, visitor: { permission: 'read' } },
  });
  await h.emulator.openIssue(REPO, { number: 1, title: 'Search', body: 'Search, please.', user: 'maintainer' });
  h.emulator.commit(REPO, 'copilot/search', { files: { 'src/search.ts': 'export const s = 1;\n' }, from: 'main' });
  await h.emulator.openPullRequest(REPO, {
    number: 2,
    head: 'copilot/search',
    title: '[WIP] Search',
    body: '- Fixes #1',
    user: 'Copilot',
    draft: true,
  });
  sha = h.emulator.pullHead(REPO, 2);
});

afterAll(async () => {
  await h.stop();
});

describe("GitHub Actions runs that wait for a maintainer's approval", () => {
  it('complete the Actions suite action_required with no run, as a webhook and in GraphQL', async () => {
    await h.emulator.awaitWorkflowApproval(REPO, sha);
    await settle(h.emulator);
    const suite = h
      .events('check_suite', 'completed')
      .find((p) => (p.check_suite as { app: { slug: string } }).app.slug === 'github-actions');
    expect(suite?.check_suite).toMatchObject({
      head_sha: sha,
      status: 'completed',
      conclusion: 'action_required',
      latest_check_runs_count: 0,
    });
    expect(validateWebhook('check_suite', suite!)).toBeNull();
    // Arbiter's group query: nothing in the rollup, the suite among the head's suites.
    const pull = await group();
    expect(pull.checks).toEqual([]);
    expect(pull.suites).toEqual([
      { app: 'github-actions', status: 'COMPLETED', conclusion: 'ACTION_REQUIRED', runs: 0 },
    ]);
    expect(awaitsWorkflowApproval(pull.suites!)).toBe(true);
    expect(pull.url).toMatch(/\/acme\/agents\/pull\/2$/);
    expect(h.emulator.violations).toEqual([]);
  });

  it('take write access to approve; once approved the runs start and the head waits for nobody', async () => {
    await expect(h.emulator.approveWorkflows(REPO, 2, 'visitor')).rejects.toMatchObject({ status: 403 });
    expect(await h.emulator.approveWorkflows(REPO, 2, 'maintainer')).toBe(sha);
    expect(await h.emulator.approveWorkflows(REPO, 2, 'maintainer')).toBeNull();
    await h.emulator.startCheck(REPO, sha, 'test', 'github-actions');
    await h.emulator.completeCheck(REPO, sha, 'test', 'success', undefined, 'github-actions');
    await settle(h.emulator);
    const pull = await group();
    expect(pull.checks.map((c) => [c.name, c.app, c.outcome])).toEqual([['test', 'github-actions', 'pass']]);
    expect(awaitsWorkflowApproval(pull.suites!)).toBe(false);
  });

  it('a check run that ran and concluded action_required carries a details_url, and is no approval wait', async () => {
    await h.emulator.completeCheck(REPO, sha, 'deploy', 'action_required', undefined, 'github-actions');
    await settle(h.emulator);
    const run = h
      .events('check_run', 'completed')
      .map((p) => p.check_run as { name: string; conclusion: string; details_url: string })
      .find((r) => r.name === 'deploy');
    expect(run).toMatchObject({ conclusion: 'action_required', details_url: expect.stringContaining(sha) });
    const pull = await group();
    expect(pull.checks.find((c) => c.name === 'deploy')).toMatchObject({ raw: 'action_required', outcome: 'fail' });
    expect(awaitsWorkflowApproval(pull.suites!)).toBe(false);
  });
});

describe('an agent that is done', () => {
  it("drops [WIP] from its pull request's title: pull_request.edited with changes.title.from", async () => {
    await h.emulator.editIssue(REPO, 2, { title: 'Search' }, 'Copilot');
    await settle(h.emulator);
    const edited = h.events('pull_request', 'edited').at(-1)!;
    expect(edited).toMatchObject({ changes: { title: { from: '[WIP] Search' } }, pull_request: { title: 'Search' } });
    expect(edited.changes).not.toHaveProperty('body');
    expect(validateWebhook('pull_request', edited)).toBeNull();
    expect((await group()).title).toBe('Search');
  });

  it('requests a review: pull_request.review_requested per reviewer, never from itself', async () => {
    await h.emulator.requestReview(REPO, 2, 'Copilot', ['maintainer']);
    await settle(h.emulator);
    expect(h.events('pull_request', 'review_requested').at(-1)).toMatchObject({
      requested_reviewer: { login: 'maintainer' },
      sender: { login: 'Copilot' },
    });
    await expect(h.emulator.requestReview(REPO, 2, 'Copilot', ['Copilot'])).rejects.toMatchObject({ status: 422 });
    expect(h.emulator.state(REPO).prs[2]!.reviewers).toEqual(['maintainer']);
  });
});
