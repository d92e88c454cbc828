// `npm run build`: compiles src/ into a clean dist/ (see scripts/dist.mjs).
import { buildDist } from './dist.mjs';

try {
  buildDist();
} catch (err) {
  process.stderr.write(`build: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
