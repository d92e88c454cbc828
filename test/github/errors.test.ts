// GitHubError keeps GitHub's whole message: every GraphQL `errors[]` entry (message, type, path),
// not Octokit's first line "Request failed due to following response errors:".
import { describe, expect, it } from 'vitest';
import { GitHubError, wrapGitHubError } from '../../src/github/errors.ts';

/** Octokit's GraphqlResponseError, as @octokit/graphql builds it. */
class GraphqlResponseError extends Error {
  override readonly name = 'GraphqlResponseError';
  constructor(readonly errors: { message: string; type?: string; path?: string[] }[]) {
    super(`Request failed due to following response errors:\n${errors.map((e) => ` - ${e.message}`).join('\n')}`);
  }
}

describe('wrapGitHubError', () => {
  it('keeps every GraphQL error with its type and path', () => {
    const error = wrapGitHubError(
      'enable auto-merge',
      new GraphqlResponseError([
        {
          type: 'UNPROCESSABLE',
          path: ['enablePullRequestAutoMerge'],
          message: 'Pull request Auto merge is not allowed for this repository',
        },
        { type: 'FORBIDDEN', path: ['other'], message: 'Resource not accessible by integration' },
      ]),
    );
    expect(error).toBeInstanceOf(GitHubError);
    expect(error.message).toContain(
      'UNPROCESSABLE at enablePullRequestAutoMerge: Pull request Auto merge is not allowed for this repository',
    );
    expect(error.message).toContain('FORBIDDEN at other: Resource not accessible by integration');
    expect(error.message).not.toContain('Request failed due to following response errors');
    expect(error.graphqlErrors).toEqual([
      {
        type: 'UNPROCESSABLE',
        path: ['enablePullRequestAutoMerge'],
        message: 'Pull request Auto merge is not allowed for this repository',
      },
      { type: 'FORBIDDEN', path: ['other'], message: 'Resource not accessible by integration' },
    ]);
    expect(error.githubWords).toBe(
      'Pull request Auto merge is not allowed for this repository; Resource not accessible by integration',
    );
    expect(error.transient).toBe(false);
  });

  it('a RATE_LIMITED entry in a 200 is a rate limit, paced until the reset (else a minute), never a refusal', () => {
    const words = 'API rate limit exceeded for installation ID 1.';
    const plain = wrapGitHubError('read group', new GraphqlResponseError([{ type: 'RATE_LIMITED', message: words }]));
    expect(plain).toMatchObject({ rateLimited: true, transient: true, retryAfter: 60 });
    expect(plain.githubWords).toBe(words);
    // As the throttling plugin throws it: its own line, GitHub's answer as `data`, the headers on `response`.
    const date = 'Thu, 01 Jan 2026 00:00:00 GMT';
    const throttled = Object.assign(new Error('GraphQL Rate Limit Exceeded'), {
      data: { data: null, errors: [{ type: 'RATE_LIMITED', message: words }] },
      response: {
        headers: {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Date.parse(date) / 1000 + 90),
          date,
        },
      },
    });
    const error = wrapGitHubError('read group', throttled);
    expect(error).toMatchObject({ rateLimited: true, transient: true, retryAfter: 90 });
    expect(error.githubWords).toBe(words);
    // Any other GraphQL error in a 200 stays a refusal.
    const other = wrapGitHubError('x', new GraphqlResponseError([{ type: 'FORBIDDEN', message: 'no' }]));
    expect(other).toMatchObject({ rateLimited: false, transient: false, retryAfter: null });
  });

  it('keeps every line of a REST message', () => {
    const rest = Object.assign(
      new Error('Repository rule violations found\n\nRequired status check "test" is expected.'),
      { status: 405 },
    );
    const error = wrapGitHubError('merge', rest);
    expect(error.status).toBe(405);
    expect(error.githubWords).toBe('Repository rule violations found Required status check "test" is expected.');
  });
});
