// The printed transcript collapses a line that repeats the one before it, whatever its time,
// and leaves out a check run rewritten in_progress while it already was.
import { describe, expect, it } from 'vitest';
import { collapseRepeats } from '../../sim/runner/collapse.ts';

describe('collapseRepeats', () => {
  it('prints a repeated line once with its count and last time, and keeps different lines apart', () => {
    const out: string[] = [];
    const log = collapseRepeats((l) => out.push(l));
    for (const line of [
      't=0    Arbiter: edit comment on #42',
      't=3    Arbiter: edit comment on #42',
      't=5    Arbiter: edit comment on #42',
      't=5    CI: test success on #12',
      't=6    Arbiter: close #12',
    ])
      log.line(line);
    log.flush();
    expect(out).toEqual([
      't=0    Arbiter: edit comment on #42 (×3, to t=5)',
      't=5    CI: test success on #12',
      't=6    Arbiter: close #12',
    ]);
  });

  it('leaves out a run rewritten in_progress while it already was, and says how many', () => {
    const out: string[] = [];
    const log = collapseRepeats((l) => out.push(l));
    const lines = [
      't=0    Arbiter: check-run Arbiter / selection on #81: in_progress',
      't=0    Arbiter: check-run Arbiter / selection on #82: in_progress',
      't=2    Arbiter: check-run Arbiter / selection on #81: in_progress',
      't=3    Arbiter: check-run Arbiter / selection on #81: completed neutral',
      't=20   Arbiter: check-run Arbiter / selection on #81: in_progress',
    ];
    for (const line of lines) log.line(line);
    log.finish();
    expect(out).toEqual([
      lines[0],
      lines[1],
      lines[3],
      lines[4],
      '       (1 more in_progress update of a run already in progress not shown)',
    ]);
  });
});
