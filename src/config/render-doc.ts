// Renders docs/configuration.md from the config schema (pure): every key with its type,
// default, description and an example, then a complete commented example file.
import { Document, isMap, isScalar, stringify, type YAMLMap } from 'yaml';
import { z } from 'zod';
import { CONFIG_PATH } from '../core/config-file.ts';
import { ConfigSchema } from './schema.ts';

// The part of a JSON Schema node the document reads.
interface JsonNode {
  description?: string;
  default?: unknown;
  examples?: unknown[];
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonNode>;
  required?: string[];
  items?: JsonNode;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  pattern?: string;
  /** One of several shapes (a union: `portfolio.approaches` entries are text or `{ approach, agent }`). */
  anyOf?: JsonNode[];
}
const JsonNodeSchema: z.ZodType<JsonNode> = z.lazy(() =>
  z.looseObject({
    description: z.string().optional(),
    default: z.unknown().optional(),
    examples: z.array(z.unknown()).optional(),
    type: z.union([z.string(), z.array(z.string())]).optional(),
    enum: z.array(z.unknown()).optional(),
    properties: z.record(z.string(), JsonNodeSchema).optional(),
    required: z.array(z.string()).optional(),
    items: JsonNodeSchema.optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    exclusiveMinimum: z.number().optional(),
    minLength: z.number().optional(),
    pattern: z.string().optional(),
    anyOf: z.array(JsonNodeSchema).optional(),
  }),
);

export interface ConfigKeyDoc {
  /** Dotted path, `acceptance.models.small`. */
  path: string[];
  node: JsonNode;
  isSection: boolean;
}

const readSchema = (): JsonNode => {
  const parsed = JsonNodeSchema.safeParse(z.toJSONSchema(ConfigSchema, { io: 'input' }));
  if (!parsed.success)
    throw new Error(`the config schema has an unexpected JSON Schema shape: ${parsed.error.message}`);
  return parsed.data;
};

const isSectionNode = (node: JsonNode): boolean => node.type === 'object' && node.properties !== undefined;

/** Every key of the schema in document order, sections before their keys. */
export const listConfigKeys = (root: JsonNode = readSchema()): ConfigKeyDoc[] => {
  const out: ConfigKeyDoc[] = [];
  const walk = (node: JsonNode, path: string[]): void => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const childPath = [...path, key];
      const isSection = isSectionNode(child);
      out.push({ path: childPath, node: child, isSection });
      if (isSection) walk(child, childPath);
    }
  };
  walk(root, []);
  return out;
};

const code = (value: unknown): string => `\`${JSON.stringify(value)}\``;

const describeNumber = (node: JsonNode, word: string): string => {
  const bounds: string[] = [];
  if (node.minimum !== undefined) bounds.push(`at least ${node.minimum}`);
  if (node.exclusiveMinimum !== undefined) bounds.push(`greater than ${node.exclusiveMinimum}`);
  if (node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER) bounds.push(`at most ${node.maximum}`);
  return bounds.length === 0 ? word : `${word}, ${bounds.join(', ')}`;
};

const TYPE_WORDS: Record<string, (node: JsonNode) => string> = {
  string: (node) =>
    node.pattern ? `string matching \`${node.pattern}\`` : node.minLength ? 'non-empty string' : 'string',
  integer: (node) => describeNumber(node, 'whole number'),
  number: (node) => describeNumber(node, 'number'),
  boolean: () => '`true` or `false`',
  null: () => '`null`',
  object: () => 'mapping',
  array: (node) => `list of ${node.items ? pluralType(node.items) : 'values'}`,
};

/** A union's shapes, each in words: "non-empty string or mapping `{ approach, agent }`". */
const alternatives = (nodes: JsonNode[], plural: boolean): string =>
  nodes
    .map((alt) =>
      alt.type === 'object' && alt.properties
        ? `${plural ? 'mappings' : 'mapping'} \`{ ${Object.keys(alt.properties).join(', ')} }\``
        : plural
          ? pluralType(alt)
          : typeOf(alt),
    )
    .join(' or ');

const typeOf = (node: JsonNode): string => {
  if (node.anyOf) return alternatives(node.anyOf, false);
  if (node.enum) return `one of ${node.enum.map(code).join(', ')}`;
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  return types.map((t) => (TYPE_WORDS[t] ?? (() => t))(node)).join(' or ') || 'any value';
};

const pluralType = (node: JsonNode): string => {
  if (node.anyOf) return alternatives(node.anyOf, true);
  if (node.enum) return node.enum.map(code).join(' / ');
  if (node.type === 'object') return 'mappings (fields below)';
  const single = typeOf(node);
  return single.startsWith('non-empty string') ? 'non-empty strings' : single === 'string' ? 'strings' : single;
};

/** Nests `value` under `path`: `['gate', 'score']`, 'bench' → `{ gate: { score: 'bench' } }`. */
const nest = (path: readonly string[], value: unknown): unknown =>
  path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);

const yamlBlock = (value: unknown): string => `\`\`\`yaml\n${stringify(value).trimEnd()}\n\`\`\``;

const fieldTable = (items: JsonNode): string => {
  const required = new Set(items.required ?? []);
  const rows = Object.entries(items.properties ?? {}).map(([key, field]) => {
    const need = required.has(key)
      ? 'required'
      : field.default !== undefined
        ? `default ${code(field.default)}`
        : 'optional';
    return `| \`${key}\` | ${typeOf(field)} | ${need} | ${field.description ?? ''} |`;
  });
  return ['| field | type | | description |', '| --- | --- | --- | --- |', ...rows].join('\n');
};

