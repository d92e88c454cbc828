// The combined candidate and its parents (issue 24, DESIGN.md section 6) against the real app and
// the emulator: a parent's new head is merged into the combined PR before it is decided (or, when
// it conflicts, the combined PR closes and the parents are compared alone); a combined PR that goes
// to a person leaves both parents open until it merges, and a person who rejects it can still
// choose a parent.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { duplicateWrites } from '../reliability/helpers.ts';

const SLOW = { timeout: 600_000 };
const SELECTION = 'Arbiter / selection';
const MERGES = '/repos/{owner}/{repo}/merges';
const REPO = 'acme/planner';

const load = (name: string) =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const merges = (t: Transcript) => t.writes.filter((w) => w.method === 'POST' && w.route === MERGES);
const commentsOn = (t: Transcript, n: string) => t.prs[n].comments.map((c) => c.body).join('\n');
const changeComments = (t: Transcript) => t.issues['42'].comments.map((c) => c.body).join('\n');

interface Played {
  t: Transcript;
  /** #13's head at the end. */
  head13: string;
  /** Whether #43's last head holds #13's head (a merge brought it there). */
  combinedHolds13: boolean;
  /** `src/search.ts` on main at the end, and at #13's head. */
  search: { main: string | null; head13: string | null };
}

async function play(s: Scenario): Promise<Played> {
  let head13 = '';
  let combinedHolds13 = false;
  const search: Played['search'] = { main: null, head13: null };
  const t = await playStory(s, {
    quietTimeoutMs: 300_000,
    inspect: (gh) => {
      head13 = gh.pullHead(REPO, 13);
      combinedHolds13 = gh.isAncestor(REPO, head13, gh.pullHead(REPO, 43));
      search.main = gh.fileAt(REPO, 'main', 'src/search.ts');
      search.head13 = gh.fileAt(REPO, head13, 'src/search.ts');
    },
  });
  return { t, head13, combinedHolds13, search };
}

