// Trust against the real app (issue 11), one scenario per case: strangers' issues and PRs ship
// nothing and cost nothing, a same-name pass never hides a failure, the gatekeeper's own files go
// to a person, a bot's review never counts, late CI is waited for, and admit / track work for writers only.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { expectRendersClean, renderGfm, structureOf } from '../support/gfm.ts';

const SELECTION = 'Arbiter / selection';
// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 300_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = async (name: string): Promise<Transcript> => playStory(await load(name));

const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);
const merges = (t: Transcript): string[] =>
  applied(t)
    .map((w) => w.summary)
    .filter((s) => s.startsWith('merge '));
/** Every applied write about PR `n` (check runs, comments, closes, labels, merges). */
const writesOn = (t: Transcript, n: number): string[] =>
  applied(t)
    .map((w) => w.summary)
    .filter((s) => new RegExp(`#${n}(?!\\d)`).test(s));
const botReplies = (t: Transcript, n: number): string[] =>
  (t.prs[String(n)] ?? t.issues[String(n)]).comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);

describe('trust', () => {
  it(
    "a stranger's issue and draft ship nothing, and the stranger's label, commands and review change nothing",
    SLOW,
    async () => {
      const t = await play('trust-stranger-change');
      expect(merges(t)).toEqual([]);
      expect(t.prs['21'].state).toBe('open');
      expect(t.prs['21'].checks[SELECTION]).toMatchObject({ status: 'completed', conclusion: 'neutral' });
      expect(t.prs['21'].checks[SELECTION].title).toMatch(/^Not a candidate: @stranger has no write access here/);
      // No evidence was gathered for it: no gate or acceptance check, so no model call.
      expect(Object.keys(t.prs['21'].checks).filter((name) => name.startsWith('Arbiter / '))).toEqual([SELECTION]);
      expect(botReplies(t, 21).join('\n')).toMatch(/`admit` needs write, maintain or admin access/);
      expect(botReplies(t, 7).join('\n')).toMatch(/`track` needs write, maintain or admin access/);
      // Only the replies: no comparison comment on the stranger's issue.
      expect(botReplies(t, 7)).toHaveLength(1);
    },
  );

  it(
    "a stranger's draft from a fork next to the agent's candidate is not a sibling; the agent's ships",
    SLOW,
    async () => {
      const t = await play('trust-stranger-sibling');
      expect(merges(t)).toEqual(['merge #22']);
      expect(t.prs['21']).toMatchObject({ state: 'open', merged: false, labels: [] });
      expect(t.prs['21'].checks[SELECTION].title).toMatch(
        /^Not a candidate: @stranger has no write access here; a maintainer can admit it with `\/arbiter admit`/,
      );
      // Never closed as a loser, never ranked; the comparison names it and how a maintainer admits it.
      expect(writesOn(t, 21)).toEqual([`check-run ${SELECTION} on #21: completed neutral`]);
      const comparison = botReplies(t, 7).find((b) => b.includes('comparison of the candidates for #7'))!;
      const html = renderGfm(comparison);
      expect(structureOf(comparison).visible).toContain(
        '#21 by @stranger was not compared: @stranger has no write access here (read access); a maintainer admits it with /arbiter admit on #21.',
      );
      expect(html).toMatch(
        /<li><a href="[^"]+\/pull\/21">#21<\/a> by @stranger was not compared: .*<code>\/arbiter admit<\/code> on #21\.<\/li>/,
      );
      // Not ranked: the outcome list and the matrix hold #22 only.
      for (const table of structureOf(comparison).tables) expect(table.rows.flat().join(' ')).not.toContain('#21');
      expectRendersClean(t);
    },
  );

  it(
    "twelve strangers' drafts change nothing and cost no model call (a budget of one call is enough)",
    SLOW,
    async () => {
      const t = await play('trust-flood');
      expect(merges(t)).toEqual(['merge #50']);
      expect(t.prs['50'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Selected: shipped' });
      for (let n = 30; n < 42; n++) {
        expect(t.prs[String(n)].state, `#${n}`).toBe('open');
        // At most one check-run write per head, and nothing else.
        expect(writesOn(t, n), `#${n}`).toEqual([`check-run ${SELECTION} on #${n}: completed neutral`]);
      }
    },
  );

  it('a passing commit status does not hide a failing check run of the same required name', SLOW, async () => {
    const t = await play('trust-status-hides-failure');
    expect(merges(t)).toEqual([]);
    expect(t.prs['21'].checks['Arbiter / gate']).toMatchObject({ conclusion: 'failure' });
    expect(t.prs['21'].checks['Arbiter / gate'].title).toContain('required check `test` failed');
  });

  it(
    'a candidate changing .github/arbiter.yml goes to a person; one whose config does not validate is unpromotable',
    SLOW,
    async () => {
      const t = await play('trust-config-change');
      expect(merges(t)).toEqual([]);
      expect(t.prs['21'].labels).toContain('arbiter:awaiting-approval');
      expect(botReplies(t, 21).join('\n')).toContain('high: changes `.github/arbiter.yml`');
      expect(t.prs['22'].checks['Arbiter / gate']).toMatchObject({ conclusion: 'failure' });
      expect(t.prs['22'].checks['Arbiter / gate'].title).toContain(
        '`.github/arbiter.yml` on this head does not validate',
      );
    },
  );

  it("a bot's approving review is ignored; a maintainer's ships the gated winner", SLOW, async () => {
    const scenario = await load('trust-bot-review');
    const human = scenario.events.find((e) => e.review?.user === 'maintainer')!;
    const t = await playStory(scenario);
    const mergeWrites = applied(t).filter((w) => w.summary.startsWith('merge '));
    expect(mergeWrites.map((w) => w.summary)).toEqual(['merge #21']);
    expect(mergeWrites[0].at).toBeGreaterThanOrEqual(human.at);
    expect(t.prs['21'].checks[SELECTION].title).toBe('Promoted by @maintainer');
  });

  it('CI that registers after the push is waited for: the head ships only once its check passed', SLOW, async () => {
    const scenario = await load('trust-late-ci');
    const check = scenario.candidates[0].checks[0];
    const t = await playStory(scenario);
    const mergeWrites = applied(t).filter((w) => w.summary.startsWith('merge '));
    expect(mergeWrites.map((w) => w.summary)).toEqual(['merge #21']);
    expect(mergeWrites[0].at).toBeGreaterThanOrEqual(check.at!);
    // Before the check registered nothing had concluded: the gate check says nothing yet (the
    // selection check says the candidate waits for its evidence), and never that it passed.
    expect(
      applied(t)
        .filter((w) => w.at < check.startAt! && w.summary.includes('Arbiter / '))
        .map((w) => w.summary),
    ).toEqual(['check-run Arbiter / selection on #21: in_progress']);
  });

  it(
    '/arbiter track and /arbiter admit are refused for a reader and work for a maintainer; the admitted PR ships',
    SLOW,
    async () => {
      const t = await play('trust-admit-track');
      expect(merges(t)).toEqual(['merge #21']);
      const onIssue = botReplies(t, 7).join('\n');
      expect(onIssue).toContain('@visitor: `track` needs write, maintain or admin access');
      expect(onIssue).toContain("Tracking #7 as a Change on @maintainer's word");
      const onPull = botReplies(t, 21).join('\n');
      expect(onPull).toContain('@visitor: `admit` needs write, maintain or admin access');
      expect(onPull).toContain("Admitted on @maintainer's word");
    },
  );
});
