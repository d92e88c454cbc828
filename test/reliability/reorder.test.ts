// Webhooks out of order in the full app (`faults.reorder`): the showcase played with its webhooks
// shuffled within windows ends exactly as the ordered run, and a PR whose `closed` arrives before
// its older webhooks never comes back as a candidate, nor holds the round.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { GitHubEmulator } from '../../sim/github/index.ts';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { applied, duplicateWrites, play, SELECTION, SLOW } from './helpers.ts';

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));

/** Applied writes counted by kind: method and route template, and the mutation for GraphQL. */
function writesByKind(t: Transcript): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const w of applied(t)) {
    const kind = `${w.method} ${w.route}${w.operation ? ` ${w.operation}` : ''}`;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(kinds).sort(([a], [b]) => a.localeCompare(b)));
}

/** Each PR's end: state, merged, labels and Arbiter's selection verdict (links name the emulator's port: masked). */
const ends = (t: Transcript) =>
  Object.fromEntries(
    Object.entries(t.prs).map(([n, p]) => {
      const s = p.checks[SELECTION];
      const selection = s
        ? {
            status: s.status,
            conclusion: s.conclusion,
            title: s.title,
            summary: s.summary?.replace(/127\.0\.0\.1:\d+/g, 'emulator'),
          }
        : null;
      return [n, { state: p.state, merged: p.merged, labels: [...p.labels].sort(), selection }];
    }),
  );

describe('webhooks delivered out of order', () => {
  it(
    'the showcase with its webhooks reordered (two seeds) ends as the ordered run: same winner, same writes by kind',
    SLOW,
    async () => {
      const showcase = await load('showcase');
      const orderedSent: string[] = [];
      const ordered = await play(showcase, {
        inspect: (e: GitHubEmulator) =>
          void orderedSent.push(...e.sentWebhooks.map((w) => `${w.event}.${w.action ?? ''}`)),
      });
      expect(ordered.t.prs['13']?.merged).toBe(true);
      for (const seed of [3, 7]) {
        const sent: string[] = [];
        const reordered = await play(
          { ...showcase, faults: { ...showcase.faults, reorder: { seed, window: 4 } } },
          {
            inspect: (e: GitHubEmulator) =>
              void sent.push(...e.sentWebhooks.map((w) => `${w.event}.${w.action ?? ''}`)),
          },
        );
        // The reorder did reorder.
        expect(sent, `seed ${seed}`).not.toEqual(orderedSent);
        expect(ends(reordered.t), `seed ${seed}`).toEqual(ends(ordered.t));
        expect(writesByKind(reordered.t), `seed ${seed}`).toEqual(writesByKind(ordered.t));
        expect(duplicateWrites(reordered.t)).toEqual([]);
      }
    },
  );

  it(
    "a closed PR's opened or synchronize delivered after its closed: neither comes back, and the round does not wait",
    SLOW,
    async () => {
      const sent: string[] = [];
      const { t } = await play(await load('reorder-closed-first'), {
        inspect: (e: GitHubEmulator) => void sent.push(...e.sentWebhooks.map((w) => `${w.event}.${w.action ?? ''}`)),
      });
      // The seed delivers them in the order this test is about (#14 opens at 3, #12 is pushed at 4).
      const nth = (name: string, n: number): number =>
        sent.reduce<number[]>((at, s, i) => (s === name ? [...at, i] : at), [])[n - 1] ?? -1;
      expect(nth('pull_request.closed', 1), sent.join(' ')).toBeLessThan(nth('pull_request.opened', 3));
      expect(nth('pull_request.closed', 2), sent.join(' ')).toBeLessThan(nth('pull_request.synchronize', 1));
      expect(t.prs['13']).toMatchObject({ state: 'closed', merged: true });
      expect(t.prs['13']?.checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Selected: shipped' });
      // #12 was withdrawn on the head Arbiter had recorded; its new head was never recorded.
      expect(t.prs['12']).toMatchObject({ merged: false });
      expect(
        applied(t).filter((w) => /^check-run Arbiter \/ selection on [0-9a-f]{7}: completed neutral$/.test(w.summary)),
      ).toHaveLength(1);
      expect(Object.keys(t.prs['12']?.checks ?? {}).filter((name) => name.startsWith('Arbiter'))).toEqual([]);
      // #14 was never recorded: Arbiter wrote nothing on it.
      expect(Object.keys(t.prs['14']?.checks ?? {}).filter((name) => name.startsWith('Arbiter'))).toEqual([]);
      for (const [n, p] of Object.entries(t.prs)) {
        for (const [name, c] of Object.entries(p.checks))
          if (name.startsWith('Arbiter')) expect(c.status, `#${n} ${name}`).toBe('completed');
      }
      expect(duplicateWrites(t)).toEqual([]);
    },
  );
});
