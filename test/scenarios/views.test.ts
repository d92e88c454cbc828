// Every view is current (issue 25), against the real app and the emulator: a recheck that changes
// nothing posts nothing again and mentions nobody again. The views after a promote-and-merge, a
// cancel and a repair timeout are asserted on the runs that play those stories already
// (test/support/current-views.ts, called from people, judge and decisions).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { expectRendersClean } from '../support/gfm.ts';
import { comparison } from '../support/current-views.ts';

// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };
const SELECTION = 'Arbiter / selection';

const play = async (name: string): Promise<Transcript> =>
  expectRendersClean(
    await playStory(
      await loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url))),
    ),
  );

describe('every view is current', () => {
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
