// Context building: order (patch before files), limits, truncation marks, binary files, very
// large PRs and files, redaction; the two-query gathering with references and entry points.
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { buildAcceptanceContext, selectContextFiles, type AcceptanceConfig } from '../../src/acceptance/context.ts';
import { gatherHeadFiles } from '../../src/acceptance/gather.ts';
import type { HeadFile } from '../../src/core/head-files.ts';
import { readHead, type GraphqlClient } from '../../src/github/head-reads.ts';
import { findReferences } from '../../src/acceptance/references.ts';
import type { PatchRow } from '../../src/store/types.ts';

const config = (over: Partial<AcceptanceConfig> = {}): AcceptanceConfig => ({ ...defaultConfig().acceptance, ...over });
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
const head = (text: string, over: Partial<HeadFile> = {}): HeadFile => ({
  text,
  byteSize: bytes(text),
  isBinary: false,
  isTruncated: false,
  ...over,
});

const diffFor = (paths: string[]): string =>
  paths.map((p) => `diff --git a/${p} b/${p}\n--- a/${p}\n+++ b/${p}\n@@ -1 +1 @@\n-old ${p}\n+new ${p}\n`).join('');

const patchRow = (paths: string[], over: Partial<PatchRow> = {}): PatchRow => ({
  repo: 'acme/todo',
  pr: 12,
  headSha: 'h1',
  mergeBase: 'm1',
  patch: diffFor(paths),
  truncated: false,
  files: paths.map((p) => ({ path: p, status: 'modified', additions: 1, deletions: 1 })),
  ...over,
});

