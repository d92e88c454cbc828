// The port's branches.findPullFrom against the emulator: the combined build finds only the pull request Arbiter itself
// opened from its branch into the expected base, never one someone else opened from that branch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { GitHubGateway } from '../../src/github/gateway.ts';
import { startHarness, type Harness } from '../sim-github/harness.ts';
import { arbiterOctokit } from '../../src/github/client.ts';

const REPO = 'acme/combined';
let h: Harness;
let gh: GitHubGateway;

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({ owner: 'acme', name: 'combined', files: { 'a.ts': 'export {};\n' } });
  h.emulator.commit(REPO, 'release', { files: { 'r.ts': 'r\n' }, from: 'main' });
  h.emulator.commit(REPO, 'arbiter/combine-7', { files: { 'c.ts': 'c\n' }, from: 'main' });
  const { data } = await new (arbiterOctokit())({ auth: { token: h.jwt() }, baseUrl: h.emulator.url }).request(
    'POST /app/installations/{installation_id}/access_tokens',
    { installation_id: 1 },
  );
  const Octokit = arbiterOctokit();
  gh = new GitHubGateway(
    new Octokit({ auth: { token: data.token }, baseUrl: h.emulator.url }),
    'acme',
    'combined',
    'arbiter',
    systemClock,
  );
});
afterAll(async () => h?.stop());

describe('findPullFrom', () => {
  it("skips a pull request someone else opened from Arbiter's branch, or one into another base", async () => {
    await h.emulator.openPullRequest(REPO, {
      number: 20,
      head: 'arbiter/combine-7',
      title: 'mine now',
      body: '',
      user: 'mallory',
    });
    expect(await gh.branches.findPullFrom('arbiter/combine-7', 'main')).toBeNull();
    await h.emulator.openPullRequest(REPO, {
      number: 21,
      head: 'arbiter/combine-7',
      base: 'release',
      title: 'other base',
      body: '',
      user: 'arbiter[bot]',
    });
    expect(await gh.branches.findPullFrom('arbiter/combine-7', 'main')).toBeNull();
    await h.emulator.openPullRequest(REPO, {
      number: 22,
      head: 'arbiter/combine-7',
      title: 'combined',
      body: '',
      user: 'arbiter[bot]',
    });
    expect((await gh.branches.findPullFrom('arbiter/combine-7', 'main'))?.number).toBe(22);
  });
});
