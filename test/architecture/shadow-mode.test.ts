// Shadow mode is one filter (issue 26 item 2): the configured mode is read by `forMode`
// (src/core/shadow.ts) and the renderers (src/core/render/) only. The reads that remain elsewhere
// are listed below by file, and the list may only shrink: a new read fails, and so does a listed
// one that is gone (take it off the list).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { modeReads } from './mode-reads.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function listTs(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return listTs(path);
      return path.endsWith('.ts') ? [path] : [];
    });
}

const ALLOWED = (file: string) => file === 'src/core/shadow.ts' || file.startsWith('src/core/render/');

/**
 * Reads of the mode outside the filter that are still to move into it, by file (how many).
 * Shrink only. What each does today is in docs/ARCHITECTURE.md, "Shadow mode".
 */
const NOT_YET_MOVED: Record<string, number> = {
  'src/core/plan/portfolio.ts': 1,
  'src/core/plan/selection.ts': 1,
  // The mode a sets-only decision's receipt records (SelectionData.mode), as selection.ts's receipt does.
  'src/core/plan/sets-only.ts': 1,
};

const count = (reads: string[]): Record<string, number> => {
  const byFile: Record<string, number> = {};
  for (const r of reads) {
    const file = r.slice(0, r.lastIndexOf(':'));
    byFile[file] = (byFile[file] ?? 0) + 1;
  }
  return byFile;
};

/** Reads of another `mode` that share the name: the tie-break judge's own (`judge.mode`: ab | single). */
const OTHER_MODES: Record<string, number> = { 'src/judge/judge.ts': 1 };

describe('shadow mode is read in one place', () => {
  it('no file of src/ reads the mode but the filter, the renderers and the shrinking list', () => {
    const reads = listTs(join(ROOT, 'src')).flatMap((f) => modeReads(relative(ROOT, f), readFileSync(f, 'utf8')));
    const outside = reads.filter((r) => !ALLOWED(r.slice(0, r.lastIndexOf(':'))));
    console.log(
      `reads of the mode outside the shadow filter and the renderers: ${outside.length}\n  ${outside.join('\n  ')}`,
    );
    expect(count(outside)).toEqual({ ...NOT_YET_MOVED, ...OTHER_MODES });
  });

  it("the check finds a read of a config's mode under any name, and no other mode", () => {
    const text = [
      "import type { ArbiterConfig, SelectionConfig } from './config.ts';",
      'export function step(ctx: { config: ArbiterConfig }, c: SelectionConfig, other: { mode: string }) {',
      "  if (ctx.config.mode === 'shadow') return 1;",
      '  const { mode } = ctx.config;',
      '  const shadow = c.mode;',
      '  const answer = other.mode;',
      '  return [mode, shadow, answer, req.mode];',
      '}',
    ].join('\n');
    expect(modeReads('step.ts', text)).toEqual(['step.ts:3', 'step.ts:4', 'step.ts:5']);
  });
});
