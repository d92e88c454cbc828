// The judge end to end: the REAL Anthropic SDK client against the fake endpoint over HTTP.
// Invalid answers and transport faults never pick a winner; the diagnostics case of DESIGN.md §5.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAnthropic, type ModelFault, type ModelScripts } from '../../sim/anthropic/index.ts';
import { createAnthropicClient } from '../../src/llm/client.ts';
import { diagnose } from '../../src/judge/diagnostics.ts';
import { judgeTie, MAX_EXPLANATION_CHARS } from '../../src/judge/judge.ts';
import type { ArbiterConfig } from '../../src/config/schema.ts';
import { candidate, CRITERIA, judgeConfig } from './fixtures.ts';

let fake: FakeAnthropic | null = null;
afterEach(async () => {
  await fake?.stop();
  fake = null;
});

async function judgeWith(
  judge: ModelScripts['judge'],
  opts: {
    faults?: ModelFault[];
    config?: ArbiterConfig['judge'];
    signal?: AbortSignal;
    takeBudget?: () => Promise<boolean>;
  } = {},
) {
  fake = await FakeAnthropic.start({ scripts: { candidates: {}, judge }, faults: opts.faults });
  const llm = createAnthropicClient({ apiKey: 'test-key', baseURL: fake.url, retryBaseMs: 1 });
  const outcome = await judgeTie({
    tied: [candidate(13), candidate(12)],
    deterministicOrder: [12, 13],
    criteria: CRITERIA,
    config: opts.config ?? judgeConfig(),
    llm,
    signal: opts.signal,
    takeBudget: opts.takeBudget,
  });
  return { outcome, fake };
}

const RUBRIC = judgeConfig({ mode: 'rubric' }); // completeness (weight 2), risk (weight 1)
const PREFER = {
  verdict: 'prefer_candidate',
  candidate: 13,
  evidence: ['ev:13:acceptance:AC1'],
  reason: 'AC1 is better evidenced',
};

describe('verdict mode', () => {
  it('a valid prefer_candidate picks the winner, with the cited evidence', async () => {
    const { outcome, fake } = await judgeWith(PREFER);
    expect(outcome).toEqual({
      comparison: 'judged',
      winner: 13,
      reason: 'judge-preferred',
      source: 'llm-judge',
      evidence: ['ev:13:acceptance:AC1'],
      explanation: 'AC1 is better evidenced',
      ranking: null,
    });
    // Swap consistency: asked twice, the tied candidates in opposite orders (see swap.test.ts).
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]).toMatchObject({ tier: 'large', kind: 'judge', model: 'claude-sonnet-5-5' });
    const sent = JSON.stringify(fake.requests[0]!.body);
    expect(sent).toContain('kind=judge candidates=12,13 mode=verdict');
    expect(sent).toContain('[ev:12:acceptance:AC1]');
    expect(JSON.stringify(fake.requests[1]!.body)).toContain('kind=judge candidates=13,12 mode=verdict');
  });

  it.each(['reject_candidate', 'needs_more_evidence', 'escalate_to_human'])(
    '%s goes to a person: judged, no winner',
    async (verdict) => {
      const { outcome } = await judgeWith({ verdict, candidate: 12, evidence: ['ev:12:check:test'], reason: 'unsure' });
      expect(outcome).toMatchObject({
        comparison: 'judged',
        winner: null,
        reason: verdict,
        source: 'llm-judge',
        evidence: ['ev:12:check:test'],
      });
    },
  );

  it('the explanation is redacted, bounded and cannot forge a hidden marker', async () => {
    const token = 'ghp_' + 'Expl41nT0k3nabcdefghijklmnopqrstuvwxyz';
    const { outcome } = await judgeWith({
      ...PREFER,
      reason: `<!-- arbiter:marker --> ${token} ${'long '.repeat(300)}`,
    });
    expect(outcome.winner).toBe(13);
    expect(outcome.explanation).not.toContain(token);
    expect(outcome.explanation).not.toContain('<!--');
    expect(Array.from(outcome.explanation).length).toBeLessThanOrEqual(MAX_EXPLANATION_CHARS);
  });
});

