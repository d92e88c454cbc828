// Composite candidates against the real app (issue 27): sets of linked PRs in several repositories
// of one installation. A member whose author has no write access in its own repository keeps its
// set from being a candidate, and its check says why; a set composes until every member listed in
// the first member's `Parts:` line has opened, then stands as one candidate of the Change.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { renderGfm } from '../support/gfm.ts';

const SELECTION = 'Arbiter / selection';
// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = (s: Scenario): Promise<Transcript> => playStory(s);
const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);

describe('composite candidates', () => {
  it(
    'a member whose author cannot write in its repository keeps the set from being a candidate; the other set stands',
    SLOW,
    async () => {
      const t = await play(await load('composite-untrusted-member'));
      // Set "search": acme/ui#9's author dev-b has read access in acme/ui.
      const ui9 = t.prs['acme/ui#9']!.checks[SELECTION]!;
      expect(ui9).toMatchObject({ status: 'completed', conclusion: 'neutral' });
      expect(ui9.title).toMatch(/^Not a candidate: @dev-b has no write access here; a maintainer can admit it/);
      expect(ui9.title).toContain('set search for acme/app#42 is not a candidate');
      const api7 = t.prs['acme/api#7']!.checks[SELECTION]!;
      expect(api7).toMatchObject({ status: 'completed', conclusion: 'neutral' });
      expect(api7.title).toContain('member acme/ui#9: @dev-b has no write access in acme/ui');
      // The summary, rendered as GitHub renders it, lists the members in order.
      const html = renderGfm(api7.summary ?? '');
      expect(html).toMatch(/<ol>\s*<li>acme\/api#7 \(this pull request\)<\/li>\s*<li>acme\/ui#9<\/li>\s*<\/ol>/);
      // Set "fast": both authors trusted; composing until acme/ui#10 opened at t=5, then one candidate.
      for (const key of ['acme/api#8', 'acme/ui#10']) {
        const check = t.prs[key]!.checks[SELECTION]!;
        expect(check).toMatchObject({ status: 'in_progress' });
        expect(check.title).toBe('Candidate for acme/app#42: set fast (2 members), gate passed in every member');
      }
      const composing = applied(t).filter(
        (w) => w.path.startsWith('/repos/acme/api/check-runs') && w.at < 5 && w.summary.includes('#8'),
      );
      expect(composing.length).toBeGreaterThan(0);
      for (const key of ['acme/api#8', 'acme/ui#10'])
        expect(t.prs[key]!.checks['Arbiter / gate']).toMatchObject({ status: 'completed', conclusion: 'success' });
      // Set "flaky": acme/ui#12's required check failed, so the whole set is unpromotable, on both members.
      for (const key of ['acme/api#11', 'acme/ui#12'])
        expect(t.prs[key]!.checks[SELECTION]!.title).toBe(
          'Candidate for acme/app#42: set flaky (2 members), unpromotable: member acme/ui#12: required check `test` failed',
        );
      expect(t.prs['acme/ui#12']!.checks['Arbiter / gate']).toMatchObject({ conclusion: 'failure' });
      expect(t.prs['acme/api#11']!.checks['Arbiter / gate']).toMatchObject({ conclusion: 'success' });
      // Set "vouched": dev-b's member was admitted by a maintainer of acme/ui; the set stands.
      for (const key of ['acme/api#13', 'acme/ui#14'])
        expect(t.prs[key]!.checks[SELECTION]!.title).toBe(
          'Candidate for acme/app#42: set vouched (2 members), gate passed in every member',
        );
      const reply = t.prs['acme/ui#14']!.comments.map((c) => c.body).find((b) => b.includes('Admitted'));
      expect(reply).toContain('as a member of the set `vouched` for acme/app#42');
      // Set "dropped": its ui member was closed by a maintainer; the api member says the set is out.
      expect(t.prs['acme/api#15']!.checks[SELECTION]).toMatchObject({
        status: 'completed',
        conclusion: 'neutral',
        title: 'Not a candidate: set dropped for acme/app#42: member acme/ui#16 is closed',
      });
      // Nothing else was closed, nothing merged, in any repository, and no member is a candidate alone.
      for (const [key, pr] of Object.entries(t.prs))
        expect(pr).toMatchObject({ state: key === 'acme/ui#16' ? 'closed' : 'open', merged: false });
      expect(applied(t).filter((w) => /^(merge|close) /.test(w.summary))).toEqual([]);
    },
  );
});
