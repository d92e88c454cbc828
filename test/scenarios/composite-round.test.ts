// A Change's selection round and its candidate sets (issue 27), against the real app. What a
// maintainer expects (DESIGN.md sections 2 and 6): a set is one sibling of its Change, so the round
// waits while a set composes (a member has not opened) or verifies (a member's required checks are
// running), each up to `selection.siblingTimeout` as for any sibling; a set whose gate failed is
// unpromotable and holds nothing. A single-repository candidate never ships while a set of its
// Change still composes or verifies.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, runScenario, type Scenario, type Transcript } from '../../sim/runner/index.ts';

const SELECTION = 'Arbiter / selection';
// Each run boots the real app (PGlite) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = (s: Scenario): Promise<Transcript> => runScenario(s, { log: () => {} });
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
    // No member of any set merged; the sets are still shown for what they are.
    for (const key of ['acme/api#7', 'acme/ui#9', 'acme/api#8', 'acme/ui#10', 'acme/api#11'])
      expect(t.prs[key]).toMatchObject({ merged: false });
    expect(t.prs['acme/api#11']!.checks[SELECTION]!.title).toBe(
      'Composing: set stuck for acme/app#42 waits: acme/ui#13 has not opened',
    );
  });
});
