// Selection scenarios of issue 4 and 5 against the real app and the emulator: a 409 on merge
// starts a new round and is never reported as a merge; a sibling opened after the decision
// starts a new round; shadow mode changes no PR state; an exhausted budget is a gap shown in
// the acceptance check's table. (The showcase's check run with its table and verified
// annotations is asserted on the one showcase run in scenarios.test.ts.)
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { GitHubEmulator } from '../../sim/github/index.ts';
import { loadScenarioFile, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { expectRendersClean } from '../support/gfm.ts';

const SLOW = { timeout: 240_000 };
const SELECTION = 'Arbiter / selection';
const MERGE = '/repos/{owner}/{repo}/pulls/{pull_number}/merge';
const load = (name: string) =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const prStateWrites = (t: Transcript) =>
  t.writes.filter((w) => /^(close|merge|label|ready|unlabel|review)/.test(w.summary));

describe('selection scenarios', () => {
  it('a 409 on merge reports no merge, starts round 2, and the re-verified head ships once', SLOW, async () => {
    const t = expectRendersClean(await playStory(await load('selection-head-moved')));
    const merges = t.writes.filter((w) => w.route === MERGE);
    expect(merges.map((w) => w.status)).toEqual([409, 200]);
    expect(t.prs['61']).toMatchObject({ state: 'closed', merged: true });
    expect(t.prs['61'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Selected: shipped' });
    const comparison = t.issues['7'].comments.find((c) => c.body.includes('comparison of the candidates'));
    expect(comparison?.body).toContain('(round 2)');
  });

  it('a sibling that opens after the decision starts a new round, which it wins', SLOW, async () => {
    const t = expectRendersClean(await playStory(await load('selection-late-sibling')));
    expect(t.prs['72']).toMatchObject({ merged: true });
    expect(t.prs['71']).toMatchObject({ state: 'closed', merged: false });
    expect(t.prs['71'].labels).toEqual(['arbiter:lost']);
    expect(t.prs['71'].comments.map((c) => c.body).join('\n')).toContain(
      'AC2 (The search ignores upper and lower case)',
    );
    expect(t.prs['71'].checks[SELECTION].title).toBe('Lost to #72');
    expect(t.issues['8'].comments.filter((c) => c.body.includes('comparison of the candidates'))).toHaveLength(1);
    expect(t.issues['8'].comments[0].body).toContain('(round 2)');
  });

  it('shadow mode comments the decision and changes no pull request', SLOW, async () => {
    const t = expectRendersClean(await playStory(await load('selection-shadow')));
    expect(prStateWrites(t)).toEqual([]);
    for (const pr of ['81', '82'])
      expect(t.prs[pr]).toMatchObject({ state: 'open', merged: false, draft: true, labels: [] });
    expect(t.prs['82'].checks[SELECTION].title).toBe('Shadow: would ship');
    expect(t.issues['9'].comments[0].body).toContain('Shadow mode: this is what Arbiter would do');
    expect(t.dispatches).toEqual([]);
  });

  it('an exhausted model budget is a gap, shown in the table, and nothing ships on its own', SLOW, async () => {
    let detail: ReturnType<GitHubEmulator['checkRunDetail']> = null;
    const t = expectRendersClean(
      await playStory(await load('acceptance-budget'), {
        inspect: (gh) => (detail = gh.checkRunDetail('acme/todo', 91, 'Arbiter / acceptance')),
      }),
    );
    expect(detail).toMatchObject({ status: 'completed', conclusion: 'neutral' });
    expect(detail!.summary).toMatch(/⚠️/);
    expect(detail!.summary).toMatch(/budget/i);
    expect(t.prs['91']).toMatchObject({ state: 'open', merged: false });
    expect(t.prs['91'].labels).toContain('arbiter:awaiting-approval');
  });
});
