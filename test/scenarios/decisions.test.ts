// Decisions that hold up (issue 14) against the real app and the emulator: a person's rejection
// stands and the repair goes to the best remaining candidate; a repair that never arrives asks a
// person with a review request; a rubric tie asks a person; after a 405 the losers stay open;
// shadow mode dispatches, claims and closes nothing and says "would"; two base branches are two
// groups; a retarget moves a candidate and restarts both rounds.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { expectRepairTimeoutViews } from '../support/current-views.ts';
import { expectRendersClean } from '../support/gfm.ts';

const SLOW = { timeout: 420_000 };
const SELECTION = 'Arbiter / selection';
const AWAITING = 'arbiter:awaiting-approval';
const MERGE = '/repos/{owner}/{repo}/pulls/{pull_number}/merge';

const play = async (name: string): Promise<Transcript> =>
  playStory(await loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url))));
const applied = (t: Transcript): string[] => t.writes.filter((w) => w.status < 300).map((w) => w.summary);
const bot = (t: Transcript, num: number): string =>
  (t.prs[String(num)] ?? t.issues[String(num)]).comments
    .filter((c) => c.user === 'arbiter[bot]')
    .map((c) => c.body)
    .join('\n');
const comparisons = (t: Transcript, change: number): string[] =>
  t.issues[String(change)].comments.filter((c) => c.body.includes('comparison of the candidates')).map((c) => c.body);

