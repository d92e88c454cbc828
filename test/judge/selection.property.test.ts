// Property tests (seeded): the judge's selection never depends on input order (tied candidates,
// matrix cells), and the winner of a tied top group is always inside that group.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { judgeTie } from '../../src/judge/judge.ts';
import type { CompletionRequest, LlmClient } from '../../src/llm/types.ts';
import { candidate, CRITERIA, judgeConfig } from './fixtures.ts';

/** An in-memory model that answers every call with `json` and records what it was asked. */
function answering(json: unknown): LlmClient & { calls: CompletionRequest[] } {
  const calls: CompletionRequest[] = [];
  return {
    calls,
    async complete(req) {
      calls.push(req);
      return { ok: true, text: JSON.stringify(json), json, model: req.model, usage: { input: 1, output: 1 } };
    },
  };
}

const RUBRIC_IDS = ['completeness', 'risk', 'clarity'];

/** A tie of 2–5 candidates, a rubric of 1–3 criteria with integer weights, and a full score matrix. */
const arbCase = fc
  .record({
    prs: fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { minLength: 2, maxLength: 5 }),
    weights: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }),
  })
  .chain(({ prs, weights }) =>
    fc.record({
      prs: fc.constant(prs),
      rubric: fc.constant(weights.map((weight, i) => ({ id: RUBRIC_IDS[i]!, description: RUBRIC_IDS[i]!, weight }))),
      // Small score range so ties at the top are common.
      scores: fc.array(
        fc.array(fc.integer({ min: 3, max: 4 }), { minLength: weights.length, maxLength: weights.length }),
        {
          minLength: prs.length,
          maxLength: prs.length,
        },
      ),
      order: fc.shuffledSubarray(prs, { minLength: prs.length, maxLength: prs.length }),
      tiedPerm: fc.shuffledSubarray(prs, { minLength: prs.length, maxLength: prs.length }),
      cellPerm: fc.array(fc.integer(), {
        minLength: prs.length * weights.length,
        maxLength: prs.length * weights.length,
      }),
    }),
  );

describe('rubric selection', () => {
  it('is the same for any order of tied candidates and of matrix cells, and picks within the top group', async () => {
    await fc.assert(
      fc.asyncProperty(arbCase, async ({ prs, rubric, scores, order, tiedPerm, cellPerm }) => {
        const cells = prs.flatMap((pr, i) =>
          rubric.map((r, j) => ({ candidate: pr, criterion: r.id, score: scores[i]![j]! })),
        );
        const shuffledCells = cells
          .map((c, k) => ({ c, key: cellPerm[k]! }))
          .sort((a, b) => a.key - b.key)
          .map((x) => x.c);
        const config = judgeConfig({ mode: 'rubric', rubric });
        const run = (tied: number[], sc: typeof cells) =>
          judgeTie({
            tied: tied.map((pr) => candidate(pr)),
            deterministicOrder: order,
            criteria: CRITERIA,
            config,
            llm: answering({ scores: sc, reason: 'r' }),
          });

        const reference = await run(prs, cells);
        const permuted = await run(tiedPerm, shuffledCells);
        expect(permuted).toEqual(reference);

        // Independent check with exact integer arithmetic.
        const totals = prs.map((pr, i) => ({
          pr,
          total: rubric.reduce((s, r, j) => s + r.weight * scores[i]![j]!, 0),
        }));
        const top = Math.max(...totals.map((t) => t.total));
        const group = totals.filter((t) => t.total === top).map((t) => t.pr);
        expect(reference.comparison).toBe('scored');
        expect(group).toContain(reference.winner);
        if (group.length > 1) {
          expect(reference).toMatchObject({ reason: 'judge-tied', source: 'deterministic' });
          expect(reference.winner).toBe(order.find((pr) => group.includes(pr)));
        } else {
          expect(reference).toMatchObject({ reason: 'judge-ranked', source: 'llm-judge' });
        }
        expect(reference.ranking?.topScoreTieCount).toBe(group.length);
        expect(reference.ranking?.distinctScores).toBe(new Set(totals.map((t) => t.total)).size);
      }),
      { seed: 20261130, numRuns: 200 },
    );
  });
});

describe('verdict selection', () => {
  it('sends the same request and returns the same outcome for any order of the tied candidates', async () => {
    const prs = [31, 12, 27];
    const answer = {
      verdict: 'prefer_candidate',
      candidate: 27,
      evidence: ['ev:27:acceptance:AC2', 'ev:12:check:test'],
      reason: 'stronger',
    };
    const first = answering(answer);
    const reference = await judgeTie({
      tied: prs.map((pr) => candidate(pr)),
      deterministicOrder: [12, 27, 31],
      criteria: CRITERIA,
      config: judgeConfig(),
      llm: first,
    });
    expect(reference).toMatchObject({
      comparison: 'judged',
      winner: 27,
      reason: 'judge-preferred',
      source: 'llm-judge',
    });
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(prs, { minLength: 3, maxLength: 3 }), async (perm) => {
        const llm = answering(answer);
        const out = await judgeTie({
          tied: perm.map((pr) => candidate(pr)),
          deterministicOrder: [12, 27, 31],
          criteria: CRITERIA,
          config: judgeConfig(),
          llm,
        });
        expect(out).toEqual(reference);
        expect(llm.calls[0]!.material).toBe(first.calls[0]!.material);
        expect(llm.calls[0]!.candidates).toEqual([12, 27, 31]);
      }),
      { seed: 11, numRuns: 20 },
    );
  });
});
