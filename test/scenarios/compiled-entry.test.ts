// The runner's app entry compiled to plain JavaScript over dist/ (sim/runner/compiled-entry.ts):
// every relative import it keeps names a file that exists, none names a TypeScript source (plain
// `node` cannot load one), and the rewrite leaves other specifiers alone.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compiledEntry, toDistImports } from '../../sim/runner/compiled-entry.ts';

describe('the compiled app entry', () => {
  let entry: string;
  // npm test builds dist/ first; alone, run `npm run build` before this file.
  beforeAll(async () => {
    entry = await compiledEntry();
  });

  it('imports only files that exist, none of them TypeScript', () => {
    for (const file of [entry, resolve(dirname(entry), 'sim-control.js')]) {
      const js = readFileSync(file, 'utf8');
      const specifiers = [...js.matchAll(/(?:from\s+|import\s*\(\s*)'(\.[^']+)'/g)].map((m) => m[1]);
      expect(specifiers.length).toBeGreaterThan(0);
      for (const s of specifiers) {
        expect(s, file).not.toMatch(/\.ts$/);
        expect(existsSync(resolve(dirname(file), s)), `${s} from ${file}`).toBe(true);
      }
    }
  });

  it('points sources at the build and siblings at their JavaScript', () => {
    expect(toDistImports("import { a } from '../../src/env.ts';\nimport('./x.ts');\nfrom 'zod';")).toBe(
      "import { a } from '../../dist/env.js';\nimport('./x.js');\nfrom 'zod';",
    );
  });
});
