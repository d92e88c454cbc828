// The scenario format's further repositories (`repos:`, a candidate's `repo`): accepted with their
// defaults, a candidate in another repository names the Change in full by default, bad files get
// `path: message` lines, and the transcript names PRs of other repositories `owner/name#N`.
import { describe, expect, it } from 'vitest';
import { baseBranches, parseScenario, repoOf } from '../../sim/scenario-schema.ts';
import { renderFinalState, verdictLine, type Transcript } from '../../sim/runner/transcript.ts';

const base = {
  repo: 'acme/app',
  repos: [{ repo: 'acme/api', config: 'gate: { required: [test] }\n', users: { dev: 'write' } }],
  change: { number: 42, title: 'T', body: '' },
  candidates: [
    { number: 7, repo: 'acme/api', branch: 'agent/api', base: 'release' },
    { number: 12, branch: 'agent/app' },
  ],
};

describe('further repositories in a scenario', () => {
  it('fills defaults per repository and names the Change in full for a candidate elsewhere', () => {
    const r = parseScenario(base);
    if (!r.ok) throw new Error(r.errors.join('\n'));
    const s = r.scenario;
    expect(s.repos[0]).toMatchObject({
      repo: 'acme/api',
      defaultBranch: 'main',
      files: {},
      users: { dev: { permission: 'write', bot: false } },
      allowAutoMerge: false,
    });
    expect(s.candidates.find((c) => c.number === 7)?.body).toBe('Candidate-for: acme/app#42');
    expect(s.candidates.find((c) => c.number === 12)?.body).toBe('Candidate-for: #42');
    expect(repoOf(s, 7)).toBe('acme/api');
    expect(repoOf(s, 12)).toBe('acme/app');
    expect(repoOf(s, 42)).toBe('acme/app');
    // A base named by a candidate of another repository is cut there, not in the scenario's own.
    expect(baseBranches(s)).toEqual([]);
    expect(baseBranches(s, 'acme/api')).toEqual(['release']);
  });

  it('accepts the same branch name in two repositories', () => {
    const r = parseScenario({
      ...base,
      candidates: [
        { number: 7, repo: 'acme/api', branch: 'agent/x' },
        { number: 12, branch: 'agent/x' },
      ],
    });
    expect(r.ok).toBe(true);
  });

  it('answers a candidate in an unknown repository, and a repository listed twice, by path', () => {
    const r = parseScenario({
      ...base,
      repos: [...base.repos, { repo: 'acme/app' }],
      candidates: [{ number: 7, repo: 'acme/nowhere', branch: 'agent/x' }],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toContain('repos.1.repo: acme/app is already a repository here');
    expect(r.errors).toContain("candidates.0.repo: acme/nowhere is neither the scenario's repo nor one of repos");
  });

  it('a file written before `repos` existed parses as before', () => {
    const r = parseScenario({ repo: 'acme/app', change: { number: 1, title: 'T', body: '' } });
    expect(r.ok && r.scenario.repos).toEqual([]);
  });

  it('the readable final state names a PR of another repository owner/name#N, after the scenario’s own', () => {
    const pr = {
      state: 'closed',
      merged: true,
      draft: false,
      labels: [],
      reviewers: [],
      checks: {},
      comments: [],
      reactions: [],
    };
    const t: Transcript = {
      writes: [],
      prs: { 'acme/api#7': pr, '12': { ...pr, merged: false, labels: ['arbiter:lost'] } },
      issues: {},
      dispatches: [],
      restarts: [],
    };
    const lines = renderFinalState(t, 42).filter((l) => /^ {2}\S/.test(l));
    expect(lines).toEqual(['  #12  closed   labels: arbiter:lost', '  acme/api#7  merged   labels: -']);
    expect(verdictLine(t)).toMatch(/^Winner: acme\/api#7 shipped \(merged\)\. Closed #12/);
  });
});
