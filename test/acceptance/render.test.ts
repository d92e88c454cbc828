// Rendering of the acceptance check run: snapshots with stable inputs, conclusions, annotations, bounds.
import { describe, expect, it } from 'vitest';
import { blobUrl, CHECK_TEXT_LIMIT, renderAcceptanceCheck } from '../../src/acceptance/render.ts';
import type { AcceptanceEvidence, Criterion, CriterionResult } from '../../src/core/types.ts';

const criteria: Criterion[] = [
  { id: 'AC1', text: 'The home page shows a calendar of the current month', check: null },
  { id: 'AC2', text: 'Each day holds a kanban | list', check: null },
  { id: 'AC3', text: 'Remove the legacy week view', check: null },
  { id: 'AC4', text: 'Feels snappy on a phone', check: null },
  { id: 'AC5', text: 'Unit tests pass', check: 'test' },
];

const met = (
  id: string,
  path: string,
  line: number,
  quote: string,
  side: 'head' | 'removed' = 'head',
): CriterionResult => ({
  id,
  status: 'met',
  citation: { path, quote, line, side },
  reason: 'quote verified in the material',
  source: 'small',
});

const mixed: AcceptanceEvidence = {
  status: 'fail',
  truncated: true,
  modelCalls: { small: 1, large: 1 },
  results: [
    met('AC1', 'src/calendar.ts', 4, 'const days = daysOfMonth(`year`, month);'),
    {
      id: 'AC2',
      status: 'unclear',
      citation: null,
      reason: 'citation rejected: the quote does not occur in the cited file or patch',
      source: 'large',
    },
    met('AC3', 'src/week.ts', 1, 'export function renderLegacyWeekView() {', 'removed'),
    {
      id: 'AC4',
      status: 'uncheckable',
      citation: null,
      reason: 'needs a person or a device to check',
      source: 'small',
    },
    { id: 'AC5', status: 'gap', citation: null, reason: 'check test did not report', source: 'check' },
  ],
};

describe('renderAcceptanceCheck', () => {
  it('in progress', () => {
    expect(renderAcceptanceCheck(null, criteria, { inProgress: true })).toMatchObject({
      title: 'judging 5 criteria',
      conclusion: 'neutral',
      annotations: [],
    });
  });

  it('no criteria', () => {
    expect(
      renderAcceptanceCheck({ status: 'none', results: [], truncated: false, modelCalls: { small: 0, large: 0 } }, []),
    ).toMatchObject({
      title: 'no acceptance criteria',
      conclusion: 'neutral',
    });
  });

  it('mixed results (snapshot)', () => {
    const r = renderAcceptanceCheck(mixed, criteria);
    expect(r.conclusion).toBe('neutral');
    expect(r.title).toBe('2 of 5 criteria met (1 not judged, 1 for a person)');
    expect(r.summary).toMatchSnapshot();
    expect(r.text).toMatchSnapshot();
    expect(r.annotations).toEqual([
      {
        path: 'src/calendar.ts',
        start_line: 4,
        end_line: 4,
        annotation_level: 'notice',
        title: 'AC1 met',
        message: criteria[0].text,
      },
    ]);
  });

  it('all met is success', () => {
    const ev: AcceptanceEvidence = {
      status: 'pass',
      truncated: false,
      modelCalls: { small: 1, large: 0 },
      results: [
        met('AC1', 'a.ts', 1, 'export const calendarMonth = 1;'),
        met('AC2', 'b.ts', 2, 'export const kanbanList = [];'),
      ],
    };
    const r = renderAcceptanceCheck(ev, criteria.slice(0, 2));
    expect(r.conclusion).toBe('success');
    expect(r.title).toBe('2 of 2 criteria met');
    expect(r.summary).toMatchSnapshot();
    expect(r.annotations).toHaveLength(2);
  });

  it('a fail with every row met is still neutral', () => {
    const ev: AcceptanceEvidence = {
      status: 'fail',
      truncated: false,
      modelCalls: { small: 1, large: 0 },
      results: [met('AC1', 'a.ts', 1, 'export const calendarMonth = 1;')],
    };
    expect(renderAcceptanceCheck(ev, criteria.slice(0, 2)).conclusion).toBe('neutral');
  });

  it('200 criteria of 1,000 characters stay under GitHub’s limit', () => {
    const many: Criterion[] = Array.from({ length: 200 }, (_, i) => ({
      id: `AC${i + 1}`,
      text: `criterion ${i} `.padEnd(1000, 'x|`'),
      check: null,
    }));
    const ev: AcceptanceEvidence = {
      status: 'fail',
      truncated: false,
      modelCalls: { small: 1, large: 1 },
      results: many.map((c, i) =>
        i % 2 === 0
          ? met(c.id, `src/${'deep/'.repeat(40)}f${i}.ts`, i + 1, 'q'.repeat(5000))
          : { id: c.id, status: 'gap', citation: null, reason: 'r'.repeat(3000), source: 'none' },
      ),
    };
    const r = renderAcceptanceCheck(ev, many);
    expect(r.summary.length + r.text.length).toBeLessThan(CHECK_TEXT_LIMIT);
    expect(r.annotations).toHaveLength(100);
    expect(r.title).toBe('100 of 200 criteria met (100 not judged)');
  });
});

describe('citation links', () => {
  it('point at the repository on its own web host (GitHub Enterprise), with github.com only as the default', () => {
    const head = { owner: 'acme', repo: 'todo', sha: 'abc' };
    expect(blobUrl(head, 'src/a b.ts', 3)).toBe('https://github.com/acme/todo/blob/abc/src/a%20b.ts#L3');
    expect(blobUrl({ ...head, repoUrl: 'https://ghe.example.com/acme/todo' }, 'src/a.ts', 7)).toBe(
      'https://ghe.example.com/acme/todo/blob/abc/src/a.ts#L7',
    );
  });
});
