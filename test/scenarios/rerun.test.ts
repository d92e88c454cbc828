// GitHub's "Re-run" on Arbiter's own check (issue 29): `check_run.rerequested` on
// `Arbiter / acceptance` runs the acceptance check again on that candidate, which then ships.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { expectRendersClean } from '../support/gfm.ts';

const ACCEPTANCE = 'Arbiter / acceptance';
const SLOW = { timeout: 240_000 };

const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);

describe('GitHub\'s "Re-run" on Arbiter / acceptance', () => {
  it('judges the candidate again: gaps before, both criteria met after, and it ships', SLOW, async () => {
    const scenario = await loadScenarioFile(
      fileURLToPath(new URL('../../fixtures/scenarios/rerun-acceptance.yml', import.meta.url)),
    );
    const rerunAt = scenario.events.find((e) => e.rerun)!.at;
    const t = expectRendersClean(await playStory(scenario));
    const acceptanceWrites = applied(t).filter((w) => w.summary.startsWith(`check-run ${ACCEPTANCE} on #41`));
    // Judged before the re-run (with gaps: nothing merged then), and again after it.
    expect(acceptanceWrites.some((w) => w.at < rerunAt)).toBe(true);
    expect(acceptanceWrites.some((w) => w.at >= rerunAt)).toBe(true);
    expect(applied(t).filter((w) => w.summary.startsWith('merge ') && w.at < rerunAt)).toEqual([]);
    expect(t.prs['41'].checks[ACCEPTANCE]).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(t.prs['41']).toMatchObject({ state: 'closed', merged: true });
    // Answered on the candidate like the recheck command, naming GitHub's Re-run.
    const replies = t.prs['41'].comments.map((c) => c.body).join('\n');
    expect(replies).toContain('Re-ran the acceptance check on #41');
    expect(replies).toContain('“Re-run” on Arbiter / acceptance');
  });
});
