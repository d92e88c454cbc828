// A `.github/arbiter.yml` that was broken before Arbiter was installed (no push ever checks it):
// the first events show the failing `Arbiter / config` check on the default branch's head and on the
// head of a pull request that links a Change, naming the line, and a command is answered with the
// problem. Nothing else happens: no selection check, no merge.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GitHubEmulator } from '../../sim/github/index.ts';
import { loadScenarioFile, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { structureOf } from '../support/gfm.ts';

const CONFIG = 'Arbiter / config';

describe('config-invalid-at-install', () => {
  let t: Transcript;
  let mainChecks: ReturnType<GitHubEmulator['checksOn']> = [];

  beforeAll(async () => {
    const s = await loadScenarioFile(
      fileURLToPath(new URL('../../fixtures/scenarios/config-invalid-at-install.yml', import.meta.url)),
    );
    t = await playStory(s, {
      inspect: (gh) => void (mainChecks = gh.checksOn(s.repo, gh.branchHead(s.repo, 'main') ?? '')),
    });
  }, 300_000);

  it("shows the failing config check on the default branch's head, naming the line", () => {
    const config = mainChecks.find((c) => c.name === CONFIG && c.app === 'arbiter');
    expect(config, 'Arbiter / config on main').toMatchObject({ conclusion: 'failure' });
    expect(config?.summary ?? '').toContain('gate.requird (line 2)');
  });

  it('shows it on the head of the pull request that links the Change, and does nothing else there', () => {
    const pr = t.prs['12'];
    expect(pr.checks[CONFIG]).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(pr.checks[CONFIG].summary ?? '').toContain('gate.requird (line 2)');
    expect(Object.keys(pr.checks).filter((n) => n.startsWith('Arbiter /'))).toEqual([CONFIG]);
    expect(pr).toMatchObject({ state: 'open', merged: false });
  });

  it('answers a command with the problem and where to fix it', () => {
    const replies = t.issues['42'].comments.filter((c) => c.user === 'arbiter[bot]');
    expect(replies).toHaveLength(1);
    const { visible } = structureOf(replies[0].body);
    expect(visible).toContain('/arbiter status');
    expect(visible).toContain('@maintainer');
    expect(visible).toContain('.github/arbiter.yml');
    expect(visible).toContain('gate.requird (line 2)');
    expect(visible).toContain('Arbiter / config');
  });
});
