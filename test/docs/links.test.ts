// The README and docs/ point only at files the repository has, and link the newcomer's pages.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Relative link targets of a markdown page (no scheme, no bare anchor), without their anchor. */
function relativeLinks(text: string): string[] {
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  return targets.filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith('#')).map((t) => t.replace(/#.*$/, ''));
}

describe('documentation links', () => {
  it.each(pages)('%s links only to files that exist', (page) => {
    const text = readFileSync(join(root, page), 'utf8');
    const missing = relativeLinks(text).filter((t) => !existsSync(join(root, dirname(page), t)));
    expect(missing).toEqual([]);
  });

  it('the README links the getting-started page and the commands page', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(relativeLinks(readme)).toEqual(expect.arrayContaining(['docs/getting-started.md', 'docs/commands.md']));
  });

  it('getting-started links the repair example, the commands and the configuration', () => {
    const page = readFileSync(join(root, 'docs/getting-started.md'), 'utf8');
    expect(relativeLinks(page)).toEqual(
      expect.arrayContaining(['../examples/agent-repair.yml', 'commands.md', 'configuration.md']),
    );
  });
});
