// `npm start`: builds dist/ when it is missing or older than src/, then runs the compiled app in
// this same process (no TypeScript loader, and no second Node process to count in its memory).
// package.json runs it with --max-semi-space-size=4: V8's young generation then stays at a few MB
// instead of growing to 16 MB per semi-space, about 50 MB less idle RSS (docs/PERFORMANCE.md).
import { pathToFileURL } from 'node:url';
import { buildDist, DIST_MAIN, distIsFresh } from './dist.mjs';

if (!distIsFresh()) {
  process.stderr.write('arbiter: dist/ is missing or older than src/; building it first (npm run build)\n');
  try {
    buildDist();
  } catch (err) {
    process.stderr.write(`arbiter: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
const { main } = await import(pathToFileURL(DIST_MAIN).href);
main().catch((err) => {
  process.stderr.write(
    `arbiter: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
