// One vocabulary: the docs say a criterion's result with the words of the table every view uses
// (src/core/render/vocabulary.ts), and the pages a maintainer reads first use no retired word.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STATUS_ORDER, STATUS_WORDS } from '../../src/core/render/vocabulary.ts';
import { structureOf } from '../support/gfm.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (page: string): string => readFileSync(join(root, page), 'utf8');

/** Prose as a reader sees it, code spans and blocks left out (codes such as `uncheckable` are named there). */
const prose = (markdown: string): string => markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');

describe('the docs use the one vocabulary', () => {
  it('docs/acceptance.md shows the table every view uses, word for word', () => {
    const { tables } = structureOf(read('docs/acceptance.md'));
    const table = tables.find((t) => t.headers.join('|') === 'Icon|Result|What it means');
    expect(table, 'the table of results in docs/acceptance.md').toBeDefined();
    expect(table!.rows).toEqual(
      STATUS_ORDER.map((s) => [STATUS_WORDS[s].icon, STATUS_WORDS[s].word, STATUS_WORDS[s].meaning]),
    );
  });

  // The words that drifted before the table: a result is "for a person" and "not judged".
  const RETIRED = [/\buncheckable\b/i, /\bgaps?\b/i, /"cannot be checked from the code"/i, /could not be judged/i];
  it.each([
    'README.md',
    'docs/acceptance.md',
    'docs/getting-started.md',
    'docs/commands.md',
    'docs/configuration.md',
    'docs/RELIABILITY.md',
  ])('%s names no result with a retired word', (page) => {
    const text = prose(read(page));
    expect(RETIRED.filter((word) => word.test(text)).map(String)).toEqual([]);
  });
});
