// Regenerates the JSON Schema section of docs/scenarios.md from sim/scenario-schema.ts.
// Usage: npx tsx scripts/gen-scenario-schema.ts [--check]  (--check: exit 1 when out of date)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withSchemaSection } from '../sim/runner/schema-doc.ts';

const DOC = fileURLToPath(new URL('../docs/scenarios.md', import.meta.url));
const current = readFileSync(DOC, 'utf8');
const next = withSchemaSection(current);
if (next === null) {
  console.error('docs/scenarios.md has no generated-schema markers');
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (next !== current) {
    console.error('docs/scenarios.md is out of date: run npx tsx scripts/gen-scenario-schema.ts');
    process.exit(1);
  }
  console.log('docs/scenarios.md is up to date');
} else {
  writeFileSync(DOC, next);
  console.log(next === current ? 'docs/scenarios.md already up to date' : 'docs/scenarios.md updated');
}
