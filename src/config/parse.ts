// Parses the text of `.github/arbiter.yml` (pure): YAML with positions, then the zod schema.
// Every problem comes back as `{ path, line, message }`; an empty file is the defaults.
import { LineCounter, parseDocument, type YAMLError } from 'yaml';
import type { ConfigError } from './errors.ts';
import { describeIssue, describeValue, knownKeysAt, unknownKeyMessage } from './issue-messages.ts';
import { isPlainObject, mergeConfigLayers } from './merge.ts';
import { ConfigSchema, type ArbiterConfig } from './schema.ts';
import { locatePath } from './yaml-lines.ts';

export type ParseConfigResult = { ok: true; config: ArbiterConfig } | { ok: false; errors: ConfigError[] };

export interface ParseConfigOptions {
  /** The merged `_extends` base the file's values are laid over. */
  base?: unknown;
  /** Names the base in messages, e.g. `acme/.github:.github/arbiter.yml`. */
  baseSource?: string;
}

/** The top-level key the loader resolves (Probot's `_extends`); never an unknown key. */
export const EXTENDS_KEY = '_extends';

const renderPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (out, segment) =>
      typeof segment === 'number' ? `${out}[${segment}]` : out === '' ? String(segment) : `${out}.${String(segment)}`,
    '',
  );

const yamlErrorToConfigError = (error: YAMLError): ConfigError => {
  // prettyErrors appends " at line N, column M:" and a code excerpt: keep the first sentence.
  const firstLine = error.message.split('\n')[0] ?? error.message;
  const message = firstLine.replace(/ at line \d+, column \d+:?\s*$/, '');
  return { path: '', line: error.linePos?.[0].line ?? null, message: `invalid YAML: ${message}` };
};

const hasPath = (value: unknown, path: readonly PropertyKey[]): boolean => {
  let node = value;
  for (const segment of path) {
    if (Array.isArray(node) && typeof segment === 'number') node = node[segment];
    else if (isPlainObject(node) && Object.hasOwn(node, String(segment))) node = node[String(segment)];
    else return false;
    if (node === undefined) return false;
  }
  return true;
};

// `gate:` with every child commented out reads as null: the section is simply not set.
const dropEmptySections = (value: Record<string, unknown>, path: readonly string[] = []): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const childPath = [...path, key];
    if (child === null && knownKeysAt(childPath).length > 0) continue;
    out[key] = isPlainObject(child) ? dropEmptySections(child, childPath) : child;
  }
  return out;
};

const byLineThenPath = (a: ConfigError, b: ConfigError): number =>
  (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER) || a.path.localeCompare(b.path);

export const parseConfigText = (text: string, opts: ParseConfigOptions = {}): ParseConfigResult => {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true });
  if (doc.errors.length > 0) return { ok: false, errors: doc.errors.map(yamlErrorToConfigError) };

  let written: unknown;
  try {
    written = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, errors: [{ path: '', line: null, message: `invalid YAML: ${message}` }] };
  }
  if (written === null || written === undefined) written = {};
  if (!isPlainObject(written)) {
    return {
      ok: false,
      errors: [{ path: '', line: 1, message: `expected a mapping of settings, got ${describeValue(written)}` }],
    };
  }

  const errors: ConfigError[] = [];
  const { [EXTENDS_KEY]: extendsValue, ...own } = written;
  if (extendsValue !== undefined && typeof extendsValue !== 'string') {
    const { line } = locatePath(doc, lines, [EXTENDS_KEY]);
    errors.push({
      path: EXTENDS_KEY,
      line,
      message: `expected a string such as "my-org/.github", got ${describeValue(extendsValue)}`,
    });
  }

  const baseSource = opts.baseSource ?? 'the _extends base';
  let base: Record<string, unknown> = {};
  if (isPlainObject(opts.base)) {
    const { [EXTENDS_KEY]: _ignored, ...rest } = opts.base;
    base = rest;
  } else if (opts.base !== undefined && opts.base !== null) {
    errors.push({
      path: '',
      line: null,
      file: baseSource,
      message: `expected a mapping of settings, got ${describeValue(opts.base)}`,
    });
  }

  const parsed = ConfigSchema.safeParse(mergeConfigLayers([dropEmptySections(base), dropEmptySections(own)]), {
    reportInput: true,
  });
  if (parsed.success && errors.length === 0) return { ok: true, config: parsed.data };

  // Name the line in this file, or the base file when the offending value came from there.
  const locate = (path: readonly PropertyKey[], message: string): ConfigError => {
    const where = locatePath(doc, lines, path);
    const fromBase = !where.found && where.stoppedAtMapping && hasPath(base, path.slice(0, where.depth + 1));
    return fromBase
      ? { path: renderPath(path), line: null, file: baseSource, message }
      : { path: renderPath(path), line: where.line, message };
  };
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors.push(locate([...issue.path, key], unknownKeyMessage(issue.path, key)));
    } else {
      errors.push(locate(issue.path, describeIssue(issue)));
    }
  }
  return { ok: false, errors: errors.sort(byLineThenPath) };
};
