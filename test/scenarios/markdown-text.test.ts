// The terminal's rendering of a comment (`npm run simulate`'s final state) shows what GitHub's GFM
// rendering shows: the same table cells, in aligned columns, and none of the markup.
import { describe, expect, it } from 'vitest';
import { markdownToText } from '../../sim/runner/markdown-text.ts';
import { structureOf } from '../support/gfm.ts';

const COMPARISON = [
  '<!-- arbiter:comparison:42@main -->',
  '',
  '### Arbiter: comparison of the candidates for #42 (round 1)',
  '',
  '**#13 wins: met 3 of 3 criteria.** Its `test` check passed.',
  '',
  '- [#13](https://github.example/acme/todo/pull/13): ships',
  '- [#12](https://github.example/acme/todo/pull/12): Lost to #13.',
  '',
  '| Criterion | [#13](https://github.example/acme/todo/pull/13) by @agent-b | [#12](https://github.example/acme/todo/pull/12) by @agent-a |',
  '| --- | :---: | :---: |',
  '| **AC1** The home page shows a calendar | ✅ | ❌ |',
  '| **AC2** A pipe \\| inside a cell | ✅ | ✅ |',
  '| Required checks | [✅ passed](https://github.example/acme/todo/pull/13/checks) | ❌ failed: `test` |',
  '',
  '<details>',
  '<summary>The 2 criteria in full</summary>',
  '',
  '- **AC1** The home page shows a calendar',
  '',
  '</details>',
  '',
  '<!-- arbiter:receipt {"kind":"CANDIDATE_SELECTION"} -->',
].join('\n');

describe('markdownToText', () => {
  const text = markdownToText(COMPARISON);

  it('shows every table cell GitHub renders, in aligned columns', () => {
    const [table] = structureOf(COMPARISON).tables;
    const header = text.findIndex((l) => l.startsWith('Criterion'));
    expect(header).toBeGreaterThanOrEqual(0);
    const rows = [table.headers, ...table.rows];
    const shown = text.slice(header, header + rows.length + 1).filter((l) => !/^-+(\s+-+)*$/.test(l));
    expect(shown).toHaveLength(rows.length);
    const starts: number[][] = [];
    for (const [i, cells] of rows.entries()) {
      let at = 0;
      starts.push([]);
      for (const cell of cells) {
        const found = shown[i].indexOf(cell.trim(), at);
        expect(found, `row ${i}: "${cell}" in "${shown[i]}"`).toBeGreaterThanOrEqual(at);
        starts[i].push(found);
        at = found + cell.trim().length;
      }
    }
    // Aligned: the second column starts at the same place on every row.
    expect(new Set(starts.map((s) => s[1])).size).toBe(1);
  });

  it('keeps what a reader sees and drops the markup and the hidden markers', () => {
    const visible = structureOf(COMPARISON).visible;
    for (const words of [
      'Arbiter: comparison of the candidates for #42',
      '#13 wins: met 3 of 3 criteria.',
      'Lost to #13.',
    ])
      expect(visible).toContain(words);
    const all = text.join('\n');
    expect(all).toContain('Arbiter: comparison of the candidates for #42 (round 1)');
    expect(all).toContain('#13 wins: met 3 of 3 criteria. Its test check passed.');
    expect(all).toContain('- #12: Lost to #13.');
    expect(all).toContain('▸ The 2 criteria in full');
    for (const markup of ['###', '**', '](', '<details>', '<!--', 'arbiter:receipt', '| ---'])
      expect(all).not.toContain(markup);
  });

  it('folds blank lines and never starts or ends with one', () => {
    expect(text[0]).not.toBe('');
    expect(text.at(-1)).not.toBe('');
    expect(text.some((l, i) => l === '' && text[i + 1] === '')).toBe(false);
  });
});
