// The bench's pure pieces: the generated group scenario is valid and has one expected winner in
// the middle, the verdict on a final state catches a wrong winner and repeated writes, the
// quantile and the table are what the docs quote.
import { describe, expect, it } from 'vitest';
import { candidateFiles, candidateModel, groupScenario, planGroup, scoreOf } from '../../bench/group-scenario.ts';
import { quantile, signature } from '../../bench/load.ts';
import { renderTable } from '../../bench/table.ts';
import { checkGroup, duplicateWrites } from '../../bench/transcript-checks.ts';
import type { PrState } from '../../sim/runner/index.ts';

const pr = (over: Partial<PrState>): PrState => ({
  state: 'open',
  merged: false,
  draft: true,
  labels: [],
  reviewers: [],
  checks: {},
  comments: [],
  reactions: [],
  ...over,
});

describe('group scenario', () => {
  it.each([2, 5, 20, 100])(
    '%i siblings: valid, distinct scores, the winner scores highest and is neither first nor last to open',
    (size) => {
      const { scenario, plan } = groupScenario(size, { settleAt: 2, lastAt: 3 });
      expect(scenario.candidates).toHaveLength(size);
      const scores = plan.candidates.map((n) => scoreOf(plan, n));
      expect(new Set(scores).size).toBe(size);
      expect(Math.max(...scores)).toBe(scoreOf(plan, plan.winner));
      expect(plan.winner).not.toBe(plan.candidates[size - 1]);
      if (size > 2) expect(plan.winner).not.toBe(plan.candidates[0]);
      const last = scenario.candidates[size - 1];
      expect(last.checks.every((c) => c.at === 3)).toBe(true);
      expect(scenario.candidates.slice(0, -1).every((c) => c.checks.every((k) => k.at === 2))).toBe(true);
    },
  );

  it('every scripted quote occurs verbatim in the candidate file it cites', () => {
    const plan = planGroup(9, 3);
    for (const n of plan.candidates) {
      const files = candidateFiles(plan.change, n);
      for (const answer of Object.values(candidateModel(plan.change, n).small))
        expect(files[answer.path]).toContain(answer.quote);
    }
  });

  it('Changes write different files, so one shipping never conflicts with another', () => {
    expect(Object.keys(candidateFiles(1, 2))).not.toEqual(Object.keys(candidateFiles(5, 6)));
  });
});

describe('verdict on a final state', () => {
  it('accepts the expected winner merged and the others closed as lost', () => {
    const prs = {
      '2': pr({ state: 'closed', labels: ['arbiter:lost'] }),
      '3': pr({ state: 'closed', merged: true }),
      '4': pr({ state: 'closed', labels: ['arbiter:lost'] }),
    };
    expect(checkGroup(prs, 3, [2, 3, 4])).toEqual([]);
  });

  it('names a wrong winner and a sibling left open', () => {
    const prs = {
      '2': pr({ state: 'closed', merged: true }),
      '3': pr({ state: 'closed', labels: ['arbiter:lost'] }),
      '4': pr({}),
    };
    const problems = checkGroup(prs, 3, [2, 3, 4]);
    expect(problems.join('\n')).toMatch(/#3 is not merged/);
    expect(problems.join('\n')).toMatch(/#2 merged/);
    expect(problems.join('\n')).toMatch(/#4 is open/);
  });

  it('counts a closure written twice, not a refused one', () => {
    const w = (summary: string, status = 200) => ({ summary, status });
    expect(
      duplicateWrites([
        w('close #2'),
        w('close #2'),
        w('merge #3'),
        w('merge #3', 405),
        w('comment on #1'),
        w('comment on #1'),
      ]),
    ).toEqual(['close #2']);
  });
});

describe('load and table helpers', () => {
  it('quantile is nearest rank', () => {
    const v = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(v, 0.5)).toBe(50);
    expect(quantile(v, 0.99)).toBe(99);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('signs like GitHub (HMAC-SHA256 of the body)', () => {
    // The example from GitHub's "Validating webhook deliveries" documentation.
    expect(signature("It's a Secret to Everybody", 'Hello, World!')).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  it('aligns numbers right and text left', () => {
    expect(
      renderTable(
        ['name', 'n'],
        [
          ['a', 1.5],
          ['bb', 12],
        ],
      ),
    ).toEqual(['name     n', '----  ----', 'a     1.50', 'bb      12']);
  });
});
