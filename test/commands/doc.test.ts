// docs/commands.md is generated from the verb registry: it must be up to date and name every verb.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderCommandsDoc } from '../../src/commands/render-doc.ts';
import { VERBS } from '../../src/commands/registry.ts';
import { structureOf } from '../support/gfm.ts';

const docPath = fileURLToPath(new URL('../../docs/commands.md', import.meta.url));

describe('docs/commands.md', () => {
  it('is up to date with the registry (run `npx tsx scripts/gen-commands-doc.ts`)', () => {
    expect(readFileSync(docPath, 'utf8')).toBe(renderCommandsDoc());
  });

  it('has a row and a section for every verb, and renders its tables', () => {
    const { tables } = structureOf(renderCommandsDoc());
    expect(tables[0].rows.map((r) => r[0])).toEqual(VERBS.map((v) => `/arbiter ${v.help.usage}`));
    for (const v of VERBS) expect(renderCommandsDoc()).toContain(`## \`/arbiter ${v.help.usage}\``);
  });
});
