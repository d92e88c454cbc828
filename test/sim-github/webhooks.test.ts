// Webhooks as GitHub sends them: signed, with delivery ids, valid against the published schemas
// across a flow of people's acts, CI and the app's own writes; a push resets a head's checks;
// held deliveries can be redelivered byte for byte.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateWebhook } from '../../sim/github/webhook-schemas.ts';
import { settle, startHarness, type Harness } from './harness.ts';

const REPO = 'acme/hooks';
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({
    owner: 'acme',
    name: 'hooks',
    files: { 'public/index.html': '<html></html>\n' },
    users: { maintainer: { permission: 'maintain' } },
    rules: { required: ['test'] },
  });
});

afterAll(async () => {
  await h.stop();
});

describe('a small flow', () => {
  it('sends signed, schema-valid webhooks for every act, with the app as sender of its own', async () => {
    await h.emulator.openIssue(REPO, {
      number: 1,
      title: 'Calendar',
      body: '## Acceptance criteria\n- a calendar',
      user: 'maintainer',
    });
    h.emulator.commit(REPO, 'agent/cal', { files: { 'src/cal.ts': 'export const cal = 1;\n' }, from: 'main' });
    await h.emulator.openPullRequest(REPO, {
      number: 2,
      head: 'agent/cal',
      title: 'Calendar',
      body: 'Candidate-for: #1',
      user: 'agent-bot',
      draft: true,
      labels: ['candidate'],
    });
    const sha = h.emulator.pullHead(REPO, 2);
    await h.emulator.startCheck(REPO, sha, 'test');
    await h.emulator.completeCheck(REPO, sha, 'test', 'success');
    await h.emulator.setStatus(REPO, sha, 'ci/lint', 'success');
    const { data: run } = await h.octokit.checks.create({
      owner: 'acme',
      repo: 'hooks',
      name: 'Arbiter / selection',
      head_sha: sha,
      status: 'completed',
      conclusion: 'neutral',
      output: { title: 'Needs a person', summary: 'tie' },
      actions: [{ label: 'Promote', description: 'Ship this candidate', identifier: 'promote' }],
    });
    await h.octokit.issues.createComment({ owner: 'acme', repo: 'hooks', issue_number: 1, body: 'comparison' });
    await h.octokit.issues.addLabels({
      owner: 'acme',
      repo: 'hooks',
      issue_number: 2,
      labels: ['arbiter:awaiting-approval'],
    });
    await h.octokit.pulls.requestReviewers({ owner: 'acme', repo: 'hooks', pull_number: 2, reviewers: ['maintainer'] });
    await h.emulator.comment(REPO, 2, 'maintainer', '/arbiter promote');
    await h.emulator.review(REPO, 2, 'maintainer', 'approved');
    await h.emulator.clickButton(REPO, 2, 'maintainer', 'promote');
    await h.emulator.editIssue(REPO, 1, '## Acceptance criteria\n- a calendar\n- a list', 'maintainer');
    await settle(h.emulator);

    const kinds = h.received.map((r) => `${r.event}.${String(r.payload.action ?? '')}`);
    for (const kind of [
      'issues.opened',
      'pull_request.opened',
      'check_run.created',
      'check_run.completed',
      'check_suite.completed',
      'status.',
      'issue_comment.created',
      'pull_request.labeled',
      'pull_request.review_requested',
      'pull_request_review.submitted',
      'check_run.requested_action',
      'issues.edited',
    ])
      expect(kinds).toContain(kind);
    expect(h.received.every((r) => r.signatureValid)).toBe(true);
    expect(new Set(h.received.map((r) => r.delivery)).size).toBe(h.received.length);
    expect(h.received.every((r) => r.userAgent.startsWith('GitHub-Hookshot/'))).toBe(true);
    for (const r of h.received) expect(validateWebhook(r.event, r.payload)).toBeNull();
    expect(h.emulator.violations).toEqual([]);

    const ownRun = h.events('check_run', 'created').find((p) => (p.check_run as { id: number }).id === run.id);
    expect(ownRun?.sender).toMatchObject({ login: 'arbiter[bot]', type: 'Bot' });
    expect(ownRun?.check_run).toMatchObject({ app: { slug: 'arbiter' }, pull_requests: [{ number: 2 }] });
    const ciSuite = h
      .events('check_suite', 'completed')
      .find((p) => (p.check_suite as { app: { slug: string } }).app.slug === 'ci');
    expect(ciSuite?.check_suite).toMatchObject({ head_sha: sha, conclusion: 'success' });
    const click = h.events('check_run', 'requested_action')[0];
    expect(click).toMatchObject({
      requested_action: { identifier: 'promote' },
      sender: { login: 'maintainer' },
      installation: { id: 1 },
    });
    const comment = h
      .events('issue_comment', 'created')
      .find((p) => (p.comment as { body: string }).body === 'comparison');
    expect(comment?.sender).toMatchObject({ login: 'arbiter[bot]' });
    const snapshot = h.emulator.state(REPO);
    expect(snapshot.prs[2]).toMatchObject({
      labels: ['candidate', 'arbiter:awaiting-approval'],
      reviewers: [],
      draft: true,
    });
    expect(snapshot.issues[1].comments).toEqual([{ user: 'arbiter[bot]', body: 'comparison' }]);
    expect(h.emulator.writes.map((w) => w.summary)).toEqual([
      'check-run Arbiter / selection on #2: completed neutral',
      'comment on #1',
      'label #2 arbiter:awaiting-approval',
      'request review on #2 from maintainer',
    ]);
  });

  it('a push to the head sends push and synchronize, and the new head has no checks', async () => {
    const before = h.emulator.pullHead(REPO, 2);
    const count = h.received.length;
    const after = await h.emulator.push(
      REPO,
      'agent/cal',
      { files: { 'src/cal.ts': 'export const cal = 2;\n' } },
      'agent-bot',
    );
    await settle(h.emulator);
    const sent = h.received.slice(count);
    expect(sent.map((r) => `${r.event}.${String(r.payload.action ?? '')}`)).toEqual([
      'push.',
      'pull_request.synchronize',
    ]);
    expect(sent[1].payload).toMatchObject({ before, after, number: 2 });
    const { data } = await h.octokit.checks.listForRef({ owner: 'acme', repo: 'hooks', ref: after });
    expect(data.total_count).toBe(0);
    const old = await h.octokit.checks.listForRef({ owner: 'acme', repo: 'hooks', ref: before });
    expect(old.data.total_count).toBe(2);
    expect(h.emulator.state(REPO).prs[2].checks).toEqual({});
    const status = await h.octokit.repos.getCombinedStatusForRef({ owner: 'acme', repo: 'hooks', ref: after });
    expect(status.data).toMatchObject({ state: 'pending', total_count: 0 });
  });

  it('holds webhooks, then redelivers exactly the held bytes with the same delivery id', async () => {
    h.emulator.holdWebhooks(true);
    await h.emulator.comment(REPO, 1, 'maintainer', 'held');
    const held = h.emulator.takeHeldWebhooks();
    expect(held.map((w) => w.event)).toEqual(['issue_comment']);
    h.emulator.holdWebhooks(false);
    const count = h.received.length;
    expect(await h.emulator.sendWebhook(held[0])).toBe(202);
    expect(await h.emulator.sendWebhook(held[0])).toBe(202);
    const copies = h.received.slice(count);
    expect(copies.map((c) => c.delivery)).toEqual([held[0].id, held[0].id]);
    expect(copies.every((c) => c.body === held[0].body && c.signatureValid)).toBe(true);
    expect(h.emulator.sentWebhooks.at(-1)).toMatchObject({ event: 'issue_comment', action: 'created', status: 202 });
  });

  it('the schema check catches a payload GitHub would never send', () => {
    const good = h.events('issues', 'opened')[0];
    expect(validateWebhook('issues', good)).toBeNull();
    expect(validateWebhook('issues', { ...good, sender: { login: 'x' } })).toMatch(/sender/);
  });
});