const INVALID = { comparison: 'invalid', winner: null, reason: 'judge-response-invalid' };
const UNAVAILABLE = { comparison: 'unavailable', winner: null, reason: 'judge-unavailable' };
const FULL = { '12': { completeness: 3, risk: 2 }, '13': { completeness: 4, risk: 1 } };

describe('no invalid or incomplete answer picks a winner', () => {
  const table: {
    name: string;
    judge: ModelScripts['judge'];
    config?: ArbiterConfig['judge'];
    faults?: ModelFault[];
    expected: object;
  }[] = [
    { name: 'unknown candidate', judge: { ...PREFER, candidate: 99 }, expected: INVALID },
    { name: 'prefer without a candidate', judge: { ...PREFER, candidate: null }, expected: INVALID },
    { name: 'unknown evidence id', judge: { ...PREFER, evidence: ['ev:13:acceptance:AC9'] }, expected: INVALID },
    { name: 'evidence id of a non-tied PR', judge: { ...PREFER, evidence: ['ev:14:check:test'] }, expected: INVALID },
    { name: 'prefer citing nothing', judge: { ...PREFER, evidence: [] }, expected: INVALID },
    { name: 'an unknown verdict', judge: { ...PREFER, verdict: 'prefer_both' }, expected: INVALID },
    {
      name: 'rubric: a missing cell',
      judge: { scores: { '12': { completeness: 3, risk: 2 }, '13': { completeness: 4 } } },
      config: RUBRIC,
      expected: INVALID,
    },
    {
      name: 'rubric: an extra candidate',
      judge: { scores: { ...FULL, '14': { completeness: 4, risk: 4 } } },
      config: RUBRIC,
      expected: INVALID,
    },
    {
      name: 'rubric: an unknown criterion',
      judge: { scores: { '12': { ...FULL['12'], speed: 4 }, '13': FULL['13'] } },
      config: RUBRIC,
      expected: INVALID,
    },
    {
      name: 'rubric: a 5',
      judge: { scores: { ...FULL, '13': { completeness: 5, risk: 1 } } },
      config: RUBRIC,
      expected: INVALID,
    },
    {
      name: 'rubric: a 2.5',
      judge: { scores: { ...FULL, '13': { completeness: 2.5, risk: 1 } } },
      config: RUBRIC,
      expected: INVALID,
    },
    {
      name: 'rubric: a negative score',
      judge: { scores: { ...FULL, '13': { completeness: -1, risk: 1 } } },
      config: RUBRIC,
      expected: INVALID,
    },
    {
      name: 'rubric: a duplicate cell',
      judge: { scores: FULL },
      config: RUBRIC,
      faults: [
        {
          text: JSON.stringify({
            scores: [...cells(FULL), { candidate: 12, criterion: 'risk', score: 2 }],
            reason: '',
          }),
        },
      ],
      expected: INVALID,
    },
    { name: 'stop reason max_tokens', judge: PREFER, faults: [{ stop_reason: 'max_tokens' }], expected: UNAVAILABLE },
    { name: 'stop reason tool_use', judge: PREFER, faults: [{ stop_reason: 'tool_use' }], expected: UNAVAILABLE },
    { name: 'stop reason refusal', judge: PREFER, faults: [{ stop_reason: 'refusal' }], expected: UNAVAILABLE },
    { name: 'empty text', judge: PREFER, faults: [{ text: '' }], expected: UNAVAILABLE },
    { name: 'text that is not JSON', judge: PREFER, faults: [{ text: 'I prefer #13' }], expected: UNAVAILABLE },
    { name: 'a 500', judge: PREFER, faults: [{ status: 500 }], expected: UNAVAILABLE },
    { name: 'overloaded on every attempt', judge: PREFER, faults: [{ status: 529 }], expected: UNAVAILABLE },
    { name: 'no judge script (529)', judge: undefined, expected: UNAVAILABLE },
  ];
  it.each(table)('$name', async ({ judge, config, faults, expected }) => {
    const { outcome } = await judgeWith(judge, { config, faults });
    expect(outcome).toMatchObject(expected);
    expect(outcome.explanation).toBe('');
    expect(outcome.ranking).toBeNull();
  });

  it('an answer that arrives after an abort is discarded', async () => {
    const ctl = new AbortController();
    fake = await FakeAnthropic.start({ scripts: { candidates: {}, judge: PREFER }, faults: [{ delayMs: 400 }] });
    const llm = createAnthropicClient({ apiKey: 'test-key', baseURL: fake.url });
    const pending = judgeTie({
      tied: [candidate(12), candidate(13)],
      deterministicOrder: [12, 13],
      criteria: CRITERIA,
      config: judgeConfig(),
      llm,
      signal: ctl.signal,
    });
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    ctl.abort();
    expect(await pending).toMatchObject(UNAVAILABLE);
  });

  it('an exhausted budget sends nothing and picks nobody', async () => {
    const { outcome, fake } = await judgeWith(PREFER, { takeBudget: async () => false });
    expect(outcome).toMatchObject(UNAVAILABLE);
    expect(fake.requests).toHaveLength(0);
  });
});

