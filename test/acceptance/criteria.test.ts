// Table tests of the acceptance-criteria parser (src/core/criteria.ts).
import { describe, expect, it } from 'vitest';
import { MAX_CRITERIA, MAX_CRITERION_CHARS, parseCriteria } from '../../src/core/criteria.ts';

const texts = (body: string): string[] => parseCriteria(body).map((c) => c.text);

const table: { name: string; body: string; want: string[] }[] = [
  {
    name: 'task list under h2',
    body: '## Acceptance criteria\n- [ ] Shows a calendar\n- [x] Each day holds a list\n',
    want: ['Shows a calendar', 'Each day holds a list'],
  },
  {
    name: 'any heading level, case-insensitive',
    body: '###### ACCEPTANCE CRITERIA\n* one\n* two',
    want: ['one', 'two'],
  },
  { name: 'h1 with closing hashes and colon', body: '# Acceptance criteria: ##\n+ one', want: ['one'] },
  { name: 'bold line', body: 'Intro text.\n\n**Acceptance criteria**\n- a\n- b\n\nAfter text.', want: ['a', 'b'] },
  { name: 'bold line with colon inside', body: '**Acceptance Criteria:**\n1. a\n2. b', want: ['a', 'b'] },
  { name: 'bold line with colon outside', body: '__acceptance criteria__:\n1) a\n2) b', want: ['a', 'b'] },
  { name: 'setext heading', body: 'Acceptance criteria\n-------------------\n- a\n- b', want: ['a', 'b'] },
  {
    name: 'numbered items',
    body: '## Acceptance criteria\n1. first\n2. second\n10. tenth',
    want: ['first', 'second', 'tenth'],
  },
  {
    name: 'nested items join their parent',
    body: '## Acceptance criteria\n- parent\n  - child one\n  - child two\n- next',
    want: ['parent; child one; child two', 'next'],
  },
  {
    name: 'nested under numbered',
    body: '## Acceptance criteria\n1. parent\n   1. child\n2. next',
    want: ['parent; child', 'next'],
  },
  {
    name: 'indented continuation line',
    body: '## Acceptance criteria\n- a long item\n  that wraps\n- b',
    want: ['a long item that wraps', 'b'],
  },
  { name: 'ends at same-level heading', body: '## Acceptance criteria\n- a\n## Notes\n- not a criterion', want: ['a'] },
  { name: 'ends at higher-level heading', body: '### Acceptance criteria\n- a\n# Other\n- no', want: ['a'] },
  {
    name: 'deeper heading stays in section',
    body: '## Acceptance criteria\n### UI\n- a\n### API\n- b\n## Notes\n- c',
    want: ['a', 'b'],
  },
  { name: 'bold section ends at any heading', body: '**Acceptance criteria**\n- a\n#### Sub\n- b', want: ['a'] },
  {
    name: 'ends at a non-list paragraph',
    body: '## Acceptance criteria\n- a\n\nSome prose.\n\n- not a criterion',
    want: ['a'],
  },
  {
    name: 'intro paragraph before items is skipped',
    body: '## Acceptance criteria\nThe following must hold:\n\n- a\n- b',
    want: ['a', 'b'],
  },
  { name: 'blank lines between items', body: '## Acceptance criteria\n\n- a\n\n- b\n', want: ['a', 'b'] },
  {
    name: 'fenced code is ignored',
    body: '## Acceptance criteria\n- a\n```md\n- fake\n## Acceptance criteria\n- fake2\n```\n- b',
    want: ['a', 'b'],
  },
  { name: 'heading inside a fence opens nothing', body: '~~~\n## Acceptance criteria\n- fake\n~~~\nText', want: [] },
  { name: 'no section, no criteria', body: '## Description\n- a\n- b', want: [] },
  { name: 'other heading names do not count', body: '## Acceptance criteria (draft)\n- a', want: [] },
  { name: 'empty task items are skipped', body: '## Acceptance criteria\n- [ ]\n- [ ] real', want: ['real'] },
  {
    name: 'two sections are read in order',
    body: '## Acceptance criteria\n- a\n## Other\ntext\n**Acceptance criteria**\n- b',
    want: ['a', 'b'],
  },
  { name: 'CRLF line endings', body: '## Acceptance criteria\r\n- a\r\n- b\r\n', want: ['a', 'b'] },
  { name: 'thematic break ends the section', body: '## Acceptance criteria\n- a\n\n---\n\n- b', want: ['a'] },
  {
    name: 'whitespace collapses',
    body: '## Acceptance criteria\n-   spaced    out\ttext  ',
    want: ['spaced out text'],
  },
  {
    name: 'HTML comments are skipped',
    body: '## Acceptance criteria\n<!-- e.g.\n- [ ] example item\n-->\n- real <!-- note -->\n- two',
    want: ['real', 'two'],
  },
  { name: 'tab-indented child', body: '## Acceptance criteria\n- parent\n\t- child', want: ['parent; child'] },
];

describe('parseCriteria', () => {
  it.each(table)('$name', ({ body, want }) => {
    expect(texts(body)).toEqual(want);
  });

  it('numbers criteria AC1…ACn in order', () => {
    const got = parseCriteria('## Acceptance criteria\n- a\n- b\n- c');
    expect(got.map((c) => c.id)).toEqual(['AC1', 'AC2', 'AC3']);
    expect(got.every((c) => c.check === null)).toBe(true);
  });

  it('reads a (check: NAME) suffix and drops it from the text', () => {
    const got = parseCriteria(
      '## Acceptance criteria\n- [ ] Unit tests pass (check: test)\n- Lint is clean (Check:  ci/lint )\n- plain',
    );
    expect(got).toEqual([
      { id: 'AC1', text: 'Unit tests pass', check: 'test' },
      { id: 'AC2', text: 'Lint is clean', check: 'ci/lint' },
      { id: 'AC3', text: 'plain', check: null },
    ]);
  });

  it('a (check: NAME) in the middle of the text is not a suffix', () => {
    const got = parseCriteria('## Acceptance criteria\n- runs (check: test) quickly');
    expect(got[0]).toEqual({ id: 'AC1', text: 'runs (check: test) quickly', check: null });
  });

  it(`reads at most ${MAX_CRITERIA} criteria`, () => {
    const items = Array.from({ length: MAX_CRITERIA + 50 }, (_, i) => `- item ${i}`).join('\n');
    const got = parseCriteria(`## Acceptance criteria\n${items}`);
    expect(got).toHaveLength(MAX_CRITERIA);
    expect(got[MAX_CRITERIA - 1]).toMatchObject({ id: `AC${MAX_CRITERIA}`, text: `item ${MAX_CRITERIA - 1}` });
  });

  it(`cuts a criterion to ${MAX_CRITERION_CHARS} characters`, () => {
    const got = parseCriteria(`## Acceptance criteria\n- ${'x'.repeat(5000)}`);
    expect(got[0].text.length).toBe(MAX_CRITERION_CHARS);
    expect(got[0].text.endsWith('…')).toBe(true);
  });
});
