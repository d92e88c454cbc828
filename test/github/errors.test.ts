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
