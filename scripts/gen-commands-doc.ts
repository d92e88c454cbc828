// Writes docs/commands.md from the verb registry (src/commands/registry.ts).
// Run: npx tsx scripts/gen-commands-doc.ts   (a test fails when the document is out of date)
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCommandsDoc } from '../src/commands/render-doc.ts';

const target = fileURLToPath(new URL('../docs/commands.md', import.meta.url));
writeFileSync(target, renderCommandsDoc());
console.log(`wrote ${target}`);
