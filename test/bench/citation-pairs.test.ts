// The citation pairs of issue 24: at least 200 criterion/quote pairs from real code, labelled before
// the rule was written, in every form; the rule refuses at most 1 % of those that should verify and
// accepts none of the self-descriptions.
import { describe, expect, it } from 'vitest';
import { benchCitationPairs, citationPairsLine, loadCitationPairs } from '../../bench/citation-pairs.ts';

describe('citation pairs', () => {
  const pairs = loadCitationPairs();
  const r = benchCitationPairs(pairs);

  it('holds at least 200 pairs from installed packages, in both directions and every form', () => {
    const real = pairs.filter((p) => !p.written);
    expect(real.length).toBeGreaterThanOrEqual(200);
    expect(new Set(real.map((p) => p.pkg)).size).toBeGreaterThanOrEqual(15);
    const forms = new Set(pairs.map((p) => p.form));
    for (const form of [
      'log',
      'constant',
      'table-row',
      'test-name',
      'assert-message',
      'i18n',
      'identifier',
      'todo-file',
      'notes-file',
      'docs-folder',
      'prose-file',
      'python',
      'go',
      'html-text',
    ])
      expect(forms, form).toContain(form);
    for (const form of ['log', 'table-row', 'i18n', 'assert-message', 'docs-folder', 'todo-file'])
      expect(new Set(pairs.filter((p) => p.form === form).map((p) => p.expect)), `${form} in both directions`).toEqual(
        new Set(['verify', 'self-description']),
      );
  });

  it('every quote of a package pair occurs in the installed file it names', () => {
    expect(r.missing).toBe(0);
  });

  it('false rejects at most 1 %, false accepts 0', () => {
    expect(r.falseRejects / r.shouldVerify, r.rejectExamples.join('\n')).toBeLessThanOrEqual(0.01);
    expect(r.acceptExamples).toEqual([]);
    expect(r.selfDescriptions).toBeGreaterThanOrEqual(60);
  });

  it('prints both rates in one line', () => {
    expect(citationPairsLine(r)).toMatch(
      /^citation pairs: \d+ \(\d+ should verify, \d+ self-descriptions\): false rejects \d+ of \d+ \(\d+\.\d\d %\), false accepts 0 of \d+ \(0\.00 %\)$/,
    );
  });
});
