// renderConfigCheck (pure): title, summary lines, annotation limits and the summary size cap.
import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../src/config/errors.ts';
import { MAX_ANNOTATIONS, renderConfigCheck } from '../../src/config/check-output.ts';
import { parseConfigText } from '../../src/config/parse.ts';

const invalid = (errors: ConfigError[]) => renderConfigCheck({ ok: false, errors, text: '' });

describe('renderConfigCheck', () => {
  it('lists every error but annotates at most 50 lines', () => {
    const text = Array.from({ length: 60 }, (_, i) => `unknown${i}: 1`).join('\n');
    const parsed = parseConfigText(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    const output = renderConfigCheck({ ok: false, errors: parsed.errors, text });
    expect(output.title).toBe('Invalid .github/arbiter.yml: 60 errors');
    expect(output.annotations).toHaveLength(MAX_ANNOTATIONS);
    expect(output.annotations[0]).toMatchObject({
      path: '.github/arbiter.yml',
      start_line: 1,
      end_line: 1,
      annotation_level: 'failure',
    });
    expect(output.summary).toContain('unknown59 (line 60): unknown key');
  });

  it('does not annotate errors that are in another file or have no line', () => {
    const output = invalid([
      { path: 'gate.requird', line: null, file: 'acme/.github:.github/arbiter.yml', message: 'unknown key' },
      { path: 'mode', line: 2, message: 'expected one of "live", "shadow", got "x"' },
    ]);
    expect(output.annotations.map((a) => a.start_line)).toEqual([2]);
    expect(output.summary).toContain('gate.requird: unknown key (in acme/.github:.github/arbiter.yml)');
  });

  it('keeps a summary with very many errors within the check-run limit and says how many were left out', () => {
    const errors = Array.from({ length: 5000 }, (_, i) => ({ path: `key${i}`, line: i + 1, message: 'x'.repeat(30) }));
    const output = invalid(errors);
    expect(output.summary.length).toBeLessThanOrEqual(65_535);
    expect(output.summary).toMatch(/… and \d+ more/);
  });

  it('keeps a backtick in a value from closing the fenced list', () => {
    const output = invalid([{ path: 'mode', line: 1, message: 'got "```"' }]);
    expect(output.summary).toContain('````text\nmode (line 1): got "```"\n````');
  });

  it('says where a valid configuration came from', () => {
    const fromDefault = renderConfigCheck({ ok: true, config: parseOk(''), source: 'default', files: [] });
    expect(fromDefault).toMatchObject({ conclusion: 'success', title: 'Configuration is valid', annotations: [] });
    expect(fromDefault.summary).toMatch(/defaults/);
  });

  it('says which mode the configuration sets, and in shadow mode that it would act and changes nothing', () => {
    const live = renderConfigCheck({ ok: true, config: parseOk(''), source: 'default', files: [] });
    expect(live.summary).toContain('Mode: `live`: Arbiter acts on pull requests.');
    const shadow = renderConfigCheck({
      ok: true,
      config: parseOk('mode: shadow\n'),
      source: 'file',
      files: ['.github/arbiter.yml'],
    });
    expect(shadow.summary).toContain('Mode: `shadow`');
    expect(shadow.summary).toContain('what it would do; it changes no pull request.');
  });
});

const parseOk = (text: string) => {
  const result = parseConfigText(text);
  if (!result.ok) throw new Error('expected a valid config');
  return result.config;
};
