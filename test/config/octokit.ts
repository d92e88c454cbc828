// The configuration's GitHub port over the production client (src/github/client.ts), for nock
// tests: its pacing lets a test's few requests through at once.
import type { ConfigPort } from '../../src/config/port.ts';
import { configReads } from '../../src/github/config-reads.ts';
import { arbiterOctokit } from '../../src/github/client.ts';

const TestOctokit = arbiterOctokit();

export const makeGitHub = (): ConfigPort => configReads(new TestOctokit({ auth: { token: 'test' } }));

export const API = 'https://api.github.com';
/** Octokit sends `/` inside the `{path}` parameter encoded as %2F. */
export const CONTENTS = (owner: string, repo: string) => `/repos/${owner}/${repo}/contents/.github%2Farbiter.yml`;
