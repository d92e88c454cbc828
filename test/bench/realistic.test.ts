// The realistic bench's pieces: the CI timeline is what docs/PERFORMANCE.md says it is (15 check
// runs from 3 apps and 2 statuses per head, 3 required, over 10 minutes, one flaky required check
// re-run to green per Change, never on the expected winner), the proxy sends each request to the
// installation it acts for, and only notifying writes count as content-creating.
import { describe, expect, it } from 'vitest';
import { planGroup } from '../../bench/group-scenario.ts';
import { InstallationsProxy } from '../../bench/installations-proxy.ts';
import { ciTimeline, isContentWrite, pacingWaits, spread } from '../../bench/realistic.ts';
import { mulberry32 } from '../../sim/runner/prng.ts';

describe('realistic CI timeline', () => {
  const groups = [planGroup(1, 3), planGroup(5, 3)];
  const events = ciTimeline(4, groups, mulberry32(7));

  it('gives every head 15 check runs from 3 apps and 2 statuses, 3 of them required', () => {
    for (const g of groups)
      for (const pr of g.candidates) {
        const mine = events.filter((e) => e.pr === pr);
        const checks = new Set(mine.filter((e) => e.kind === 'start').map((e) => e.name));
        const apps = new Set(mine.filter((e) => e.kind === 'start').map((e) => e.app));
        const statuses = new Set(mine.filter((e) => e.kind === 'status').map((e) => e.name));
        const required = new Set(mine.filter((e) => e.required).map((e) => e.name));
        expect([checks.size, apps.size, statuses.size]).toEqual([15, 3, 2]);
        expect([...required].sort()).toEqual(['bench', 'lint', 'test']);
        expect(mine.every((e) => e.inst === 4)).toBe(true);
      }
  });

  it('spreads results over ten minutes after the opening, in time order', () => {
    const done = events.filter((e) => e.kind === 'complete' || e.kind === 'status');
    expect(Math.max(...done.map((e) => e.at)) - Math.min(...done.map((e) => e.at))).toBeGreaterThan(300);
    expect(events.map((e) => e.at)).toEqual([...events.map((e) => e.at)].sort((a, b) => a - b));
  });

  it('fails one required check per Change once, re-runs it and passes it, never on the expected winner', () => {
    for (const g of groups) {
      const fails = events.filter((e) => e.kind === 'fail' && g.candidates.includes(e.pr));
      expect(fails).toHaveLength(1);
      const [fail] = fails;
      expect(fail.pr).not.toBe(g.winner);
      expect(fail.required).toBe(true);
      const after = events.filter((e) => e.pr === fail.pr && e.name === fail.name && e.at > fail.at).map((e) => e.kind);
      expect(after).toEqual(['rerun', 'complete']);
    }
  });
});

describe('installations proxy', () => {
  const proxy = new InstallationsProxy([
    { installationId: 1, owner: 'org1', url: 'http://a' },
    { installationId: 2, owner: 'org2', url: 'http://b' },
  ]);

  it('routes by the installation of a token path, then by the owner of a repository path', () => {
    expect(proxy.upstreamOf('/api/v3/app/installations/2/access_tokens', 'bearer jwt')?.url).toBe('http://b');
    expect(proxy.upstreamOf('/api/v3/repos/org1/app/pulls/3', undefined)?.url).toBe('http://a');
    expect(proxy.upstreamOf('/api/v3/app', 'bearer jwt')).toBeNull();
  });

  it('routes an unknown installation token nowhere rather than to a guess', () => {
    expect(proxy.upstreamOf('/api/graphql', 'token ghs_unknown')).toBeNull();
  });
});

describe('figures', () => {
  it('counts only the notifying writes of the throttling plugin as content-creating', () => {
    expect(isContentWrite({ method: 'POST', route: '/repos/{owner}/{repo}/issues/{issue_number}/comments' })).toBe(
      true,
    );
    expect(isContentWrite({ method: 'PUT', route: '/repos/{owner}/{repo}/pulls/{pull_number}/merge' })).toBe(true);
    expect(isContentWrite({ method: 'PATCH', route: '/repos/{owner}/{repo}/check-runs/{check_run_id}' })).toBe(false);
    expect(isContentWrite({ method: 'PATCH', route: '/repos/{owner}/{repo}/issues/{issue_number}' })).toBe(false);
  });

  it('takes the median and the 95th percentile by rank', () => {
    expect(spread([])).toEqual({ median: null, p95: null, max: null });
    expect(spread([5, 1, 3, 2, 4])).toEqual({ median: 3, p95: 5, max: 5 });
  });

  it("reads each installation's pacing wait from /metrics", () => {
    const text = [
      'arbiter_github_pacing_wait_seconds_total{installation="installation-1",bucket="writes"} 1.5',
      'arbiter_github_pacing_wait_seconds_total{installation="installation-1",bucket="content"} 0.5',
      'arbiter_github_pacing_wait_seconds_total{installation="installation-2",bucket="writes"} 0',
    ].join('\n');
    expect(pacingWaits(text)).toEqual({ 'installation-1': 2, 'installation-2': 0 });
  });
});