describe('buildAcceptanceContext', () => {
  it('puts the patch first, then changed files, then other files', () => {
    const patch = patchRow(['src/b.ts', 'src/a.ts']);
    const headFiles = new Map([
      ['public/index.html', head('<script src="app.js"></script>')],
      ['src/b.ts', head('export const b = 2;')],
      ['src/a.ts', head('export const a = 1;')],
    ]);
    const ctx = buildAcceptanceContext({ patch, headFiles, config: config() });
    const at = (s: string): number => ctx.material.indexOf(s);
    expect(at('===== PATCH =====')).toBe(0);
    expect(at('+new src/b.ts')).toBeGreaterThan(0);
    expect(at('FILE src/b.ts')).toBeGreaterThan(at('+new src/a.ts'));
    expect(at('FILE src/a.ts')).toBeGreaterThan(at('FILE src/b.ts'));
    expect(at('FILE public/index.html')).toBeGreaterThan(at('FILE src/a.ts'));
    expect(ctx.sent.map((f) => f.path)).toEqual(['src/b.ts', 'src/a.ts', 'public/index.html']);
    expect(ctx.truncated).toBe(false);
    expect(ctx.patchText).toBe(patch.patch);
  });

  it('sends at most maxFiles files and lists the rest as not sent', () => {
    const paths = Array.from({ length: 10 }, (_, i) => `src/f${i}.ts`);
    const ctx = buildAcceptanceContext({
      patch: patchRow(paths),
      headFiles: new Map(paths.map((p) => [p, head(`export const v = "${p}";`)])),
      config: config({ maxFiles: 3 }),
    });
    expect(ctx.sent.map((f) => f.path)).toEqual(['src/f0.ts', 'src/f1.ts', 'src/f2.ts']);
    expect(ctx.omitted).toHaveLength(7);
    expect(ctx.truncated).toBe(true);
    expect(ctx.material).toContain('FILES NOT SENT (limits)');
    expect(ctx.material).toContain('- src/f9.ts');
  });

  it('stays within maxBytes, marks a cut file truncated and cuts at a line end', () => {
    const big = Array.from({ length: 4000 }, (_, i) => `line ${i}: some content here`).join('\n');
    const ctx = buildAcceptanceContext({
      patch: patchRow(['src/big.ts']),
      headFiles: new Map([['src/big.ts', head(big)]]),
      config: config({ maxBytes: 8192 }),
    });
    expect(bytes(ctx.material)).toBeLessThanOrEqual(8192);
    expect(ctx.sent[0].truncated).toBe(true);
    expect(ctx.truncated).toBe(true);
    expect(ctx.material).toContain(`FILE src/big.ts (truncated: ${bytes(big)} bytes in full)`);
    expect(ctx.material).toContain('[… truncated by Arbiter]');
    expect(big.startsWith(ctx.sent[0].text)).toBe(true);
    expect(ctx.sent[0].text.endsWith('\n')).toBe(true);
  });

  it('names binary files but never sends them', () => {
    const patch = patchRow(['src/a.ts']);
    patch.files.push({ path: 'img/logo.png', status: 'added', additions: 0, deletions: 0, binary: true });
    const ctx = buildAcceptanceContext({
      patch,
      headFiles: new Map([
        ['src/a.ts', head('export const a = 1;')],
        ['img/icon.ico', { text: null, byteSize: 5000, isBinary: true, isTruncated: false }],
      ]),
      config: config(),
    });
    expect(ctx.binary).toEqual(['img/logo.png', 'img/icon.ico']);
    expect(ctx.sent.map((f) => f.path)).toEqual(['src/a.ts']);
    expect(ctx.material).toContain('===== BINARY FILES (named, not sent) =====\n');
    expect(ctx.material).toContain('- img/icon.ico');
    expect(ctx.material).not.toContain('FILE img/icon.ico');
  });

  it('keeps a 10,000-file PR within the limits', () => {
    const paths = Array.from({ length: 10_000 }, (_, i) => `pkg/m${i}/index.ts`);
    const patch = patchRow(paths);
    patch.files.push(
      ...Array.from({ length: 500 }, (_, i) => ({
        path: `assets/b${i}.png`,
        status: 'added',
        additions: 0,
        deletions: 0,
        binary: true,
      })),
    );
    const headFiles = new Map(paths.slice(0, 24).map((p) => [p, head(`export const x = '${p}';\n`.repeat(200))]));
    const cfg = config();
    const first = selectContextFiles({ patch, config: cfg });
    expect(first.paths).toHaveLength(cfg.maxFiles);
    const ctx = buildAcceptanceContext({ patch, headFiles, config: cfg });
    expect(bytes(ctx.material)).toBeLessThanOrEqual(cfg.maxBytes);
    expect(ctx.truncated).toBe(true);
    expect(ctx.material.startsWith('===== PATCH (truncated:')).toBe(true);
    expect(ctx.sent.length).toBeGreaterThan(0);
    expect(ctx.sent.length).toBeLessThanOrEqual(cfg.maxFiles);
    expect(ctx.material).toMatch(/- … and \d+ more/);
  });

  it('keeps a 50 MB file within the limits', () => {
    const huge = 'const filler = "0123456789abcdef";\n'.repeat(1_500_000);
    expect(huge.length).toBeGreaterThan(50_000_000);
    const ctx = buildAcceptanceContext({
      patch: patchRow(['data/huge.ts']),
      headFiles: new Map([['data/huge.ts', head(huge)]]),
      config: config(),
    });
    expect(bytes(ctx.material)).toBeLessThanOrEqual(config().maxBytes);
    expect(ctx.sent[0].text.length).toBeLessThan(config().maxBytes);
    expect(ctx.sent[0].truncated).toBe(true);
  });

  it('a huge patch leaves room for the files', () => {
    const paths = Array.from({ length: 3000 }, (_, i) => `src/m${i}.ts`);
    const ctx = buildAcceptanceContext({
      patch: patchRow(paths),
      headFiles: new Map([['src/m0.ts', head('export const m0 = "the first module";')]]),
      config: config(),
    });
    expect(ctx.sent.map((f) => f.path)).toEqual(['src/m0.ts']);
    expect(ctx.material.indexOf('FILE src/m0.ts')).toBeGreaterThan(ctx.material.indexOf('PATCH'));
    expect(bytes(ctx.material)).toBeLessThanOrEqual(config().maxBytes);
  });

  it('marks a patch stored truncated, and a file GitHub cut', () => {
    const ctx = buildAcceptanceContext({
      patch: patchRow(['a.ts'], { truncated: true }),
      headFiles: new Map([['a.ts', head('export const a = 1;', { isTruncated: true, byteSize: 9_000_000 })]]),
      config: config(),
    });
    expect(ctx.material).toContain('===== PATCH (truncated:');
    expect(ctx.material).toContain('FILE a.ts (truncated: 9000000 bytes in full)');
    expect(ctx.sent[0].truncated).toBe(true);
  });

  it('redacts secrets in the patch and the files, including one straddling the cut', () => {
    const token = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
    const key = `sk-ant-api03-${'x9Y8z7'.repeat(8)}`;
    const filler = 'x'.repeat(2000);
    const ctx = buildAcceptanceContext({
      patch: { ...patchRow(['src/env.ts']), patch: `${diffFor(['src/env.ts'])}+const t = "${token}";\n` },
      headFiles: new Map([['src/env.ts', head(`${filler}\nconst k = "${key}";\n${filler}`)]]),
      config: config({ maxBytes: 2048 + 1024 + 600 }),
    });
    expect(ctx.material).not.toContain(token);
    expect(ctx.material).not.toContain(key.slice(0, 24));
    expect(ctx.material).not.toContain('sk-ant-api03');
  });
});

