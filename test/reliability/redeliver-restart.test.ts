// Reliability items 1 and 3 (PGlite, and PostgreSQL for the restarts): every webhook delivered three times in a shuffled order,
// Arbiter killed (SIGKILL) and restarted at each step of a selection, and a webhook that never
// reached Arbiter recovered from GitHub's delivery list at the next start. Each disturbed run
// must end in the final state of the undisturbed run, with the same writes and none repeated.
import { beforeAll, describe, expect, it } from 'vitest';
import type { HookAttempt } from '../../sim/github/index.ts';
import { SCENARIO_EPOCH_MS, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import {
  duplicateWrites,
  killedAfter,
  loadReliability,
  outcome,
  play,
  SLOW,
  withFaults,
  writeList,
} from './helpers.ts';

/** The steps of a selection after the claim, in the ship order, as the write each kill comes right after. */
export const KILL_POINTS = [
  {
    step: 'after the claim (the comparison comment)',
    after: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
    killed: /^comment on #7$/,
  },
  {
    step: 'before the merge (after ready for review)',
    after: 'POST /graphql markPullRequestReadyForReview',
    killed: /^ready for review #73$/,
  },
  {
    step: 'after the merge, before the receipt',
    after: 'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
    killed: /^merge #73/,
  },
  {
    step: 'after the first loser closes (losers close after the merge, labelled in the same write)',
    after: 'PATCH /repos/{owner}/{repo}/issues/{issue_number}',
    killed: /^close #7[12], label #7[12] arbiter:lost$/,
  },
] as const;

let base: Scenario;
let calm: Transcript;

beforeAll(async () => {
  base = await loadReliability('selection');
  calm = (await play(base)).t;
}, SLOW.timeout);

describe('the undisturbed run', () => {
  it('ships #73, closes #71 and #72 as lost, writes nothing twice', () => {
    expect(calm.prs['73']).toMatchObject({ state: 'closed', merged: true });
    for (const loser of ['71', '72']) {
      expect(calm.prs[loser]).toMatchObject({ state: 'closed', merged: false });
      expect(calm.prs[loser].labels).toContain('arbiter:lost');
    }
    expect(duplicateWrites(calm)).toEqual([]);
  });
});

describe('every webhook delivered three times, shuffled', () => {
  it('the same final state and writes as the undisturbed run, none repeated', SLOW, async () => {
    const { t, lines } = await play(withFaults(base, { redeliver: { copies: 3, seed: 11 } }));
    expect(duplicateWrites(t)).toEqual([]);
    expect(outcome(t)).toEqual(outcome(calm));
    expect(writeList(t)).toEqual(writeList(calm));
    // Nothing was refused or failed on the way: every copy was answered.
    expect(lines.filter((l) => /answered HTTP/.test(l))).toEqual([]);
  });
});

describe('a webhook that failed before reaching Arbiter, recovered at the next start (PGlite)', () => {
  it(
    '#73 opened answered 502 for Arbiter; the restarted app asks GitHub for it again: the same final state and writes',
    SLOW,
    async () => {
      let attempts: HookAttempt[] = [];
      const faulted = withFaults(base, {
        deliveries: [{ event: 'pull_request', action: 'opened', on: 73, nth: 1, status: 502 }],
        restart: [{ at: 1 }],
      });
      const { t, lines } = await play(faulted, {
        store: 'pglite',
        inspect: (gh) => {
          attempts = gh.hookAttempts.map((a) => ({ ...a }));
        },
      });
      const lost = attempts.filter((a) => a.fault);
      expect(lost.map((a) => [a.event, a.action, a.status_code])).toEqual([['pull_request', 'opened', 502]]);
      // Nothing but Arbiter's recovery redelivers it, after the restart, and Arbiter takes it.
      const again = attempts.filter((a) => a.guid === lost[0]?.guid && !a.fault);
      expect(again.map((a) => [a.redelivery, a.requested, a.status])).toEqual([[true, true, 'OK']]);
      expect(t.restarts).toHaveLength(1);
      expect(again[0]?.deliveredAt).toBeGreaterThanOrEqual(SCENARIO_EPOCH_MS + (t.restarts[0]?.at ?? 0) * 1000);
      expect(lines.filter((l) => /GitHub delivered .* again, as Arbiter asked/.test(l))).toHaveLength(1);
      expect(duplicateWrites(t)).toEqual([]);
      expect(outcome(t)).toEqual(outcome(calm));
      expect(writeList(t)).toEqual(writeList(calm));
    },
  );
});

// Every kill point in one run on each backend: each kill is followed by a fresh process on the
// same store, so each step's recovery is shown with 5 app starts instead of 8 for one run per point.
// Killed right after the first loser closes (after the merge): the merge's own webhook marks the
// Change shipped, and the claimant's retry must still finish the other loser's actions.
for (const backend of ['PGlite', 'PostgreSQL'] as const) {
  describe(`Arbiter killed (SIGKILL) at every one of those steps in one run (${backend})`, () => {
    it(
      'four kills, four fresh processes on the same store: the same final state and writes, none repeated',
      SLOW,
      async () => {
        const { t } = await play(withFaults(base, { restart: KILL_POINTS.map((p) => ({ after: p.after, nth: 1 })) }), {
          store: backend === 'PostgreSQL' ? 'postgres' : 'pglite',
        });
        expect(t.restarts).toHaveLength(KILL_POINTS.length);
        const kills = killedAfter(t);
        KILL_POINTS.forEach((p, i) => expect(kills[i]).toMatch(p.killed));
        expect(duplicateWrites(t)).toEqual([]);
        expect(outcome(t)).toEqual(outcome(calm));
        expect(writeList(t)).toEqual(writeList(calm));
      },
    );
  });
}
