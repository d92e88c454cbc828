// The combined candidate (issue 19) against the real app and the emulator: two siblings that each
// meet part of the criteria are combined and the combination ships; two that conflict are not, and
// the round ends as before; a combine happens once per Change under redelivery and a restart
// between the merges and the PR; shadow mode says what it would combine and opens nothing; a
// refused branch is a reason in the comparison.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { duplicateWrites, outcome, withFaults } from '../reliability/helpers.ts';
import { expectRendersClean } from '../support/gfm.ts';

const SLOW = { timeout: 600_000 };
const SELECTION = 'Arbiter / selection';
const REFS = '/repos/{owner}/{repo}/git/refs';
const REF = '/repos/{owner}/{repo}/git/refs/{ref}';
const MERGES = '/repos/{owner}/{repo}/merges';
const PULLS = '/repos/{owner}/{repo}/pulls';
const BRANCH = 'arbiter/combined/42';

const load = (name: string) =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const writesTo = (t: Transcript, method: string, route: string) =>
  t.writes.filter((w) => w.method === method && w.route === route);
const applied = (t: Transcript, method: string, route: string) =>
  writesTo(t, method, route).filter((w) => w.status < 300);
const comparison = (t: Transcript) =>
  t.issues['42'].comments.find((c) => c.body.includes('comparison of the candidates'))?.body ?? '';

/** The comparison's table as rows of cells (the delimiter row left out). */
function comparisonTable(body: string): string[][] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|( *-+ *\|)+$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

async function play(s: Scenario): Promise<{ t: Transcript; branchLeft: string | null }> {
  let branchLeft: string | null = null;
  // A generous wait for quiet: a busy machine slows the redelivered, restarted runs a lot.
  const t = await playStory(s, {
    quietTimeoutMs: 300_000,
    inspect: (gh) => (branchLeft = gh.branchHead(s.repo, BRANCH)),
  });
  return { t, branchLeft };
}

