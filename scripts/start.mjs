// `npm start`: builds dist/ when it is missing or older than src/, then runs the compiled app in
// this same process (no TypeScript loader, and no second Node process to count in its memory).
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
  process.stderr.write(`arbiter: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