const renderKey = ({ path, node, isSection }: ConfigKeyDoc): string => {
  const heading = `${'#'.repeat(Math.min(path.length + 2, 6))} \`${path.join('.')}\``;
  if (isSection) return `${heading}\n\n${node.description ?? ''}`;
  // A default list of mappings reads better as YAML than as one line of JSON.
  const blockDefault =
    Array.isArray(node.default) && node.default.some((item) => typeof item === 'object' && item !== null);
  const defaultLine = blockDefault ? '- Default:' : `- Default: ${code(node.default)}`;
  const lines = [heading, '', node.description ?? '', '', `- Type: ${typeOf(node)}`, defaultLine];
  if (blockDefault) lines.push('', yamlBlock(nest(path, node.default)));
  if (node.items?.type === 'object') lines.push('', fieldTable(node.items));
  const example = node.examples?.[0];
  if (example !== undefined) lines.push('', 'Example:', '', yamlBlock(nest(path, example)));
  return lines.join('\n');
};

/** Every key's example in one object: the complete example file. */
export const completeExample = (keys: readonly ConfigKeyDoc[] = listConfigKeys()): Record<string, unknown> => {
  const root: Record<string, unknown> = {};
  for (const { path, node, isSection } of keys) {
    if (isSection || node.examples?.[0] === undefined) continue;
    let target = root;
    for (const key of path.slice(0, -1)) {
      const next = target[key];
      const child: Record<string, unknown> =
        typeof next === 'object' && next !== null && !Array.isArray(next) ? { ...next } : {};
      target[key] = child;
      target = child;
    }
    target[path[path.length - 1]] = node.examples[0];
  }
  return root;
};

/** Comment lines of at most `width` characters (a long word stays whole). */
const wrap = (text: string, width = 88): string => {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/`/g, '').split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => ` ${l}`).join('\n');
};

/** The complete example as YAML, each key preceded by its description as a comment. */
export const renderExampleFile = (keys: readonly ConfigKeyDoc[] = listConfigKeys()): string => {
  const doc = new Document(completeExample(keys));
  const byPath = new Map(keys.map((k) => [k.path.join('.'), k.node]));
  const annotate = (map: YAMLMap, path: string[]): void => {
    for (const pair of map.items) {
      if (!isScalar(pair.key)) continue;
      const childPath = [...path, String(pair.key.value)];
      const description = byPath.get(childPath.join('.'))?.description;
      if (description) pair.key.commentBefore = wrap(description);
      if (path.length === 0) pair.key.spaceBefore = true;
      if (isMap(pair.value)) annotate(pair.value, childPath);
    }
  };
  if (isMap(doc.contents)) annotate(doc.contents, []);
  return doc.toString().trimStart();
};

const INTRO = `# Configuration: \`${CONFIG_PATH}\`

<!-- Generated by scripts/gen-config-doc.ts from src/config/schema.ts. Do not edit by hand: run \`npx tsx scripts/gen-config-doc.ts\`. -->

Arbiter reads \`${CONFIG_PATH}\` from the repository's default branch. Every key is optional;
an empty or missing file means the defaults below. Durations are in seconds.

- **Validation.** Arbiter checks the file on each push and shows the result as the
  \`Arbiter / config\` check run on that commit: \`failure\` with one line per problem,
  \`path (line N): message\`, and an annotation on each line, or \`success\`. Unknown keys are
  errors, so a typo never passes silently:

  \`\`\`text
  gate.requird (line 3): unknown key (did you mean "required"?)
  acceptance.maxFiles (line 7): expected a number, got "twenty"
  \`\`\`

- **While the file on the default branch is invalid, Arbiter does nothing else in that
  repository** (no candidates recorded, no merges) until a push fixes it, but it says so: a
  file that was already broken when Arbiter was installed gets the failing \`Arbiter / config\`
  check on the default branch's head at the first event, a pull request that links a Change
  gets it on its head, and every slash command is answered with the problems and the file to fix.
- **Organisation defaults.** When the repository has no \`${CONFIG_PATH}\`, Arbiter reads the
  same path in the organisation's \`.github\` repository.
- **\`_extends\`.** A top-level \`_extends: other-repo\`, \`_extends: owner/repo\` or
  \`_extends: owner/repo:path/to/file.yml\` lays this file over another one (resolved by
  Probot's config plugin, and it may itself extend another). Mappings merge key by key;
  lists and single values in this file replace the base's. An error in a base file is
  reported with the file it is in.
- **When a change takes effect.** Arbiter keeps the configuration it read from the default
  branch for up to 5 minutes (shared by all its replicas). A push to the default branch drops
  it, so a change to the repository's own file applies from the next event. A change to an
  \`_extends\` base or to the organisation's \`.github\` defaults, which lives in another
  repository, takes effect within 5 minutes.
`;

export const renderConfigDoc = (): string => {
  const keys = listConfigKeys();
  const sections = keys.map(renderKey).join('\n\n');
  const example = renderExampleFile(keys);
  return `${INTRO}\n## Keys\n\n${sections}\n\n## Complete example\n\nEvery key set to its example value:\n\n\`\`\`yaml\n${example.trimEnd()}\n\`\`\`\n`;
};
