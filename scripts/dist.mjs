// Whether dist/ (the compiled app, `npm run build`) is up to date with src/, and how to rebuild it.
// Plain JavaScript so `npm start` can use it without the TypeScript loader; types in dist.d.mts.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const DIST_MAIN = join(ROOT, 'dist', 'main.js');

/** Files whose change makes dist/ stale: the sources and the compiler settings. */
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** The newest modification time under a path (a folder's own time counts: it moves when a file is removed). */
function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when dist/main.js exists and is newer than every input. */
export function distIsFresh() {
  if (!existsSync(DIST_MAIN)) return false;
  const built = statSync(DIST_MAIN).mtimeMs;
  return INPUTS.every((input) => !existsSync(join(ROOT, input)) || newestMtime(join(ROOT, input)) < built);
}

/** Compiles src/ into a clean dist/ with tsc (tsconfig.build.json); throws when tsc fails. */
export function buildDist() {
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (run.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (exit ${run.status ?? run.signal})`);
}
