// The runner's app entry (app-entry.ts and sim-control.ts) as plain JavaScript over the compiled
// build, so an app process starts with plain `node`: under `--import tsx` every one of the app's
// ~800 modules goes through the loader's hooks, about 0.9 s of CPU per start on 2 cores, and the
// test suite starts the app a few hundred times. Written to dist-sim/ (beside dist/, same depth as
// sim/, so the entry's relative paths hold) whenever a source is newer than it.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const SOURCES = ['app-entry.ts', 'sim-control.ts'];
const OUT = join(REPO_ROOT, 'dist-sim', 'runner');

/** `../../src/x.ts` becomes the build's `../../dist/x.js`; a sibling `./x.ts` becomes `./x.js`. */
export function toDistImports(js: string): string {
  return js
    .replace(/(from\s+|import\s*\(\s*)'\.\.\/\.\.\/src\/([^']+)\.ts'/g, "$1'../../dist/$2.js'")
    .replace(/(from\s+|import\s*\(\s*)'\.\/([^']+)\.ts'/g, "$1'./$2.js'");
}

const mtime = (path: string): number => (existsSync(path) ? statSync(path).mtimeMs : -1);

/**
 * The path of the compiled entry, transpiled now if a source is newer. Call only when dist/ is
 * fresh (`appBuild() === 'dist'`): the entry imports the build.
 */
export async function compiledEntry(): Promise<string> {
  const entry = join(OUT, 'app-entry.js');
  const stale = SOURCES.some(
    (f) => mtime(join(OUT, f.replace(/\.ts$/, '.js'))) <= mtime(join(REPO_ROOT, 'sim', 'runner', f)),
  );
  if (!stale) return entry;
  const { default: ts } = await import('typescript');
  mkdirSync(OUT, { recursive: true });
  for (const file of SOURCES) {
    const source = readFileSync(join(REPO_ROOT, 'sim', 'runner', file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    const target = join(OUT, file.replace(/\.ts$/, '.js'));
    // Several test workers may write it at once: each writes its own file and renames it into place.
    const scratch = `${target}.${process.pid}.tmp`;
    writeFileSync(scratch, toDistImports(outputText));
    renameSync(scratch, target);
  }
  return entry;
}
