// portfolio.* in `.github/arbiter.yml`: defaults, the dispatch budget, and a repeated approach
// reported as an error on its own line.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/parse.ts';

describe('portfolio config', () => {
  it('has defaults: no approaches, top-k with k 2, a budget of 20 dispatches', () => {
    const r = parseConfigText('');
    expect(r.ok && r.config.portfolio).toEqual({
      approaches: [],
      composeTimeout: 3600,
      policy: 'top-k',
      k: 2,
      maxDispatches: 20,
    });
  });

  it('reads every key', () => {
    const text = [
      'portfolio:',
      '  approaches: [a, b, c]',
      '  k: 1',
      '  policy: successive-halving',
      '  composeTimeout: 600',
      '  maxDispatches: 9',
      '',
    ].join('\n');
    const r = parseConfigText(text);
    expect(r.ok && r.config.portfolio).toEqual({
      approaches: ['a', 'b', 'c'],
      k: 1,
      policy: 'successive-halving',
      composeTimeout: 600,
      maxDispatches: 9,
    });
  });

  it('names the line of a repeated approach (case and spaces do not make it distinct)', () => {
    const text = [
      'portfolio:',
      '  approaches:',
      '    - Keep state in the URL',
      '    - Use local storage',
      '    - " keep state in the url"',
      '',
    ].join('\n');
    const r = parseConfigText(text);
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.errors).toEqual([
      {
        path: 'portfolio.approaches[2]',
        line: 5,
        message: 'duplicate approach (same as portfolio.approaches[0]): each approach must be distinct',
      },
    ]);
  });

  it('refuses an unknown policy with the line', () => {
    const r = parseConfigText('portfolio:\n  policy: best-of-n\n');
    expect(r.ok ? [] : r.errors.map((e) => [e.path, e.line])).toEqual([['portfolio.policy', 2]]);
  });
});