describe('combined-parent-pushes: #13 pushes a fix after #43 was built from its first head', () => {
  // Expected, written before the run: the combined branch gets a third merge (#13's new head),
  // #43's CI runs again on that head and the round waits for it; the #43 that merges holds #13's
  // new head, so main has the fix; #12 and #13 close "Combined into #43" only after that merge.
  let played: Played;
  beforeAll(async () => {
    played = await play(await load('combined-parent-pushes'));
  }, SLOW.timeout);

  it('rebuilds #43 from #13 new head, and the #43 that ships holds it', () => {
    const { t, head13, combinedHolds13, search } = played;
    const applied = merges(t).filter((w) => w.status === 201);
    expect(applied).toHaveLength(3);
    expect(applied[2].summary).toContain(`merge ${head13.slice(0, 12)} into arbiter/combined/42`);
    expect(t.prs['43']).toMatchObject({ state: 'closed', merged: true });
    // The merged #43 holds #13's new head, and main has its fix (squash-merged: the same text).
    expect(combinedHolds13).toBe(true);
    expect(search.main).toContain('const typed = query.trim().toLowerCase();');
    expect(search.main).toBe(search.head13);
    // The acceptance that shipped #43 quotes the fix itself: judged on the rebuilt head.
    expect(t.prs['43'].checks['Arbiter / acceptance']).toMatchObject({ conclusion: 'success' });
    for (const pr of ['12', '13']) {
      expect(t.prs[pr]).toMatchObject({ state: 'closed', merged: false });
      expect(t.prs[pr].checks[SELECTION]).toMatchObject({ title: 'Combined into #43' });
    }
    expect(duplicateWrites(t)).toEqual([]);
  });

  it('decides only once, on the rebuilt head', () => {
    const { t } = played;
    expect(t.issues['42'].comments.filter((c) => c.body.includes('comparison of the candidates'))).toHaveLength(1);
    expect(changeComments(t)).toMatch(/#43 wins: met 3 of 3 criteria/);
  });
});

describe('combined-parent-conflicts: #13 new head conflicts with #43', () => {
  // Expected, written before the run: the rebuild merge answers 409; #43 closes unmerged with the
  // reason (on #43 and on the Change); the round is decided on #12 and #13 alone, with #13's new
  // head in it; nothing is closed "Combined into", and #12, the best, gets the repair.
  let t: Transcript;
  beforeAll(async () => {
    ({ t } = await play(await load('combined-parent-conflicts')));
  }, SLOW.timeout);

  it('closes #43 with the reason, and no combined PR ships', () => {
    expect(merges(t).map((w) => w.status)).toEqual([201, 201, 409]);
    expect(t.prs['43']).toMatchObject({ state: 'closed', merged: false });
    expect(t.prs['43'].checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Closed: #13 moved on' });
    const why =
      /The combined candidate #43 was closed: #13 moved on after #43 was built, and its new head [0-9a-f]{7} conflicts with the rest of #43\. #12 and #13 are compared on their own\./;
    expect(commentsOn(t, '43')).toMatch(why);
    expect(changeComments(t)).toMatch(why);
  });

  it('compares the parents on their own: #13 new head is judged, #12 gets the repair', () => {
    expect(t.prs['12']).toMatchObject({ state: 'open' });
    expect(t.prs['12'].checks[SELECTION]).toMatchObject({ title: 'Repair requested' });
    expect(t.prs['13'].checks[SELECTION]).toMatchObject({ title: 'Lost to #12' });
    for (const pr of ['12', '13']) expect(commentsOn(t, pr)).not.toContain('Combined into');
    expect(t.dispatches.map((d) => d.event_type)).toEqual(['arbiter.repair']);
    expect(duplicateWrites(t)).toEqual([]);
  });
});

describe('combined-to-person: #43 is high risk (#13 edits the CI workflow) and waits for a person', () => {
  let person: Scenario;
  beforeAll(async () => {
    person = await load('combined-to-person');
  });

  it('leaves #12 and #13 open, held as parts of #43, while #43 waits', SLOW, async () => {
    // Expected, written before the run: #43 is before a person (awaiting approval); #12 and #13
    // are open, unlabelled, and their selection checks say they are held as parts of #43 and can
    // still be chosen; the comparison says so too; nothing is closed "Combined into".
    const { t } = await play({ ...person, events: [] });
    expect(t.prs['43']).toMatchObject({ state: 'open', labels: ['arbiter:awaiting-approval'] });
    expect(t.prs['43'].checks[SELECTION]).toMatchObject({ conclusion: 'action_required' });
    for (const pr of ['12', '13']) {
      expect(t.prs[pr]).toMatchObject({ state: 'open', merged: false, labels: [] });
      expect(t.prs[pr].checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Held as part of #43' });
      expect(t.prs[pr].checks[SELECTION].summary).toContain('`/arbiter promote` here');
      expect(commentsOn(t, pr)).not.toContain('Combined into');
    }
    expect(changeComments(t)).toContain('Held as part of #43: open until #43 merges');
  });

  it('closes #12 and #13 "Combined into #43" once the maintainer promotes #43 and it merges', SLOW, async () => {
    // Expected, written before the run: the promote at t=8 merges #43; then, and only then, #12
    // and #13 close as combined into it.
    const { t } = await play(person);
    expect(t.prs['43']).toMatchObject({ state: 'closed', merged: true });
    for (const pr of ['12', '13']) {
      expect(t.prs[pr]).toMatchObject({ state: 'closed', merged: false });
      expect(t.prs[pr].checks[SELECTION]).toMatchObject({ title: 'Combined into #43' });
      expect(commentsOn(t, pr)).toContain('Combined into #43');
    }
    expect(duplicateWrites(t)).toEqual([]);
  });

  it('a person who rejects #43 can still promote #12, which ships', SLOW, async () => {
    // Expected, written before the run: the rejection closes #43 (Arbiter's own build takes no
    // repair) and the parents are compared again; the maintainer's promote of #12 merges it.
    const events = [
      { at: 8, comment: { on: 43, user: 'maintainer', body: '/arbiter reject The CI workflow change is not wanted' } },
      { at: 10, comment: { on: 12, user: 'maintainer', body: '/arbiter promote' } },
    ];
    const { t } = await play({ ...person, events });
    expect(t.prs['43']).toMatchObject({ state: 'closed', merged: false });
    expect(t.prs['43'].checks[SELECTION]).toMatchObject({ title: 'Rejected' });
    expect(commentsOn(t, '43')).toContain('is the combined candidate Arbiter built, which no agent repairs');
    expect(t.prs['12']).toMatchObject({ state: 'closed', merged: true });
    expect(t.prs['12'].checks[SELECTION]).toMatchObject({ title: 'Promoted by @maintainer' });
    expect(commentsOn(t, '13')).not.toContain('Combined into');
    expect(duplicateWrites(t)).toEqual([]);
  });
});
