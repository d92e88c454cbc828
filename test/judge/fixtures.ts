// Test fixtures for the judge: candidate evidence built through the domain schema (defaults applied).
import { CandidateEvidence, Criterion, type CriterionResult } from '../../src/core/types.ts';
import { defaultConfig, type ArbiterConfig } from '../../src/config/schema.ts';

export const CRITERIA: Criterion[] = [
  Criterion.parse({ id: 'AC1', text: 'The home page shows a calendar of the current month' }),
  Criterion.parse({ id: 'AC2', text: 'Each day of the calendar holds a kanban list' }),
];

export interface CandidateSpec {
  gate?: 'pass' | 'fail' | 'timed-out' | 'pending';
  results?: Partial<CriterionResult>[];
  score?: number | null;
}

export function candidate(pr: number, spec: CandidateSpec = {}): CandidateEvidence {
  const gate = spec.gate ?? 'pass';
  const outcome = { pass: 'pass', fail: 'fail', 'timed-out': 'pending', pending: 'pending' }[gate];
  const results = spec.results ?? [
    {
      id: 'AC1',
      status: 'met',
      citation: { path: 'src/calendar.ts', quote: 'renderMonth(new Date())', line: 3 },
      source: 'small',
    },
    {
      id: 'AC2',
      status: 'met',
      citation: { path: 'src/kanban.ts', quote: 'day.lists.push(new Kanban())', line: 9 },
      source: 'small',
    },
  ];
  return CandidateEvidence.parse({
    pr,
    headSha: `sha${pr}`,
    gate: {
      required: [
        { name: 'test', outcome, raw: { pass: 'success', fail: 'failure', pending: 'in_progress' }[outcome] },
        { name: 'lint', outcome: 'pass', raw: 'success' },
      ],
      source: 'config',
      settled: gate === 'pass' || gate === 'fail' || gate === 'timed-out',
      promotable: gate === 'pass',
      reason: gate === 'pass' ? '' : `required check \`test\` ${gate}`,
      passingChecks: gate === 'pass' ? 3 : 1,
      score: spec.score ?? null,
      timedOut: gate === 'timed-out',
    },
    acceptance: { status: 'pass', results },
    changedPaths: ['src/calendar.ts', 'src/kanban.ts'],
    changedLines: 40,
  });
}

export function judgeConfig(over: Partial<ArbiterConfig['judge']> = {}): ArbiterConfig['judge'] {
  return { ...defaultConfig().judge, ...over };
}
