// Payload normalisation on real webhook examples from @octokit/webhooks-examples.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { SELECTION_CHECK_NAME, buttonTarget, commentTarget } from '../../src/commands/target.ts';

const require = createRequire(import.meta.url);
const examples: {
  name: string;
  examples: Record<string, any>[];
}[] = require('@octokit/webhooks-examples/api.github.com/index.json');
const exampleOf = (name: string, action: string): Record<string, any> =>
  structuredClone(examples.find((e) => e.name === name)!.examples.find((e) => e.action === action)!);

const withInstallation = (p: Record<string, any>): Record<string, any> => ({ ...p, installation: { id: 99 } });

describe('commentTarget', () => {
  it('normalises a created comment on an issue', () => {
    const payload = withInstallation(exampleOf('issue_comment', 'created'));
    const got = commentTarget(payload);
    expect(got).toEqual({
      ok: true,
      target: {
        owner: payload.repository.owner.login,
        repo: payload.repository.name,
        installationId: 99,
        issueNumber: payload.issue.number,
        isPullRequest: false,
        user: payload.comment.user.login,
        userIsBot: false,
        commentId: payload.comment.id,
        commentBody: payload.comment.body,
        source: 'comment',
      },
    });
  });

  it('sees a pull request and a bot author', () => {
    const payload = withInstallation(exampleOf('issue_comment', 'created'));
    payload.issue.pull_request = { url: 'https://api.github.com/repos/o/r/pulls/1' };
    payload.comment.user = { ...payload.comment.user, login: 'other-app[bot]', type: 'Bot' };
    const got = commentTarget(payload);
    expect(got.ok && got.target.isPullRequest).toBe(true);
    expect(got.ok && got.target.userIsBot).toBe(true);
  });

  it('refuses edits, missing installations and malformed payloads with a reason', () => {
    const edited = withInstallation(exampleOf('issue_comment', 'edited'));
    expect(commentTarget(edited)).toEqual({ ok: false, reason: 'comment edited, not created' });
    const noInstallation = exampleOf('issue_comment', 'created');
    delete noInstallation.installation;
    expect(commentTarget(noInstallation)).toMatchObject({ ok: false, reason: expect.stringContaining('installation') });
    expect(commentTarget({ issue: { number: 'one' } })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('issue.number'),
    });
    expect(commentTarget(null).ok).toBe(false);
  });
});

describe('buttonTarget', () => {
  const click = (identifier: string) => {
    const payload = exampleOf('check_run', 'requested_action');
    payload.check_run.name = SELECTION_CHECK_NAME;
    payload.requested_action = { identifier };
    return payload;
  };

  it('normalises a click on the selection check to its pull request and clicker', () => {
    const payload = click('promote');
    const got = buttonTarget(payload);
    expect(got).toEqual({
      ok: true,
      identifier: 'promote',
      target: {
        owner: payload.repository.owner.login,
        repo: payload.repository.name,
        installationId: payload.installation.id,
        issueNumber: payload.check_run.pull_requests[0].number,
        isPullRequest: true,
        user: payload.sender.login,
        userIsBot: false,
        commentId: null,
        commentBody: null,
        source: 'button',
      },
    });
  });

  it("ignores other apps' check runs and says when no pull request is listed", () => {
    const other = exampleOf('check_run', 'requested_action');
    expect(buttonTarget(other)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('is not Arbiter / selection'),
    });
    const fork = click('recheck');
    fork.check_run.pull_requests = [];
    expect(buttonTarget(fork)).toEqual({ ok: false, reason: 'the check run lists no pull request' });
    const completed = exampleOf('check_run', 'completed');
    expect(buttonTarget(completed).ok).toBe(false);
  });
});