describe('decisions that hold up', () => {
  it('a rejected candidate is never merged, and the Change repair goes to the best remaining one', SLOW, async () => {
    const t = await play('decisions-reject-open-round');
    expect(t.prs['701']).toMatchObject({ state: 'closed', merged: false });
    expect(t.prs['701'].checks[SELECTION]).toMatchObject({
      status: 'completed',
      conclusion: 'neutral',
      title: 'Rejected',
    });
    // Its own checks do not stay in progress once it left: while its CI ran it was shown none but
    // the selection check (the gate appears once a required check concludes, acceptance with its result).
    for (const name of ['Arbiter / gate', 'Arbiter / acceptance'])
      expect(t.prs['701'].checks[name], name).toBeUndefined();
    expect(bot(t, 701)).toContain(
      'Rejected #701 and closed it (it rewrites the search module we agreed to keep). No repair was started: #701 was not before a person',
    );
    expect(applied(t).filter((s) => s.startsWith('merge '))).toEqual([]);
    expect(t.dispatches).toHaveLength(1);
    expect(t.dispatches[0].client_payload).toMatchObject({ candidate: 702, objective: 'meet AC2' });
    expect(t.prs['702']).toMatchObject({ state: 'open', merged: false });
    expect(comparisons(t, 70).join('\n')).not.toContain('#701');
  });

  it('a repair that never arrives sends the Change to the full human gate with a review request', SLOW, async () => {
    const t = await play('decisions-repair-timeout');
    expectRepairTimeoutViews(t);
    expect(t.dispatches).toHaveLength(1);
    expect(t.prs['101']).toMatchObject({ state: 'open', merged: false, reviewers: ['maintainer'] });
    expect(t.prs['101'].labels).toContain(AWAITING);
    // The same conclusion as a first-round gate, with the Promote button (issue 25).
    expect(t.prs['101'].checks[SELECTION]).toMatchObject({
      conclusion: 'action_required',
      title: 'Repair timed out: a person must decide',
    });
    expect(bot(t, 101)).toContain('The requested repair of #101 did not arrive within 10 minutes.');
    expect(bot(t, 11)).toContain('waits for a person: the requested repair of #101 did not arrive within 10 minutes.');
  });

  it(
    'a push after the human gate moves the candidate on: awaiting-approval goes, and the new head ships',
    SLOW,
    async () => {
      const t = await play('decisions-awaiting-push');
      const writes = applied(t);
      const labelled = writes.indexOf(`label #31 ${AWAITING}`);
      const unlabelled = writes.indexOf(`unlabel #31 ${AWAITING}`);
      expect(labelled).toBeGreaterThanOrEqual(0);
      // The label goes when the push ends its reason, before the new head is even judged.
      expect(unlabelled).toBeGreaterThan(labelled);
      expect(unlabelled).toBeLessThan(writes.indexOf('merge #31'));
      expect(t.prs['31']).toMatchObject({ state: 'closed', merged: true });
      expect(t.prs['31'].labels).not.toContain(AWAITING);
      expect(t.prs['31'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Selected: shipped' });
    },
  );

  it('a rubric tie goes to a person: no PR number picks a winner', SLOW, async () => {
    const t = await play('decisions-rubric-tie');
    expect(applied(t).filter((s) => /^(merge|close) /.test(s))).toEqual([]);
    for (const pr of ['91', '92']) {
      expect(t.prs[pr]).toMatchObject({ state: 'open', merged: false });
      expect(t.prs[pr].labels).toContain(AWAITING);
      expect(t.prs[pr].checks[SELECTION]).toMatchObject({
        conclusion: 'action_required',
        title: 'A person must choose',
      });
    }
    const comparison = comparisons(t, 9).join('\n');
    expect(comparison).toContain('the judge did not settle it (the model judge scored them level)');
    expect(comparison).not.toMatch(/Tie broken|ranks first by evidence|Lost to/);
  });

  it('after a persistent 405 the winner waits for a person and the loser stays open', SLOW, async () => {
    const t = await play('decisions-merge-405');
    expect(t.writes.filter((w) => w.route === MERGE).every((w) => w.status === 405)).toBe(true);
    expect(t.prs['1301']).toMatchObject({ state: 'open', merged: false });
    expect(t.prs['1301'].labels).toContain(AWAITING);
    expect(t.prs['1302']).toMatchObject({ state: 'open', merged: false, labels: [] });
    expect(t.prs['1302'].checks[SELECTION]).toMatchObject({ status: 'completed', title: 'Open: #1301 was not merged' });
    expect(applied(t).filter((s) => s.startsWith('close '))).toEqual([]);
    const comparison = comparisons(t, 13);
    expect(comparison).toHaveLength(1);
    expect(comparison[0]).toContain(
      '#1301 won, but GitHub did not merge it: a person must act. #1302 stays open until a person decides.',
    );
    // What a person reads (the hidden receipt keeps the round's original headline).
    expect(comparison[0].replace(/<!--[\s\S]*?-->/g, '')).not.toContain('It ships');
  });

  it('shadow mode: no dispatch, no repair claimed, no PR changed, and every message says "would"', SLOW, async () => {
    const t = await play('decisions-shadow');
    expect(t.dispatches).toEqual([]);
    expect(applied(t).filter((s) => /^(close|merge|label|unlabel|ready|review|dispatch) /.test(s))).toEqual([]);
    for (const pr of ['2101', '2102'])
      expect(t.prs[pr]).toMatchObject({ state: 'open', merged: false, draft: true, labels: [] });
    // The repair a live run would have requested: said as "would", and still unused (so no timeout fired at 700).
    expect(bot(t, 21)).toContain('Shadow mode: Arbiter would ask for one repair of #2101');
    expect(bot(t, 21)).toContain("the Change's one repair is still unused");
    expect(bot(t, 2102)).toContain(
      'Shadow mode: Arbiter would reject #2102 and close it; no pull request was changed.',
    );
    const said = [
      ...Object.values(t.prs).flatMap((p) => [
        ...p.comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body),
        ...Object.values(p.checks).map((c) => c.title ?? ''),
      ]),
      ...t.issues['21'].comments.map((c) => c.body),
    ];
    expect(said.filter((s) => /\b(requested|closed)\b/i.test(s.replace(/no pull request was changed/g, '')))).toEqual(
      [],
    );
    expect(said.join('\n')).not.toContain('timed out');
  });

  it(
    'shadow mode answers an approving review as it answers promote: what would ship, nothing changed',
    SLOW,
    async () => {
      const approve = await loadScenarioFile(
        fileURLToPath(new URL('../../fixtures/scenarios/shadow-approve.yml', import.meta.url)),
      );
      const promote = {
        ...approve,
        events: [{ at: 8, comment: { on: 31, user: 'maintainer', body: '/arbiter promote' } }],
      };
      const answer = 'Shadow mode: #31 would be promoted now; no pull request was changed.';
      for (const scenario of [approve, promote]) {
        const t = expectRendersClean(await playStory(scenario));
        // The gate said it the shadow way, and the person's act is answered from the same plan.
        expect(bot(t, 31)).toContain('would wait for a person');
        expect(bot(t, 31)).toContain('In live mode, any one of these would ship');
        expect(bot(t, 31)).toContain(answer);
        expect(applied(t).filter((s) => /^(close|merge|label|unlabel|ready|review|dispatch) /.test(s))).toEqual([]);
        expect(t.prs['31']).toMatchObject({ state: 'open', merged: false, draft: true, labels: [] });
      }
    },
  );

  it('candidates on two base branches form two groups, each decided alone', SLOW, async () => {
    const t = await play('decisions-two-bases');
    // main: #801 goes before a person and #802 loses to it.
    expect(t.prs['801'].labels).toContain(AWAITING);
    expect(t.prs['802']).toMatchObject({ state: 'closed', labels: ['arbiter:lost'] });
    expect(t.prs['802'].checks[SELECTION].title).toBe('Lost to #801');
    // release: #803 is alone, so it does not lose to #801 although #801 met more criteria.
    expect(t.prs['803']).toMatchObject({ state: 'open', merged: false });
    expect(t.prs['803'].labels).toContain(AWAITING);
    // One comparison per group on the Change.
    const shown = comparisons(t, 80);
    expect(shown).toHaveLength(2);
    expect(shown.filter((c) => c.includes('#803'))).toHaveLength(1);
    expect(shown.find((c) => c.includes('#803'))).not.toContain('#801');
  });

  it('a retargeted candidate moves to its new group, and both rounds start again', SLOW, async () => {
    const t = await play('decisions-retarget');
    const shown = comparisons(t, 81);
    expect(shown).toHaveLength(2);
    for (const c of shown) expect(c).toContain('(round 2)');
    // The current round of each group (earlier rounds are kept below, collapsed).
    const current = (c: string): string => c.split('<summary>Earlier rounds')[0];
    // Each group's comparison is found by its marker (one comparison per base branch).
    const main = shown.find((c) => c.includes('<!-- arbiter:comparison:81@main -->'))!;
    const release = shown.find((c) => !c.includes('<!-- arbiter:comparison:81@main -->'))!;
    expect(current(main)).toContain('#811');
    expect(current(release)).toContain('#813');
    expect(current(main)).not.toContain('#812');
    expect(current(release)).toContain('#812');
    expect(t.prs['811'].labels).toContain(AWAITING);
    expect(t.prs['812'].labels).toContain(AWAITING);
    expect(t.prs['813']).toMatchObject({ state: 'closed', labels: ['arbiter:lost'] });
    expect(t.prs['813'].checks[SELECTION].title).toBe('Lost to #812');
  });
});

describe('a late sibling', () => {
  it(
    'a PR for a Change that already shipped gets a completed neutral selection check and is closed as stale',
    SLOW,
    async () => {
      const t = await play('decisions-late-sibling');
      expect(t.prs['1001']).toMatchObject({ state: 'closed', merged: true });
      expect(t.prs['1002']).toMatchObject({ state: 'closed', merged: false });
      expect(t.prs['1002'].checks[SELECTION]).toMatchObject({
        status: 'completed',
        conclusion: 'neutral',
        title: '#1001 already shipped for #42',
      });
      expect(bot(t, 1002)).toContain(
        '#1001 already shipped for #42, so this pull request is not compared with anything.',
      );
    },
  );
});
