// The printed transcript collapses a line that repeats the one before it, whatever its time.
import { describe, expect, it } from 'vitest';
import { collapseRepeats } from '../../sim/runner/collapse.ts';

describe('collapseRepeats', () => {
  it('prints a repeated line once with its count and last time, and keeps different lines apart', () => {
    const out: string[] = [];
    const log = collapseRepeats((l) => out.push(l));
    for (const line of ['t=0    Arbiter: check-run Arbiter / selection on #12: in_progress', 't=3    Arbiter: check-run Arbiter / selection on #12: in_progress', 't=5    Arbiter: check-run Arbiter / selection on #12: in_progress', 't=5    CI: test success on #12', 't=6    Arbiter: close #12']) log.line(line);
    log.flush();
    expect(out).toEqual([
      't=0    Arbiter: check-run Arbiter / selection on #12: in_progress (×3, to t=5)',
      't=5    CI: test success on #12',
      't=6    Arbiter: close #12',
    ]);
  });
});
