// docs/configuration.md is generated from the schema: it must be up to date, name every key,
// and every example in it must be a valid configuration.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isPlainObject } from '../../src/config/merge.ts';
import { parseConfigText } from '../../src/config/parse.ts';
import { completeExample, listConfigKeys, renderConfigDoc, renderExampleFile } from '../../src/config/render-doc.ts';
import { ConfigSchema } from '../../src/config/schema.ts';

const docPath = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
const keys = listConfigKeys();
const leaves = keys.filter((k) => !k.isSection);

describe('docs/configuration.md', () => {
  it('is up to date with the schema (run `npx tsx scripts/gen-config-doc.ts`)', () => {
    expect(readFileSync(docPath, 'utf8')).toBe(renderConfigDoc());
  });

  it('lists every key of the schema, nested ones included', () => {
    const paths = keys.map((k) => k.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(Object.keys(ConfigSchema.shape)));
    expect(paths).toEqual(
      expect.arrayContaining([
        'gate.required',
        'acceptance.models.small',
        'acceptance.budget.perChange',
        'policy.rules',
      ]),
    );
    const doc = renderConfigDoc();
    for (const path of paths) expect(doc).toContain(`\`${path}\``);
  });

  it.each(keys.map((k) => ({ key: k.path.join('.'), node: k.node })))('$key has a description', ({ node }) => {
    expect(node.description?.length ?? 0).toBeGreaterThan(10);
  });

  it.each(leaves.map((k) => ({ key: k.path.join('.'), path: k.path, node: k.node })))(
    '$key has an example that is valid on its own and read back unchanged',
    ({ path, node }) => {
      const example = node.examples?.[0];
      expect(example).toBeDefined();
      const text = stringify(path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), example));
      const result = parseConfigText(text);
      expect(result.ok ? [] : result.errors).toEqual([]);
      if (!result.ok) return;
      const parsedValue = path.reduce<unknown>((o, key) => (isPlainObject(o) ? o[key] : undefined), result.config);
      expect(parsedValue).toEqual(example);
    },
  );

  it('has a complete example file that parses to exactly its example values', () => {
    const result = parseConfigText(renderExampleFile());
    expect(result.ok ? [] : result.errors).toEqual([]);
    if (!result.ok) return;
    const example = completeExample();
    expect(result.config).toMatchObject(example);
    expect(Object.keys(example).sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
  });
});