function cells(scores: Record<string, Record<string, number>>) {
  return Object.entries(scores).flatMap(([pr, row]) =>
    Object.entries(row).map(([criterion, score]) => ({ candidate: Number(pr), criterion, score })),
  );
}

describe('rubric mode', () => {
  it('the highest weighted score wins', async () => {
    // 12: 2·3 + 1·2 = 8; 13: 2·4 + 1·1 = 9.
    const { outcome, fake } = await judgeWith({ scores: FULL, reason: 'complete' }, { config: RUBRIC });
    expect(outcome).toMatchObject({ comparison: 'scored', winner: 13, reason: 'judge-ranked', source: 'llm-judge' });
    expect(outcome.ranking).toEqual({ distinctScores: 2, topScoreTieCount: 1, scoreMargin: 1 });
    expect(JSON.stringify(fake.requests[0]!.body)).toContain('mode=rubric');
  });

  it('a tied top group goes to the best deterministic rank inside it', async () => {
    const { outcome } = await judgeWith(
      { scores: { '12': { completeness: 3, risk: 3 }, '13': { completeness: 3, risk: 3 } } },
      { config: RUBRIC },
    );
    expect(outcome).toMatchObject({ comparison: 'scored', winner: 12, reason: 'judge-tied', source: 'deterministic' });
  });

  it('diagnostics: two passing candidates scored equally, one failed check, one timed out', async () => {
    fake = await FakeAnthropic.start({
      scripts: {
        candidates: {},
        judge: { scores: { '12': { completeness: 3, risk: 2 }, '13': { completeness: 3, risk: 2 } } },
      },
    });
    const llm = createAnthropicClient({ apiKey: 'test-key', baseURL: fake.url });
    const siblings = [
      candidate(12),
      candidate(13),
      candidate(14, { gate: 'fail' }),
      candidate(15, { gate: 'timed-out' }),
    ];
    const tied = siblings.filter((c) => c.gate.promotable);
    const judge = await judgeTie({ tied, deterministicOrder: [13, 12], criteria: CRITERIA, config: RUBRIC, llm });
    expect(judge).toMatchObject({ comparison: 'scored', winner: 13, reason: 'judge-tied', source: 'deterministic' });
    expect(diagnose({ evidence: siblings, judge })).toEqual({
      submittedCandidates: 4,
      eligibleCandidates: 2,
      excludedCandidates: { fail: 1, inconclusive: 1 },
      comparison: 'scored',
      ranking: { distinctScores: 1, topScoreTieCount: 2, scoreMargin: 0 },
    });
  });
});
