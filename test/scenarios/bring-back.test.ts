// A round's loser brought back (issue 25 follow-up): the loser's comment and the human gate say
// "reopen it and comment `/arbiter promote`", and that works for a maintainer; a read-only user's
// promote is refused with a reply saying why, a bot's counts for nothing, and a person's rejection
// stands against a later promote. Each plays a fixture against the real app.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { expectRendersClean } from '../support/gfm.ts';

const SELECTION = 'Arbiter / selection';
const AWAITING = 'arbiter:awaiting-approval';
const LOST = 'arbiter:lost';
// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = async (s: Scenario): Promise<Transcript> => expectRendersClean(await playStory(s));

const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);
const writesBetween = (t: Transcript, from: number, to: number): string[] =>
  applied(t)
    .filter((w) => w.at >= from && w.at < to)
    .map((w) => w.summary);
const botBodies = (t: Transcript, num: number): string[] =>
  (t.prs[String(num)] ?? t.issues[String(num)]).comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);
const merges = (t: Transcript): [string, number][] =>
  applied(t)
    .filter((w) => w.summary.startsWith('merge '))
    .map((w) => [w.summary, w.at]);
const atOf = (s: Scenario, user: string, on: number): number =>
  s.events.find((e) => e.comment?.user === user && e.comment.on === on && e.comment.body === '/arbiter promote')!.at;

