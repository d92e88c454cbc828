// Turns one zod issue into the short message a maintainer reads ("expected a number, got
// "twenty""), with a suggestion for a misspelt key or option. One formatter per issue code.
import { z } from 'zod';
import { ConfigSchema } from './schema.ts';

type Issue = z.core.$ZodIssue;
type IssueOf<C extends Issue['code']> = Extract<Issue, { code: C }>;

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping of keys',
  null: 'nothing',
};

/** How a value the user wrote reads in a message. */
export const describeValue = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 37)}...` : value;
    return JSON.stringify(shown);
  }
  return String(value);
};

const editDistance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const current = row[j];
      row[j] = Math.min(
        row[j] + 1,
        row[j - 1] + 1,
        previous + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
      );
      previous = current;
    }
  }
  return row[b.length];
};

/** The closest known word, when it is close enough to be a likely typo. */
export const suggest = (word: string, known: readonly string[]): string | null => {
  let best: { name: string; distance: number } | null = null;
  for (const name of known) {
    const distance = editDistance(word, name);
    if (best === null || distance < best.distance) best = { name, distance };
  }
  if (best === null) return null;
  return best.distance <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : null;
};

// The JSON Schema view of the config schema lets us find the keys allowed at any path.
const JsonNode = z.looseObject({
  properties: z.record(z.string(), z.unknown()).optional(),
  items: z.unknown().optional(),
});
const jsonSchema: unknown = z.toJSONSchema(ConfigSchema, { io: 'input' });

/** The keys a mapping at `path` may hold (empty when the path is not a known mapping). */
export const knownKeysAt = (path: readonly PropertyKey[]): string[] => {
  let node: unknown = jsonSchema;
  for (const segment of path) {
    const parsed = JsonNode.safeParse(node);
    if (!parsed.success) return [];
    node = typeof segment === 'number' ? parsed.data.items : parsed.data.properties?.[String(segment)];
  }
  const parsed = JsonNode.safeParse(node);
  return parsed.success ? Object.keys(parsed.data.properties ?? {}) : [];
};

const bound = (n: number | bigint): string => String(n);

const rangeMessage = (
  kind: 'least' | 'most',
  issue: IssueOf<'too_small'> | IssueOf<'too_big'>,
  limit: number | bigint,
): string => {
  const inclusive = issue.inclusive !== false;
  const got = describeValue(issue.input);
  const origin = issue.origin;
  if (origin === 'string') {
    if (kind === 'least' && Number(limit) === 1) return 'must not be empty';
    return `must have at ${kind} ${bound(limit)} characters, got ${got}`;
  }
  if (origin === 'array' || origin === 'set') return `must have at ${kind} ${bound(limit)} items`;
  const word = kind === 'least' ? (inclusive ? 'at least' : 'greater than') : inclusive ? 'at most' : 'less than';
  return `must be ${word} ${bound(limit)}, got ${got}`;
};

const FORMATTERS: { [C in Issue['code']]: (issue: IssueOf<C>) => string } = {
  invalid_type: (issue) =>
    issue.input === undefined
      ? 'is required'
      : `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${describeValue(issue.input)}`,
  invalid_value: (issue) => {
    const options = issue.values.map((v) => JSON.stringify(v));
    const hint = typeof issue.input === 'string' ? suggest(issue.input, issue.values.map(String)) : null;
    const tail = hint === null ? '' : ` (did you mean "${hint}"?)`;
    return `expected one of ${options.join(', ')}, got ${describeValue(issue.input)}${tail}`;
  },
  unrecognized_keys: () => 'unknown key',
  too_small: (issue) => rangeMessage('least', issue, issue.minimum),
  too_big: (issue) => rangeMessage('most', issue, issue.maximum),
  invalid_format: (issue) => {
    // A schema-written message (e.g. the rubric id rule) says more than the bare pattern.
    const custom = !issue.message.startsWith('Invalid');
    const rule = custom ? issue.message : `must match ${issue.pattern ?? issue.format}`;
    return `${rule}, got ${describeValue(issue.input)}`;
  },
  not_multiple_of: (issue) => `must be a multiple of ${issue.divisor}, got ${describeValue(issue.input)}`,
  invalid_union: (issue) => `${issue.message}, got ${describeValue(issue.input)}`,
  invalid_key: (issue) => issue.message,
  invalid_element: (issue) => issue.message,
  custom: (issue) => issue.message,
};

/** The message for one issue (an unknown key gets its own via `unknownKeyMessage`). */
export const describeIssue = (issue: Issue): string => {
  // FORMATTERS is keyed by code, each taking its own issue type: TypeScript cannot correlate the two.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  const format = FORMATTERS[issue.code] as (i: Issue) => string;
  return format(issue);
};

export const unknownKeyMessage = (parentPath: readonly PropertyKey[], key: string): string => {
  const hint = suggest(key, knownKeysAt(parentPath));
  return hint === null ? 'unknown key' : `unknown key (did you mean "${hint}"?)`;
};
