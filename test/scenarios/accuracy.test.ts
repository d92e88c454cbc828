// Acceptance and judge accuracy against the real app (issues 15, 24): short specific quotes verify and
// a real tie reaches the judge; text a candidate wrote about itself, a candidate that only logs or
// stores the criteria's words, and a removed feature meet nothing; a (check: e2e) criterion waits
// for its check; a judge that flips with the order decides nothing.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadScenarioFile, verdictLine, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';

const ACCEPTANCE = 'Arbiter / acceptance';
const SELECTION = 'Arbiter / selection';
// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = (s: Scenario): Promise<Transcript> => playStory(s);
const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);
const merges = (t: Transcript) => applied(t).filter((w) => w.summary.startsWith('merge '));

const Receipt = z.object({
  kind: z.literal('CANDIDATE_SELECTION'),
  data: z.object({
    verdict: z.string(),
    winner: z.number().nullable(),
    judge: z.object({ comparison: z.string(), winner: z.number().nullable() }).nullable(),
    diagnostics: z.object({ comparison: z.string() }),
  }),
});

/** The CANDIDATE_SELECTION receipt in the hidden marker of the comparison comment on the Change. */
function selectionReceipt(t: Transcript, change: number): z.infer<typeof Receipt> {
  const json = t.issues[String(change)].comments
    .map((c) => /<!-- arbiter:receipt (\{[\s\S]*?\}) -->/.exec(c.body)?.[1])
    .find((m) => m !== undefined);
  expect(json, 'a receipt on the comparison comment').toBeDefined();
  return Receipt.parse(JSON.parse(json ?? 'null'));
}

/** Every write of the acceptance check of a PR, in order. */
const acceptanceWrites = (t: Transcript, pr: number) =>
  applied(t).filter((w) => w.summary.startsWith(`check-run ${ACCEPTANCE} on #${pr}: `));

describe('acceptance and judge accuracy', () => {
  it(
    'short specific quotes verify; the tie on evidence is real, so the judge is asked and its pick ships',
    SLOW,
    async () => {
      const scenario = await load('accuracy-short-quotes');
      const quotes = scenario.candidates.flatMap((c) => Object.values(c.model?.small ?? {}).map((s) => s.quote));
      for (const q of [".replace(/\\s+/g, '-')", '"tabWidth": 2', "t.replace(/ +/g, '-')", 'color: #111;'])
        expect(quotes).toContain(q);
      const t = await play(scenario);
      for (const pr of [61, 62])
        expect(t.prs[String(pr)].checks[ACCEPTANCE]).toMatchObject({
          conclusion: 'success',
          title: '3 of 3 criteria met',
        });
      const receipt = selectionReceipt(t, 6);
      expect(receipt.data.judge).toMatchObject({ comparison: 'judged', winner: 62 });
      expect(receipt.data.diagnostics.comparison).toBe('judged');
      expect(t.prs['62']).toMatchObject({ state: 'closed', merged: true });
      expect(verdictLine(t)).toMatch(/^Winner: #62 shipped/);
      expect(t.prs['61']).toMatchObject({ state: 'closed', merged: false });
      expect(t.prs['61'].checks[SELECTION]?.title ?? '').toContain('Lost to #62');
    },
  );

  it(
    'a self-describing candidate (comments and a NOTES.md restating the criteria) meets nothing and does not ship',
    SLOW,
    async () => {
      const t = await play(await load('accuracy-self-describing'));
      expect(t.prs['41'].checks[ACCEPTANCE]).toMatchObject({ conclusion: 'neutral', title: '0 of 2 criteria met' });
      expect(t.prs['41']).toMatchObject({ merged: false });
      expect(merges(t)).toEqual([]);
    },
  );

  it(
    'a candidate whose only change logs and stores the criteria meets nothing and never ships; real code in src/todo.ts ships',
    SLOW,
    async () => {
      const t = await play(await load('accuracy-logs-criteria'));
      expect(t.prs['71'].checks[ACCEPTANCE]).toMatchObject({ conclusion: 'neutral', title: '0 of 2 criteria met' });
      expect(t.prs['71']).toMatchObject({ state: 'closed', merged: false });
      expect(t.prs['72'].checks[ACCEPTANCE]).toMatchObject({ conclusion: 'success', title: '2 of 2 criteria met' });
      expect(t.prs['72']).toMatchObject({ state: 'closed', merged: true });
      expect(merges(t).map((w) => w.summary)).toEqual([expect.stringContaining('#72')]);
      expect(verdictLine(t)).toMatch(/^Winner: #72 shipped/);
      expect(t.prs['71'].checks[SELECTION]?.title ?? '').toContain('Lost to #72');
    },
  );

  it('a candidate that removed the delete function does not meet "A card can be deleted"', SLOW, async () => {
    const t = await play(await load('accuracy-deleted-feature'));
    expect(t.prs['51'].checks[ACCEPTANCE]).toMatchObject({ conclusion: 'neutral', title: '0 of 1 criterion met' });
    expect(t.prs['51']).toMatchObject({ merged: false });
    expect(merges(t)).toEqual([]);
  });

  it(
    'a (check: e2e) criterion concluding after `test` is judged again, met, and the candidate ships after it',
    SLOW,
    async () => {
      const scenario = await load('accuracy-check-criterion');
      const e2eAt = scenario.candidates[0].checks.find((c) => c.name === 'e2e')?.at ?? 0;
      const t = await play(scenario);
      expect(t.prs['31'].checks[ACCEPTANCE]).toMatchObject({ conclusion: 'success', title: '2 of 2 criteria met' });
      // Judged first when `test` passed (e2e still running: neutral), then again when e2e concluded.
      const completed = acceptanceWrites(t, 31).filter((w) => w.summary.includes(': completed'));
      expect(completed.map((w) => w.summary.replace(/^.*: /, '').replace(/ \(.*$/, ''))).toEqual([
        'completed neutral',
        'completed success',
      ]);
      expect(completed[0].at).toBeLessThan(e2eAt);
      expect(completed[1].at).toBeGreaterThanOrEqual(e2eAt);
      expect(t.prs['31']).toMatchObject({ state: 'closed', merged: true });
      expect(merges(t).map((w) => w.at)).toEqual([expect.any(Number)]);
      expect(merges(t)[0].at).toBeGreaterThanOrEqual(e2eAt);
    },
  );

  it(
    'a judge whose answer flips when the order is reversed decides nothing: a person is asked, comparison inconsistent',
    SLOW,
    async () => {
      const t = await play(await load('accuracy-judge-flips'));
      const receipt = selectionReceipt(t, 9);
      expect(receipt.data).toMatchObject({ verdict: 'human', winner: null });
      expect(receipt.data.judge).toMatchObject({ comparison: 'inconsistent', winner: null });
      expect(receipt.data.diagnostics.comparison).toBe('inconsistent');
      for (const pr of [91, 92]) {
        expect(t.prs[String(pr)]).toMatchObject({ state: 'open', merged: false });
        expect(t.prs[String(pr)].labels).toContain('arbiter:awaiting-approval');
      }
      expect(merges(t)).toEqual([]);
    },
  );
});