describe('findReferences', () => {
  it.each([
    [
      'public/index.html',
      '<script type="module" src="./js/app.js"></script><link rel="stylesheet" href="style.css?v=2">',
      [['public/js/app.js', 'public/js/app.ts', 'public/js/app.tsx'], ['public/style.css']],
    ],
    [
      'public/index.html',
      '<script src="https://cdn.example.com/x.js"></script><script src="/main.js"></script>',
      [['public/main.js', 'public/main.ts', 'public/main.tsx', 'main.js', 'main.ts', 'main.tsx']],
    ],
    [
      'src/app.ts',
      "import { a } from './a.js';\nexport * from '../lib/b';\nimport 'react';",
      [
        ['src/a.js', 'src/a.ts', 'src/a.tsx'],
        [
          'lib/b',
          'lib/b.ts',
          'lib/b.tsx',
          'lib/b.js',
          'lib/b.mjs',
          'lib/b/index.ts',
          'lib/b/index.tsx',
          'lib/b/index.js',
          'lib/b/index.mjs',
        ],
      ],
    ],
    ['src/x.js', "const c = require('./c.mjs');", [['src/c.mjs', 'src/c.mts']]],
    ['src/x.ts', "import '../../outside.ts';", []],
    ['README.md', "import x from './a.ts'", []],
  ])('%s', (path, text, want) => {
    expect(findReferences(path, text)).toEqual(want);
  });
});

describe('gatherHeadFiles', () => {
  const tree: Record<string, string> = {
    'src/app.ts': "import { board } from './board.js';\nimport './missing';",
    'src/board.ts': 'export const board = 1;',
    'public/index.html': '<script src="app.js"></script>',
    'public/app.js': 'console.log("app");',
    'public/pages/about.html': '<p>about</p>',
    'public/pages/contact.html': '<p>contact</p>',
  };
  const fake =
    (calls: Record<string, unknown>[]): GraphqlClient =>
    async (_q, variables = {}) => {
      calls.push(variables);
      const repository: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(variables)) {
        if (typeof value !== 'string' || !/^[ed]\d+$/.test(name)) continue;
        const path = value.slice(value.indexOf(':') + 1);
        if (name.startsWith('e')) {
          const text = tree[path];
          repository[name.replace('e', 'f')] =
            text === undefined ? null : { text, byteSize: bytes(text), isBinary: false, isTruncated: false };
        } else {
          repository[name] = {
            entries: Object.keys(tree)
              .filter((p) => p.startsWith(`${path}/`))
              .map((p) => ({ path: p, type: 'blob' })),
          };
        }
      }
      return { repository };
    };

  it('reads changed files, entry points, glob matches and references in two queries', async () => {
    const calls: Record<string, unknown>[] = [];
    const files = await gatherHeadFiles((i) => readHead(fake(calls), { owner: 'acme', repo: 'todo', ...i }), {
      sha: 'h1',
      patch: patchRow(['src/app.ts']),
      config: config({ alwaysInclude: ['public/index.html', 'public/pages/*.html'] }),
    });
    expect(calls).toHaveLength(2);
    expect([...files.keys()]).toEqual([
      'src/app.ts',
      'public/index.html',
      'public/pages/about.html',
      'public/pages/contact.html',
      'src/board.ts',
      'public/app.js',
    ]);
  });

  it('asks once when the first read already fills maxFiles', async () => {
    const calls: Record<string, unknown>[] = [];
    const files = await gatherHeadFiles((i) => readHead(fake(calls), { owner: 'a', repo: 'b', ...i }), {
      sha: 'h1',
      patch: patchRow(['src/app.ts']),
      config: config({ maxFiles: 1 }),
    });
    expect(calls).toHaveLength(1);
    expect([...files.keys()]).toEqual(['src/app.ts']);
  });
});
