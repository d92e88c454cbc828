// Successive halving always ends (issue 24): re-runs of the scoring check that never answer do not
// hold the wide round past `portfolio.composeTimeout` (+ one sweep), and the round says which
// re-runs never answered; a reading is keyed by the re-run request, so a CI app that updates the
// same run in place, and GitHub Actions re-running the job, give the halving fixture its outcome.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readReceiptMarker } from '../../src/core/render/markers.ts';
import type { GitHubEmulator } from '../../sim/github/index.ts';
import type { CheckSpec } from '../../sim/scenario-schema.ts';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';

// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 480_000 };
/** The sweep runs once a minute. */
const SWEEP = 60;

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = (s: Scenario): Promise<Transcript> => playStory(s);

type Run = ReturnType<GitHubEmulator['checkRuns']>[number];
/** Plays the story and keeps the check runs of bench the emulator holds at the end. */
async function playKeepingRuns(s: Scenario): Promise<{ t: Transcript; bench: Run[] }> {
  let bench: Run[] = [];
  const t = await playStory(s, {
    inspect: (gh) => {
      bench = gh.checkRuns(s.repo).filter((r) => r.name === 'bench');
    },
  });
  return { t, bench };
}
/** How many runs of bench each head had. */
function runsPerHead(runs: Run[]): number[] {
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(r.headSha, (counts.get(r.headSha) ?? 0) + 1);
  return [...counts.values()].sort((a, b) => a - b);
}

const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);
const botComments = (t: Transcript, num: number): string[] =>
  (t.prs[String(num)] ?? t.issues[String(num)]).comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);

const WideReceipt = z.object({
  kind: z.literal('PORTFOLIO_WIDE'),
  data: z.object({
    policy: z.string(),
    deep: z.array(z.number()),
    readings: z.record(z.string(), z.array(z.number())),
    unanswered: z.array(z.object({ pr: z.number(), askedAt: z.string() })),
  }),
});

function wide(t: Transcript): { comment: string; receipt: z.output<typeof WideReceipt> } {
  const comment = botComments(t, 7).find((b) => b.includes('Wide round'));
  expect(comment, 'the wide round comparison').toBeDefined();
  return { comment: comment!, receipt: WideReceipt.parse(readReceiptMarker(comment!)) };
}

/** The halving fixture with every scoring check's `rerunAfter: 2` given more keys. */
const withBench = (s: Scenario, extra: Pick<CheckSpec, 'app' | 'rerun'>): Scenario => {
  const agents = s.agents.map((a) => ({
    ...a,
    checks: a.checks.map((c) => (c.name === 'bench' ? { ...c, ...extra } : c)),
    refine: a.refine && {
      ...a.refine,
      checks: a.refine.checks.map((c) => (c.name === 'bench' ? { ...c, ...extra } : c)),
    },
  }));
  return { ...s, agents };
};

describe('successive halving always ends', () => {
  it(
    're-runs that never answer: decided on the readings there are by composeTimeout + one sweep, naming them',
    SLOW,
    async () => {
      const t = await play(await load('portfolio-halving-never-answers'));
      const { comment, receipt } = wide(t);
      expect(receipt.data).toMatchObject({
        policy: 'successive-halving',
        deep: [31],
        readings: { 31: [0.91], 32: [0.85, 0.84], 33: [0.8] },
      });
      expect(receipt.data.unanswered.map((u) => u.pr)).toEqual([31, 33]);
      expect(comment).toMatch(
        /#31: the re-run of `bench` asked at .* never answered within `portfolio\.composeTimeout`/,
      );
      expect(comment).not.toMatch(/#32: the re-run of `bench`/);

      const asked = applied(t).find((w) => w.summary.startsWith('rerequest check-run bench'))!.at;
      const decided = applied(t).find((w) => w.summary === 'close #33')?.at ?? Number.NaN;
      expect(decided).toBeGreaterThanOrEqual(asked + 600);
      expect(decided).toBeLessThanOrEqual(asked + 600 + SWEEP);
      expect(t.prs['31'].merged).toBe(true);
    },
  );

  it('a CI app that updates the same run in place still adds a reading per re-run request', SLOW, async () => {
    const { t, bench } = await playKeepingRuns(
      withBench(await load('portfolio-successive-halving'), { rerun: 'in-place' }),
    );
    const { receipt } = wide(t);
    expect(receipt.data).toMatchObject({
      deep: [32],
      readings: { 31: [0.91, 0.72, 0.7], 32: [0.85, 0.84, 0.83], 33: [0.8, 0.79] },
      unanswered: [],
    });
    expect(applied(t).filter((w) => w.summary.startsWith('rerequest check-run bench'))).toHaveLength(5);
    // In place: one check run of bench per head, however often it ran.
    expect(runsPerHead(bench).every((n) => n === 1)).toBe(true);
    expect(t.prs['32'].merged).toBe(true);
  });

  it(
    'GitHub Actions: the scoring job is re-run through the Actions API and the outcome is the same',
    SLOW,
    async () => {
      const { t, bench } = await playKeepingRuns(
        withBench(await load('portfolio-successive-halving'), { app: 'github-actions' }),
      );
      const { receipt } = wide(t);
      expect(receipt.data).toMatchObject({
        deep: [32],
        readings: { 31: [0.91, 0.72, 0.7], 32: [0.85, 0.84, 0.83], 33: [0.8, 0.79] },
      });
      expect(applied(t).filter((w) => w.summary.startsWith('re-run job bench'))).toHaveLength(5);
      expect(applied(t).filter((w) => w.summary.startsWith('rerequest'))).toEqual([]);
      // Each job re-run is a new check run of the github-actions app: 5 re-runs on the 3 wide heads,
      // and the deep candidate's refined head ran once.
      expect(bench.every((r) => r.app === 'github-actions')).toBe(true);
      expect(runsPerHead(bench)).toEqual([1, 2, 3, 3]);
      expect(t.prs['32'].merged).toBe(true);
    },
  );
});
