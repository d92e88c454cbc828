// The citation bench of issue 15: over real files of installed packages, at most 1 % of the
// lines that occur once in their file are refused, and no meaningless quote is accepted.
import { describe, expect, it } from 'vitest';
import { benchCitations, citationCorpusLine, CORPUS } from '../../bench/citations.ts';

describe('citation corpus', () => {
  const r = benchCitations();

  it('reads the corpus of installed dependencies', () => {
    expect(r.files).toBeGreaterThanOrEqual(30);
    expect(r.files).toBeLessThanOrEqual(CORPUS.reduce((n, p) => n + p.files.length, 0));
    expect(r.uniqueLines).toBeGreaterThan(2000);
  });

  it('false rejects at most 1 %, trivial accepted 0', () => {
    expect(r.falseRejects / r.uniqueLines, r.examples.join('\n')).toBeLessThanOrEqual(0.01);
    expect(r.trivialExamples).toEqual([]);
    expect(r.trivialTotal).toBeGreaterThan(50);
  });

  it("prints one line in the issue's form", () => {
    expect(citationCorpusLine(r)).toMatch(
      /^citation corpus: \d+ unique lines, false rejects \d+ \(\d+\.\d\d %\); trivial accepted 0 of \d+$/,
    );
  });
});