describe('combined-ships: #12 meets AC1 and AC2, #13 meets AC3', () => {
  let ships: Scenario;
  let calm: Transcript;
  beforeAll(async () => {
    ships = await load('combined-ships');
    calm = (await play(ships)).t;
  }, SLOW.timeout);

  it('builds #43 by the API, ships it, and closes #12 and #13 as combined into it', () => {
    expect(applied(calm, 'POST', REFS).map((w) => w.summary)).toEqual([
      expect.stringMatching(/^create branch arbiter\/combined\/42 at /),
    ]);
    expect(applied(calm, 'POST', MERGES)).toHaveLength(2);
    expect(applied(calm, 'POST', PULLS).map((w) => w.summary)).toEqual(['open #43 (draft) from arbiter/combined/42']);
    expect(calm.prs['43']).toMatchObject({ state: 'closed', merged: true });
    expect(calm.prs['43'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Selected: shipped' });
    for (const pr of ['12', '13']) {
      expect(calm.prs[pr]).toMatchObject({ state: 'closed', merged: false });
      expect(calm.prs[pr].checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Combined into #43' });
      expect(calm.prs[pr].comments.map((c) => c.body).join('\n')).toContain('Combined into #43');
    }
    expect(duplicateWrites(calm)).toEqual([]);
    // The combine and the merge that shipped #43 replay from their receipts' recorded inputs.
    const replayed = calm.receipts?.map((r) => `${r.kind}: ${r.replay}`);
    expect(replayed).toContain('COMBINED_CANDIDATE: same');
    expect(replayed).toContain('PROMOTION: same');
  });

  it('shows the three side by side in the comparison, and says what was combined', () => {
    const rows = comparisonTable(comparison(calm));
    // Each column header names its PR (with its title and author).
    expect(rows[0].map((h) => /#\d+/.exec(h)?.[0] ?? '')).toEqual(['', '#43', '#12', '#13']);
    expect(rows.find((r) => /\bAC1\b/.test(r[0]))?.slice(1)).toEqual(['✅', '✅', '❌']);
    expect(rows.find((r) => /\bAC3\b/.test(r[0]))?.slice(1)).toEqual(['✅', '❌', '✅']);
    const note = calm.issues['42'].comments.find((c) => c.body.includes('combined them into #43'));
    expect(note?.body).toContain('#12 (AC1, AC2) and #13 (brings AC3)');
  });

  it('the round waits for the combined candidate, and #12 and #13 say so by name', SLOW, async () => {
    const stuck = {
      ...ships,
      combined: { ...ships.combined, checks: [{ name: 'test', kind: 'check' as const, never: true, rerunAfter: 1 }] },
    };
    const { t } = await play(stuck);
    expect(t.prs['43']).toMatchObject({ state: 'open', merged: false, draft: true });
    for (const pr of ['12', '13']) {
      expect(t.prs[pr]).toMatchObject({ state: 'open', labels: [] });
      expect(t.prs[pr].checks[SELECTION]).toMatchObject({
        status: 'in_progress',
        title: 'Waiting for the combined candidate #43',
      });
    }
    expect(comparison(t)).toBe('');
  });

  it('combines once under redelivery and a restart between the merges and the PR', SLOW, async () => {
    const faults = { redeliver: { copies: 3, seed: 5 }, restart: [{ after: `POST ${MERGES}`, nth: 2 }] };
    const { t } = await play(withFaults(ships, faults));
    expect(t.restarts).toHaveLength(1);
    expect(applied(t, 'POST', REFS)).toHaveLength(1);
    expect(applied(t, 'POST', PULLS)).toHaveLength(1);
    // The merge that landed before the kill is not made again: GitHub answers "nothing to merge".
    expect(applied(t, 'POST', MERGES).filter((w) => w.status === 201)).toHaveLength(2);
    expect(duplicateWrites(t)).toEqual([]);
    expect(outcome(t)).toEqual(outcome(calm));
  });

  it('shadow mode says what live mode does (combine, no repair) and opens nothing', SLOW, async () => {
    const { t, branchLeft } = await play(await load('combined-shadow'));
    expectRendersClean(t);
    expect(writesTo(t, 'POST', REFS)).toEqual([]);
    expect(writesTo(t, 'POST', MERGES)).toEqual([]);
    expect(writesTo(t, 'POST', PULLS)).toEqual([]);
    expect(branchLeft).toBeNull();
    expect(Object.keys(t.prs).sort()).toEqual(['12', '13']);
    expect(t.dispatches).toEqual([]);
    for (const pr of ['12', '13']) expect(t.prs[pr]).toMatchObject({ state: 'open', labels: [] });
    const said = [
      ...t.issues['42'].comments.map((c) => c.body),
      ...['12', '13'].flatMap((pr) => [
        ...t.prs[pr].comments.map((c) => c.body),
        ...Object.values(t.prs[pr].checks).flatMap((c) => [c.title ?? '', c.summary ?? '']),
      ]),
    ].join('\n');
    expect(said).toContain('Arbiter would combine #12 (meets AC1, AC2) and #13 (brings AC3)');
    // Live mode builds the combined candidate before any repair: the shadow report never plans one.
    expect(said).not.toMatch(/repair/i);
    // As in live mode, no comparison of #12 and #13 alone: the combined candidate would be compared.
    expect(comparison(t)).toBe('');
    // The end state: what live mode would do is the round's end, not a wait for a combined PR that
    // shadow mode never opens. Both checks are completed (neutral: a shadow check holds no merge).
    for (const pr of ['12', '13'])
      expect(t.prs[pr].checks[SELECTION]).toMatchObject({
        status: 'completed',
        conclusion: 'neutral',
        title: 'Shadow: would combine #12 and #13',
      });
    const note = t.issues['42'].comments.map((c) => c.body).join('\n');
    expect(note).toContain('ship the combined pull request if it passes, closing #12 and #13 as combined into it');
    expect(note).toContain('this is where the shadow comparison of this change ends');
    expect(said).not.toMatch(/would wait/);
    // The decision replays from the receipt's recorded inputs.
    expect(t.receipts?.map((r) => `${r.kind}: ${r.replay}`)).toContain('COMBINED_CANDIDATE: same');
  });

  it('a refused branch (403) is no combined candidate, with the reason in the comparison', SLOW, async () => {
    const refused = withFaults(ships, { github: [{ route: `POST ${REFS}`, status: 403, times: 1, when: 'before' }] });
    const { t } = await play(refused);
    expect(applied(t, 'POST', MERGES)).toEqual([]);
    expect(applied(t, 'POST', PULLS)).toEqual([]);
    expect(comparison(t)).toContain(
      'No combined candidate of #12 and #13: GitHub refused to create the branch `arbiter/combined/42` (403',
    );
    expect(t.dispatches.map((d) => d.event_type)).toEqual(['arbiter.repair']);
  });
});

describe('combined-conflict: both change src/app.ts', () => {
  it(
    'opens no combined PR, deletes the branch, gives the reason, and the best candidate gets the repair',
    SLOW,
    async () => {
      const { t, branchLeft } = await play(await load('combined-conflict'));
      expect(writesTo(t, 'POST', MERGES).map((w) => w.status)).toEqual([201, 409]);
      expect(applied(t, 'DELETE', REF).map((w) => w.summary)).toEqual(['delete branch arbiter/combined/42']);
      expect(branchLeft).toBeNull();
      expect(writesTo(t, 'POST', PULLS)).toEqual([]);
      expect(Object.keys(t.prs).sort()).toEqual(['12', '13']);
      expect(comparison(t)).toContain('No combined candidate: #12 and #13 conflict in `src/app.ts`.');
      expect(t.dispatches).toEqual([
        expect.objectContaining({
          event_type: 'arbiter.repair',
          client_payload: expect.objectContaining({ candidate: 12 }),
        }),
      ]);
      expect(t.prs['12'].checks[SELECTION]).toMatchObject({ title: 'Repair requested' });
      expect(t.prs['13']).toMatchObject({ state: 'closed' });
      expect(duplicateWrites(t)).toEqual([]);
    },
  );
});