describe('a loser brought back', () => {
  it(
    "a loser reopened and promoted by a maintainer ships; a read user's promote is refused with why, a bot's is ignored",
    SLOW,
    async () => {
      const scenario = await load('people-promote-loser');
      const [byVisitor, byBot, byMaintainer] = [
        atOf(scenario, 'visitor', 86),
        atOf(scenario, 'renovate', 86),
        atOf(scenario, 'maintainer', 86),
      ];
      const t = await play(scenario);

      // The round: #85 waits for a person, #86 lost and closed; both texts say how to bring #86 back.
      const round = writesBetween(t, 0, byVisitor);
      expect(round).toContain(`close #86, label #86 ${LOST}`);
      expect(round).toContain(`label #85 ${AWAITING}`);
      const lostNote = botBodies(t, 86)[0];
      expect(lostNote).toMatch(/^<!-- arbiter:note:86:r1 -->\nLost to #85/);
      expect(lostNote).toMatch(
        /To ship it instead, reopen it and comment `\/arbiter promote` on it \(write access\)[^\n]*\.$/,
      );
      expect(botBodies(t, 85).join('\n')).toMatch(/reopen it and comment `\/arbiter promote` on it/);

      // The read-only visitor: one reply that says why, and nothing else.
      expect(writesBetween(t, byVisitor, byBot)).toEqual(['comment on #86', 'react confused to a comment on #86']);
      expect(botBodies(t, 86).join('\n')).toContain(
        '@visitor: `promote` needs write, maintain or admin access to this repository; you have read access.',
      );
      // The bot with write access: its comment is no person's act (no reply, no merge).
      expect(writesBetween(t, byBot, byMaintainer)).toEqual([]);

      // The maintainer: #86 ships with the compare-and-swap merge; #85 closes as stale.
      expect(merges(t)).toEqual([['merge #86', byMaintainer]]);
      const mergeWrite = applied(t).find((w) => w.summary === 'merge #86')!;
      expect(mergeWrite.route).toBe('/repos/{owner}/{repo}/pulls/{pull_number}/merge');
      const promoted = writesBetween(t, byMaintainer, Number.POSITIVE_INFINITY);
      expect(promoted).toEqual(
        expect.arrayContaining([`unlabel #86 ${LOST}`, 'ready for review #86', `close #85, unlabel #85 ${AWAITING}`]),
      );
      expect(t.prs['86']).toMatchObject({ state: 'closed', merged: true, draft: false, labels: [] });
      expect(t.prs['86'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Promoted by @maintainer' });
      expect(t.prs['85']).toMatchObject({ state: 'closed', merged: false, labels: [] });
      expect(t.prs['85'].checks[SELECTION]).toMatchObject({ conclusion: 'neutral' });
      expect(botBodies(t, 86).join('\n')).toMatch(/Promoted #86 at [0-9a-f]{7}: merged\./);
      expect(botBodies(t, 86).join('\n')).toContain('This candidate lost the comparison on #8, and was merged');

      // Every view is current: the comparison says #86 merged, brought back; the gate on #85 waits no more.
      const comparison = botBodies(t, 8).find((b) => b.includes('comparison of the candidates for #8'))!;
      expect(comparison).toMatch(/#86 merged as \[[0-9a-f]{7}\]\([^)]+\), brought back and promoted by @maintainer/);
      expect(comparison).not.toMatch(/awaiting a person/);
      expect(botBodies(t, 85).join('\n')).toContain('nothing waits for a person any more');
      // The maintainer's promotion and the merge it made are decided again from their receipts' inputs.
      expect(t.receipts?.map((r) => `${r.kind}: ${r.replay}`)).toEqual(
        expect.arrayContaining(['HUMAN_GATE: same', 'PROMOTION: same']),
      );
    },
  );

  it(
    "a person's rejection stands: promote on the reopened PR is refused with why; a loser in the same Change ships",
    SLOW,
    async () => {
      const scenario = await load('people-promote-rejected');
      const [rejected, loser] = [atOf(scenario, 'maintainer', 85), atOf(scenario, 'maintainer', 86)];
      const t = await play(scenario);

      // The rejection closed #85 (repair is off); reopening it and promoting it is refused with a sentence.
      expect(writesBetween(t, 0, rejected)).toContain('close #85');
      expect(writesBetween(t, rejected, loser)).toEqual(['react eyes to a comment on #85', 'comment on #85']);
      const reply = botBodies(t, 85).find((b) => b.includes('stays out of the running'))!;
      expect(reply).toContain(
        "#85 stays out of the running (rejected by @maintainer: it must work offline first). A person's rejection stands, so `/arbiter promote` does not bring it back.",
      );
      expect(reply).not.toMatch(/\*\*`?[a-z]+_[a-z_]+`?\*\*/);
      expect(t.prs['85'].merged).toBe(false);
      expect(t.prs['85'].checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Rejected' });

      // The round's loser #86, reopened and promoted by the same maintainer, ships.
      expect(merges(t)).toEqual([['merge #86', loser]]);
      expect(t.prs['86']).toMatchObject({ state: 'closed', merged: true });
      // Nothing more ships for #8: the reopened #85 closes as superseded, its check still saying it was rejected.
      expect(t.prs['85'].state).toBe('closed');
      expect(botBodies(t, 85).join('\n')).toContain('Superseded: #86 shipped.');
    },
  );

  it(
    "a reopened loser's new commits are verified and a promote ships them; a person-rejected PR's new commits are not",
    SLOW,
    async () => {
      const scenario = await load('people-promote-loser-new-commits');
      const pushAt = (pr: number): number => scenario.events.find((e) => e.push?.on === pr)!.at;
      const promoteAt = atOf(scenario, 'maintainer', 86);
      const t = await play(scenario);

      // #85, rejected by a person, reopened and pushed to: its new head is neither verified nor compared.
      expect(writesBetween(t, pushAt(85), pushAt(86)).filter((w) => /#85(?!\d)/.test(w))).toEqual([]);
      expect(t.prs['85'].checks[SELECTION]).toBeUndefined();

      // #86, the round's loser, reopened with new commits: back in the running without the lost label,
      // its new head's gate and acceptance written, and compared in a new round where it waits for a person.
      const verified = writesBetween(t, pushAt(86), promoteAt);
      expect(verified).toEqual(
        expect.arrayContaining([
          `unlabel #86 ${LOST}`,
          'check-run Arbiter / gate on #86: completed success',
          'check-run Arbiter / acceptance on #86: completed neutral (+1 annotations)',
          'check-run Arbiter / selection on #86: completed action_required',
          `label #86 ${AWAITING}`,
        ]),
      );
      expect(verified.indexOf(`unlabel #86 ${LOST}`)).toBeLessThan(
        verified.indexOf('check-run Arbiter / gate on #86: completed success'),
      );
      // The maintainer's promote ships it at that verified head.
      expect(merges(t)).toEqual([['merge #86', promoteAt]]);
      expect(t.prs['86']).toMatchObject({ state: 'closed', merged: true, labels: [] });
      expect(botBodies(t, 86).join('\n')).toMatch(/Promoted #86 at [0-9a-f]{7}: merged\./);
      const comparison = botBodies(t, 8).find((b) => b.includes('comparison of the candidates for #8'))!;
      expect(comparison).toContain('(round 2)');

      // Once #86 shipped, nothing is stale: #85, reopened by a person, closes as superseded (nothing
      // more ships for #8), and the Change's "no candidate remains open" note says what shipped.
      expect(t.prs['85']).toMatchObject({ state: 'closed', merged: false });
      expect(writesBetween(t, promoteAt, Number.POSITIVE_INFINITY)).toContain('close #85');
      expect(botBodies(t, 85).join('\n')).toContain('Superseded: #86 shipped.');
      const noneLeft = botBodies(t, 8).find((b) => b.startsWith('<!-- arbiter:none-left:8:main -->'))!;
      expect(noneLeft).toMatch(
        /^<!-- arbiter:none-left:8:main -->\n#86 was merged for #8 on `main` as [0-9a-f]{7}, promoted by @maintainer\. Nothing more ships/,
      );
      expect(noneLeft).not.toContain('remains open');
      expect(comparison).toMatch(/#86 merged as \[[0-9a-f]{7}\]\([^)]+\), promoted by @maintainer/);
    },
  );
});
