// Table tests of parseConfigText: YAML errors, schema errors with their key path and line,
// `_extends`, empty files and base layers.
import { describe, expect, it } from 'vitest';
import { formatConfigError, type ConfigError } from '../../src/config/errors.ts';
import { parseConfigText } from '../../src/config/parse.ts';
import { defaultConfig } from '../../src/config/schema.ts';

type Expected = Pick<ConfigError, 'path' | 'line'> & { message: RegExp };

const invalid: { name: string; text: string; errors: Expected[] }[] = [
  {
    name: 'invalid YAML names its line',
    text: 'mode: live\ngate:\n  required: [test\n',
    errors: [{ path: '', line: 4, message: /^invalid YAML: / }],
  },
  {
    name: 'compact nested mapping is a YAML error on its line',
    text: 'mode: live\n\nfoo: a: b\n',
    errors: [{ path: '', line: 3, message: /^invalid YAML: Nested mappings/ }],
  },
  {
    name: 'duplicate key',
    text: 'mode: live\nmode: shadow\n',
    errors: [{ path: '', line: 2, message: /unique/ }],
  },
  {
    name: 'wrong type',
    text: 'mode: live\nacceptance:\n  required: true\n  maxFiles: twenty\n',
    errors: [{ path: 'acceptance.maxFiles', line: 4, message: /^expected a number, got "twenty"$/ }],
  },
  {
    name: 'not a whole number',
    text: 'acceptance:\n  maxBytes: 2048.5\n',
    errors: [{ path: 'acceptance.maxBytes', line: 2, message: /^expected a whole number, got 2048.5$/ }],
  },
  {
    name: 'unknown key at top level, with a suggestion',
    text: 'mode: live\nacceptence:\n  maxFiles: 3\n',
    errors: [{ path: 'acceptence', line: 2, message: /^unknown key \(did you mean "acceptance"\?\)$/ }],
  },
  {
    name: 'unknown key nested',
    text: 'gate:\n  required: [test]\n  requird: [lint]\n',
    errors: [{ path: 'gate.requird', line: 3, message: /^unknown key/ }],
  },
  {
    name: 'unknown key with nothing close',
    text: 'policy:\n  zzzzzzzzzz: 1\n',
    errors: [{ path: 'policy.zzzzzzzzzz', line: 2, message: /^unknown key$/ }],
  },
  {
    name: 'bad enum',
    text: '# comment\nmode: shadw\n',
    errors: [{ path: 'mode', line: 2, message: /^expected one of "live", "shadow", got "shadw"/ }],
  },
  {
    name: 'bad enum inside a list',
    text: 'policy:\n  autoShip:\n    - low\n    - extreme\n',
    errors: [
      { path: 'policy.autoShip[1]', line: 4, message: /^expected one of "low", "medium", "high", got "extreme"$/ },
    ],
  },
  {
    name: 'out of range',
    text: 'acceptance:\n  maxFiles: 500\n',
    errors: [{ path: 'acceptance.maxFiles', line: 2, message: /^must be at most 200, got 500$/ }],
  },
  {
    name: 'rubric item errors name the item and the line',
    text: 'judge:\n  mode: rubric\n  rubric:\n    - id: Bad Id\n      description: ""\n    - id: ok\n',
    errors: [
      { path: 'judge.rubric[0].id', line: 4, message: /lower-case id/ },
      { path: 'judge.rubric[0].description', line: 5, message: /^must not be empty$/ },
      { path: 'judge.rubric[1].description', line: 6, message: /^is required$/ },
    ],
  },
  {
    name: 'composite.order names repositories in full, each once',
    text: 'composite:\n  order:\n    - acme/api\n    - ui\n    - ACME/api\n',
    errors: [
      { path: 'composite.order[1]', line: 4, message: /^a repository full name, like `acme\/api`, got "ui"$/ },
      { path: 'composite.order[2]', line: 5, message: /^duplicate repository \(same as composite\.order\[0\]\)/ },
    ],
  },
  {
    name: 'a list where a mapping belongs',
    text: 'gate:\n  - test\n',
    errors: [{ path: 'gate', line: 1, message: /^expected a mapping of keys, got a list$/ }],
  },
  {
    name: 'the file is not a mapping',
    text: '- a\n- b\n',
    errors: [{ path: '', line: 1, message: /^expected a mapping of settings, got a list$/ }],
  },
  {
    name: '_extends must be a string',
    text: 'mode: live\n_extends: [a, b]\n',
    errors: [{ path: '_extends', line: 2, message: /^expected a string/ }],
  },
  {
    name: 'several errors come back sorted by line',
    text: 'mode: x\ngate:\n  score: 3\ncommands:\n  prefix: arbiter\n',
    errors: [
      { path: 'mode', line: 1, message: /expected one of/ },
      { path: 'gate.score', line: 3, message: /^expected a string, got 3$/ },
      { path: 'commands.prefix', line: 5, message: /^must match/ },
    ],
  },
];

