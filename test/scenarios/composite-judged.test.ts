// A candidate set judged and ranked as one candidate (issue 27, "Done when" line 1), against the
// real app: two sets (an acme/api and an acme/ui member each) and a single-repository candidate on
// one Change. What a maintainer expects (DESIGN.md section 6, "Composite candidate"): each set is
// judged by one acceptance call over its members' patches and files, every path prefixed by its
// repository, and shown on each member as an `Arbiter / acceptance` check that says so; a citation
// counts only in the member it names; the set that meets every criterion wins and ships (each member
// merged, in order), and the other set's members and the single candidate close with the reason,
// naming the winning set and its members.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { renderGfm } from '../support/gfm.ts';
import { loserProblems, transcriptViews, viewProblems } from '../support/views.ts';

const SELECTION = 'Arbiter / selection';
const ACCEPTANCE = 'Arbiter / acceptance';
// The run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };

const play = async (name: string): Promise<Transcript> =>
  playStory(await loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url))));
const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);
const note = (t: Transcript, key: string): string =>
  t.prs[key]!.comments.map((c) => c.body).find((b) => b.includes('Lost to')) ?? '';

describe('two candidate sets and a single candidate on one Change', () => {
  it(
    'the set that meets every criterion wins and ships both members in order; the other set and the single candidate close with the reason',
    SLOW,
    async () => {
      const t = await play('composite-set-judged');

      // Each set's acceptance: one judgement over both members, on each member's head.
      for (const key of ['acme/api#7', 'acme/ui#9']) {
        const check = t.prs[key]!.checks[ACCEPTANCE]!;
        expect(check).toMatchObject({ conclusion: 'success', title: 'Set good: 2 of 2 criteria met' });
        expect(check.summary).toContain('Judged as part of the set `good`, one candidate of acme/app#42');
      }
      const good = renderGfm(t.prs['acme/ui#9']!.checks[ACCEPTANCE]!.summary ?? '');
      // Each citation names the member it is verified in.
      expect(good).toContain('<code>acme/api:src/search.ts:1</code>');
      expect(good).toContain('<code>acme/ui:src/box.ts:1</code>');

      // A quote that exists only in the acme/api member, cited in acme/ui, is rejected.
      const half = t.prs['acme/ui#10']!.checks[ACCEPTANCE]!;
      expect(half).toMatchObject({ conclusion: 'neutral', title: 'Set half: 1 of 2 criteria met' });
      expect(renderGfm(half.summary ?? '')).toMatch(
        /<td>AC2<\/td>.*<td>❔ unclear<\/td>\s*<td>citation rejected: the quote does not occur in the cited file or patch<\/td>/s,
      );

      // The winner: set good met every criterion, so it ships: each member merged.
      for (const key of ['acme/api#7', 'acme/ui#9']) {
        expect(t.prs[key]).toMatchObject({ merged: true });
        expect(t.prs[key]!.checks[SELECTION]).toMatchObject({
          conclusion: 'success',
          title: 'Selected: merged (set good)',
        });
      }

      // The losers close, labelled lost, each with the reason naming the winning set and its members.
      expect(t.prs['12']).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
      expect(t.prs['12']!.checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Lost to set good' });
      expect(note(t, '12').split('\n')[1]).toMatch(
        /^Lost to set good: set `good` \(acme\/api#7, acme\/ui#9\) met 2 of 2 criteria, this one 1 of 2 criteria\. /,
      );
      for (const key of ['acme/api#8', 'acme/ui#10']) {
        expect(t.prs[key]).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
        expect(t.prs[key]!.checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Lost to set good' });
        expect(note(t, key).split('\n')[1]).toMatch(
          /^Lost to set `good`: set `good` met 2 of 2 criteria, this set 1 of 2 criteria\. The set `half` \(acme\/api#8, acme\/ui#10\) was one candidate of acme\/app#42; every member closes\./,
        );
      }
      expect(applied(t).filter((w) => /^close /.test(w.summary)).length).toBe(3);
      // Every loser's note ends with what comes next: the set shipped, so nothing else ships for #42.
      expect(loserProblems(t)).toEqual([]);
      // No internal code, evidence id or unrendered table in anything a person reads.
      expect(transcriptViews(t).flatMap(viewProblems)).toEqual([]);
      expect(note(t, 'acme/ui#10')).toMatch(
        /The set `good`'s members acme\/api#7 and acme\/ui#9 shipped for acme\/app#42, so Arbiter ships no other candidate for it on this base branch; this one's branch stays, to reuse by hand\.$/,
      );
      // Both members merged, one at a time in the `Parts:` order (no composite.order), and nothing
      // else. A refusal GitHub gives for a moment (405 while it computes mergeability) is tried again.
      const merges = t.writes.filter((w) => w.method === 'PUT' && w.path.endsWith('/merge'));
      expect(merges.filter((w) => w.status === 200).map((w) => w.path)).toEqual([
        '/repos/acme/api/pulls/7/merge',
        '/repos/acme/ui/pulls/9/merge',
      ]);
      const api = merges.findIndex((w) => w.status === 200);
      expect(merges.slice(api + 1).map((w) => w.path)).not.toContain('/repos/acme/api/pulls/7/merge');
      expect(new Set(merges.map((w) => w.path))).toEqual(
        new Set(['/repos/acme/api/pulls/7/merge', '/repos/acme/ui/pulls/9/merge']),
      );

      // The comparison: the set leads, each set is one candidate, and the ranking table has a row per set.
      const comparison = renderGfm(
        t.issues['42']!.comments.map((c) => c.body).find((b) => b.includes('comparison of the candidates')) ?? '',
      );
      expect(comparison).toMatch(
        /<strong>Shipped set <code>good<\/code> \(<a href="[^"]*\/acme\/api\/pull\/7">acme\/api#7<\/a>, <a href="[^"]*\/acme\/ui\/pull\/9">acme\/ui#9<\/a>\): every member merged, in order \(acme\/api#7, then acme\/ui#9\)/,
      );
      expect(comparison).toMatch(
        /Candidate set <code>half<\/code> .*: met 1 of 2 criteria; every required check of every member passed; ranks below set <code>good<\/code>/,
      );
      // The ranking table, on the winning set's members' checks: #12 and each set as a row of its own.
      const table = renderGfm(t.prs['acme/api#7']!.checks[SELECTION]!.text ?? '');
      expect(table).toMatch(
        /<td>1<\/td>\s*<td>set <code>good<\/code> \(acme\/api#7, acme\/ui#9\)<\/td>\s*<td>✅ passed in every member<\/td>\s*<td>2<\/td>/,
      );
      expect(table).toMatch(/<td>2<\/td>\s*<td>set <code>half<\/code> \(acme\/api#8, acme\/ui#10\)<\/td>/);
      expect(table).toMatch(/<td>2<\/td>\s*<td><a [^>]*>#12<\/a><\/td>/);

      // The selection receipt carries the sets, and replays to the same decision.
      expect(t.receipts?.find((r) => r.kind === 'CANDIDATE_SELECTION')?.replay).toBe('same');
    },
  );
});
