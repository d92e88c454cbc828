// A Change's selection round and its candidate sets (issue 27), against the real app. What a
// maintainer expects (DESIGN.md sections 2 and 6): a set is one sibling of its Change, so the round
// waits while a set composes (a member has not opened, or an agent is still at work on one: a
// `[WIP]` title, and then the set is not judged either) or verifies (a member's required checks are
// running), each up to `selection.siblingTimeout` as for any sibling; a set whose gate failed is
// unpromotable and holds nothing. A single-repository candidate never ships while a set of its
// Change still composes or verifies.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { renderGfm } from '../support/gfm.ts';
import { loserProblems, transcriptViews, viewProblems } from '../support/views.ts';

const SELECTION = 'Arbiter / selection';
// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = (s: Scenario): Promise<Transcript> => playStory(s);
const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);

describe('the round waits for candidate sets', () => {
  it(
    'while set slow verifies and set stuck composes, #12 waits and names both; set broken holds nothing',
    SLOW,
    async () => {
      // Stopped at t=25, acme/ui#9's check still running (it opened at t=20).
      const s = await load('composite-round-waits');
      const candidates = s.candidates.map((c) =>
        c.repo === 'acme/ui' && c.number === 9 ? { ...c, checks: c.checks.map((k) => ({ ...k, never: true })) } : c,
      );
      const t = await play({ ...s, candidates, events: [], until: 25 });
      expect(t.prs['12']).toMatchObject({ state: 'open', merged: false });
      const waiting = t.prs['12']!.checks[SELECTION]!;
      expect(waiting.status).toBe('in_progress');
      expect(waiting.title).toBe(
        'Waiting on set slow (acme/api#7, acme/ui#9) (CI running), set stuck (acme/api#11, acme/ui#13) (composing)',
      );
      expect(applied(t).filter((w) => w.summary.startsWith('merge '))).toEqual([]);
    },
  );

  it('#12 ships only once set stuck has held the round for the sibling timeout (600 s)', SLOW, async () => {
    const t = await play(await load('composite-round-waits'));
    const merges = applied(t).filter((w) => w.summary.startsWith('merge '));
    expect(merges.map((w) => w.summary)).toEqual(['merge #12']);
    // The sweep at t=300 left the round waiting; the first sweep past t=600 (at t=700) handed it on.
    expect(merges[0]!.at).toBeGreaterThanOrEqual(600);
    expect(t.prs['12']!.checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Selected: shipped' });
    // Set slow settled at t=30: the round read its sets again then (its waiting list changed).
    expect(applied(t).some((w) => w.at === 30 && w.summary === `check-run ${SELECTION} on #12: in_progress`)).toBe(
      true,
    );
    // Each settled set was one candidate that lost to #12: every member closed, labelled lost, with the reason.
    const reasons: Record<string, RegExp> = {
      slow: /^Lost to acme\/app#12: acme\/app#12 met 1 of 1 criterion, this set 0 of 1 criterion\./,
      broken:
        /^Lost to acme\/app#12: this set is unpromotable \(member acme\/ui#10: required check `test` failed\), and acme\/app#12 passed every required check\./,
    };
    const members = { slow: ['acme/api#7', 'acme/ui#9'], broken: ['acme/api#8', 'acme/ui#10'] };
    for (const [set, keys] of Object.entries(members))
      for (const key of keys) {
        const pr = t.prs[key]!;
        expect(pr).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
        expect(pr.checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Lost to acme/app#12' });
        const note = pr.comments.map((c) => c.body).find((b) => b.includes('Lost to'));
        expect(note?.split('\n')[1]).toMatch(reasons[set]!);
        expect(note).toContain(`The set \`${set}\` (${keys.join(', ')}) was one candidate of acme/app#42`);
      }
    // The closures came after the merge.
    const closes = applied(t).filter((w) => /^close /.test(w.summary));
    expect(closes.length).toBe(4);
    for (const c of closes) expect(c.seq).toBeGreaterThan(merges[0]!.seq);
    // The comparison names each set as one candidate, with a link to each member in its repository.
    const comparison = t.issues['42']!.comments.map((c) => c.body).find((b) =>
      b.includes('comparison of the candidates'),
    );
    const html = renderGfm(comparison ?? '');
    expect(html).toMatch(
      /Candidate set <code>slow<\/code> \(<a href="[^"]*\/acme\/api\/pull\/7">acme\/api#7<\/a>, <a href="[^"]*\/acme\/ui\/pull\/9">acme\/ui#9<\/a>\)/,
    );
    expect(html).toContain('met 0 of 1 criterion; every required check of every member passed; ranks below #12');
    expect(html).toMatch(
      /Candidate set <code>broken<\/code> .*: unpromotable \(member acme\/ui#10: required check <code>test<\/code> failed\)/,
    );
    // Set stuck never stood as a candidate (a member never opened): it stays open, composing, never closed.
    expect(t.prs['acme/api#11']).toMatchObject({ state: 'open', merged: false });
    expect(t.prs['acme/api#11']!.checks[SELECTION]!.title).toBe(
      'Composing: set stuck for acme/app#42 waits: acme/ui#13 has not opened',
    );
  });

  it(
    'a member still marked work in progress holds the set like a composing sibling: not judged, not compared, #12 waits',
    SLOW,
    async () => {
      // Stopped at t=90: every member's `test` passed at 2 s, acme/ui#9's title still says `[WIP]`.
      const s = await load('composite-set-wip');
      const t = await play({ ...s, events: [], until: 90 });
      expect(t.prs['12']!.checks[SELECTION]).toMatchObject({
        status: 'in_progress',
        title: 'Waiting on set good (acme/api#7, acme/ui#9) (composing: acme/ui#9 still at work)',
      });
      for (const key of ['acme/api#7', 'acme/ui#9']) {
        // No model call on an interim head: no acceptance check on either member.
        expect(t.prs[key]!.checks['Arbiter / acceptance']).toBeUndefined();
        expect(t.prs[key]!.checks[SELECTION]).toMatchObject({
          status: 'in_progress',
          title: 'Composing: set good for acme/app#42 waits: @Copilot is still working on acme/ui#9',
        });
        expect(t.prs[key]).toMatchObject({ state: 'open', merged: false });
      }
      expect(applied(t).filter((w) => /^(merge|close) /.test(w.summary))).toEqual([]);
    },
  );

  it(
    'once the title drops the marker, the set is judged, wins over #12 and ships its members in order',
    SLOW,
    async () => {
      const t = await play(await load('composite-set-wip'));
      // The members' acceptance checks were written only once the marker was gone.
      const acceptance = applied(t).filter(
        (w) => w.summary.includes('Arbiter / acceptance') && /\/acme\/(api|ui)\//.test(w.path),
      );
      expect(acceptance.length).toBeGreaterThan(0);
      for (const w of acceptance) expect(w.at).toBeGreaterThanOrEqual(100);
      for (const key of ['acme/api#7', 'acme/ui#9']) {
        expect(t.prs[key]!.checks['Arbiter / acceptance']).toMatchObject({ title: 'Set good: 2 of 2 criteria met' });
        expect(t.prs[key]).toMatchObject({ merged: true });
      }
      const merges = applied(t).filter((w) => w.summary.startsWith('merge '));
      expect(merges.map((w) => w.path)).toEqual([
        expect.stringContaining('/acme/api/pulls/7/merge'),
        expect.stringContaining('/acme/ui/pulls/9/merge'),
      ]);
      for (const m of merges) expect(m.at).toBeGreaterThanOrEqual(100);
      expect(t.prs['12']).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
      // What a person reads, as the pictures test reads every fixture: no internal code, and every
      // loser's note says what comes next.
      expect(loserProblems(t)).toEqual([]);
      expect(transcriptViews(t).flatMap(viewProblems)).toEqual([]);
    },
  );

  it(
    'a set above every single-repository candidate whose criterion is not judged goes to a person, naming its members and their order',
    SLOW,
    async () => {
      const t = await play(await load('composite-set-unjudged'));
      // Nothing merged, no repair sent for #12 (the set is better): #12 loses to the set and closes.
      expect(
        applied(t)
          .filter((w) => /^(merge|close) /.test(w.summary))
          .map((w) => w.summary),
      ).toEqual(['close #12, label #12 arbiter:lost']);
      expect(t.dispatches).toEqual([]);
      for (const key of ['acme/api#7', 'acme/ui#9']) {
        const check = t.prs[key]!.checks[SELECTION]!;
        expect(check).toMatchObject({
          status: 'completed',
          conclusion: 'action_required',
          title: 'Best candidate of acme/app#42: a person merges set good (acme/api#7, then acme/ui#9)',
        });
        expect(check.summary).toContain('Not every criterion was met, so Arbiter merged nothing');
        expect(check.details_url).toMatch(/\/acme\/app\/issues\/42$/);
      }
      const comparison = t.issues['42']!.comments.map((c) => c.body).find((b) =>
        b.includes('comparison of the candidates'),
      );
      const html = renderGfm(comparison ?? '');
      expect(html).toMatch(
        /<strong>The best candidate is set <code>good<\/code> \(<a href="[^"]*\/acme\/api\/pull\/7">acme\/api#7<\/a>, <a href="[^"]*\/acme\/ui\/pull\/9">acme\/ui#9<\/a>\): it met 0 of 1 criterion, 1 not judged; .*Not every criterion was met, so Arbiter does not merge it: a person merges its members in order/,
      );
      expect(html).toContain('a person merges its members in order (acme/api#7, then acme/ui#9) or cancels the Change');
      expect(t.prs['12']).toMatchObject({ state: 'closed', labels: ['arbiter:lost'] });
      expect(t.prs['12']!.checks[SELECTION]).toMatchObject({ title: 'Lost to set good' });
      expect(t.prs['12']!.comments.map((c) => c.body).join('\n')).toContain(
        'Lost to set good: this one is unpromotable (required check `test` failed), and set `good` (acme/api#7, acme/ui#9) passed every required check.',
      );
    },
  );
});