describe('parseConfigText: invalid files', () => {
  it.each(invalid)('$name', ({ text, errors }) => {
    const result = parseConfigText(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => ({ path: e.path, line: e.line }))).toEqual(
      errors.map((e) => ({ path: e.path, line: e.line })),
    );
    result.errors.forEach((error, i) => expect(error.message).toMatch(errors[i].message));
  });

  it('formats each error as one `path (line N): message` line', () => {
    const result = parseConfigText('gate:\n  required: []\n  requird: [x]\nacceptance:\n  maxFiles: twenty\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const lines = result.errors.map(formatConfigError);
    expect(lines).toEqual([
      'gate.requird (line 3): unknown key (did you mean "required"?)',
      'acceptance.maxFiles (line 5): expected a number, got "twenty"',
    ]);
    for (const line of lines) expect(line).not.toContain('\n');
  });

  it('names the file for a YAML error, on one line', () => {
    const result = parseConfigText('a: b: c\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = formatConfigError(result.errors[0]);
    expect(line).toMatch(/^\.github\/arbiter\.yml \(line 1\): invalid YAML: /);
    expect(line).not.toContain('\n');
  });
});

describe('parseConfigText: valid files', () => {
  it.each([
    { name: 'empty file', text: '' },
    { name: 'only comments', text: '# nothing configured yet\n' },
    { name: 'explicit null document', text: '~\n' },
    { name: 'a section whose children are commented out', text: 'gate:\n  # required: [test]\n' },
  ])('$name gives the defaults', ({ text }) => {
    expect(parseConfigText(text)).toEqual({ ok: true, config: defaultConfig() });
  });

  it('accepts _extends at top level and ignores it for the config', () => {
    const result = parseConfigText('_extends: my-org/.github\nmode: shadow\n');
    expect(result).toEqual({ ok: true, config: { ...defaultConfig(), mode: 'shadow' } });
  });

  it('fills defaults around what is written', () => {
    const result = parseConfigText(
      'gate:\n  required: [test, "ci/*"]\n  score: bench\npolicy:\n  mergeMethod: rebase\n',
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.gate).toEqual({ required: ['test', 'ci/*'], allowNoChecks: false, score: 'bench' });
    expect(result.config.policy.mergeMethod).toBe('rebase');
    expect(result.config.policy.autoShip).toEqual(['low', 'medium']);
    expect(result.config.acceptance.maxFiles).toBe(24);
  });
});

describe('parseConfigText: base layer from _extends', () => {
  const baseSource = 'acme/.github:.github/arbiter.yml';

  it('merges mappings key by key and lets the file win', () => {
    const base = { mode: 'shadow', gate: { required: ['test'] }, policy: { mergeMethod: 'merge', autoShip: ['low'] } };
    const result = parseConfigText('_extends: .github\npolicy:\n  autoShip: [low, medium, high]\n', {
      base,
      baseSource,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.mode).toBe('shadow');
    expect(result.config.gate.required).toEqual(['test']);
    expect(result.config.policy).toMatchObject({ mergeMethod: 'merge', autoShip: ['low', 'medium', 'high'] });
  });

  it('says when an error comes from the base file', () => {
    const base = { gate: { requird: ['test'] }, policy: { mergeMethod: 'fast-forward' } };
    const result = parseConfigText('_extends: .github\ngate:\n  score: bench\n', { base, baseSource });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { path: 'gate.requird', line: null, file: baseSource, message: 'unknown key (did you mean "required"?)' },
      {
        path: 'policy.mergeMethod',
        line: null,
        file: baseSource,
        message: expect.stringMatching(/got "fast-forward"/),
      },
    ]);
    expect(formatConfigError(result.errors[0])).toBe(
      `gate.requird: unknown key (did you mean "required"?) (in ${baseSource})`,
    );
  });

  it('blames the file, not the base, for a value the file replaced', () => {
    const base = { acceptance: { maxFiles: 10 } };
    const result = parseConfigText('acceptance:\n  maxFiles: lots\n', { base, baseSource });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([{ path: 'acceptance.maxFiles', line: 2, message: 'expected a number, got "lots"' }]);
  });
});
