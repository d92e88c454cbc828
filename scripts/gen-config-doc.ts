// Writes docs/configuration.md from the config schema (src/config/schema.ts).
// Run: npx tsx scripts/gen-config-doc.ts   (a test fails when the document is out of date)
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderConfigDoc } from '../src/config/render-doc.ts';

const target = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
writeFileSync(target, renderConfigDoc());
console.log(`wrote ${target}`);
