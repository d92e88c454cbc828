// Every view is current (issue 25), against the real app and the emulator: after a person's
// promote-and-merge, a cancel and a repair timeout, the comparison's headline says what happened,
// with nothing stale left; a recheck that changes nothing posts nothing again and mentions nobody again.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, runScenario, type Transcript } from '../../sim/runner/index.ts';
import { expectRendersClean, structureOf } from '../support/gfm.ts';

// Each run boots the real app (PGlite) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };
const SELECTION = 'Arbiter / selection';

const play = async (name: string): Promise<Transcript> =>
  expectRendersClean(
    await runScenario(
      await loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url))),
      { log: () => {} },
    ),
  );

const comparison = (t: Transcript, change: number): string => {
  const found = t.issues[String(change)].comments.filter((c) => c.body.includes('arbiter:comparison:'));
  expect(found, 'one comparison comment').toHaveLength(1);
  return found[0].body;
};
/** The headline as a reader sees it: the first bold paragraph under the heading. */
const headline = (body: string): string => structureOf(/^\*\*.+\*\*$/m.exec(body)?.[0] ?? '').visible.trim();
const visible = (body: string): string => structureOf(body).visible;
const STALE = /awaiting|is requested|repair requested|#\d+: ships/;

describe('every view is current', () => {
  it(
    'after a person promotes and it merges: "merged", with the merge commit; the gate and the winner say so',
    SLOW,
    async () => {
      const t = await play('people-promote');
      expect(t.prs['85']).toMatchObject({ state: 'closed', merged: true });
      const body = comparison(t, 8);
      expect(headline(body)).toMatch(/^#85 merged as [0-9a-f]{7}, promoted by @maintainer: met 1 of 2 criteria/);
      expect(visible(body)).not.toMatch(STALE);
      expect(body).toMatch(/\/acme\/todo\/commit\/[0-9a-f]{40}\)/);
      const own = t.prs['85'].comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);
      const gate = own.find((b) => b.includes('arbiter:gate:85')) ?? '';
      expect(visible(gate)).toContain("#85 was merged on @maintainer's word.");
      // What was asked is folded below the new first lines.
      expect(gate.indexOf('<details>')).toBeGreaterThan(gate.indexOf("was merged on @maintainer's word"));
      expect(own.find((b) => b.includes('arbiter:winner:85'))).toContain('This candidate won the comparison on #8');
      expect(t.prs['85'].checks[SELECTION]).toMatchObject({ conclusion: 'success' });
    },
  );

  it('after /arbiter cancel: "cancelled", and no candidate awaits a person', SLOW, async () => {
    const t = await play('judge-unavailable');
    const body = comparison(t, 9);
    expect(headline(body)).toMatch(/^Cancelled by @maintainer\. Every open candidate was closed; nothing ships\.$/);
    expect(visible(body)).not.toMatch(STALE);
    // The tie's one gate comment on the Change, and the repair note, say it too.
    const own = t.issues['9'].comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);
    expect(visible(own.find((b) => b.includes('arbiter:gate:9@main')) ?? '')).toContain('Cancelled by @maintainer.');
    expect(visible(own.find((b) => b.includes('arbiter:repair:9')) ?? '')).toContain(
      'It is no longer awaited: Cancelled by @maintainer.',
    );
    for (const pr of ['91', '92']) expect(t.prs[pr].comments.some((c) => c.body.includes('arbiter:gate:'))).toBe(false);
  });

  it(
    'after a repair times out: "waits for a person: …", posted once, with the full gate on the candidate',
    SLOW,
    async () => {
      const t = await play('decisions-repair-timeout');
      const body = comparison(t, 11);
      expect(headline(body)).toMatch(
        /^#101 waits for a person: the requested repair of #101 did not arrive within 10 minutes\. Approve it, or comment \/arbiter promote on it/,
      );
      expect(visible(body)).not.toMatch(STALE);
      const own = t.issues['11'].comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);
      // The Change hears it in its comparison and its repair note, not in a second copy of the gate.
      expect(own.filter((b) => b.includes('did not arrive')).length).toBe(1);
      expect(visible(own.find((b) => b.includes('arbiter:repair:11')) ?? '')).not.toMatch(/requested one repair/);
      const gates = t.prs['101'].comments.filter((c) => c.body.includes('arbiter:gate:101'));
      expect(gates).toHaveLength(1);
      expect(visible(gates[0].body)).toContain('@maintainer: your decision is needed.');
      expect(t.prs['101'].checks[SELECTION]).toMatchObject({ conclusion: 'action_required' });
    },
  );

  it('a recheck that changes nothing posts the gate once and asks the reviewer once', SLOW, async () => {
    const t = await play('views-recheck-unchanged');
    const writes = t.writes.filter((w) => w.status < 300).map((w) => `t=${w.at} ${w.summary}`);
    expect(writes.filter((w) => w.includes('request review'))).toEqual(['t=2 request review on #51 from reviewer']);
    const gates = t.prs['51'].comments.filter((c) => c.body.includes('arbiter:gate:51'));
    expect(gates).toHaveLength(1);
    // Only the comparison (round 2, round 1 folded below) and the reply to the command are written on comments after the recheck.
    const later = t.writes.filter((w) => w.at >= 10 && w.status < 300 && /^(edit )?comment on #51$/.test(w.summary));
    expect(later).toHaveLength(1);
    expect(t.prs['51'].comments.at(-1)?.body).toContain('Re-ran the acceptance check on #51');
    expect(t.prs['51'].checks[SELECTION]).toMatchObject({ conclusion: 'action_required' });
    expect(comparison(t, 5)).toContain('Earlier rounds (1)');
  });
});
