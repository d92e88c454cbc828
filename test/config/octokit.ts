// The configuration's GitHub port over a real Probot octokit, for nock tests: retries and
// throttling off, so tests never wait.
import { ProbotOctokit } from 'probot';
import { configReads, type ConfigPort } from '../../src/github/config-reads.ts';

const TestOctokit = ProbotOctokit.defaults((o: Record<string, unknown> & { throttle?: Record<string, unknown> }) => ({
  ...o,
  retry: { enabled: false },
  throttle: { ...o?.throttle, enabled: false },
}));

export const makeGitHub = (): ConfigPort => configReads(new TestOctokit({ auth: { token: 'test' } }));

export const API = 'https://api.github.com';
/** Octokit sends `/` inside the `{path}` parameter encoded as %2F. */
export const CONTENTS = (owner: string, repo: string) => `/repos/${owner}/${repo}/contents/.github%2Farbiter.yml`;
