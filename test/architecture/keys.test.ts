// Keys are built in one file (issue 12 item 6, issue 26 item 5): every string and template literal
// in src/ is read with the TypeScript parser. Outside src/core/keys.ts, a literal that starts with a
// listed namespace is a key built by hand, and so is any template that builds one by its shape,
// whatever its prefix: `name:${…}` (a namespaced key or a comment marker) or `${repo}#${n}` (an
// `owner/repo#n` id), with no space in its text (a sentence that names `#${n}` is words, not a key).
// Templates of that shape not moved into keys.ts yet are listed by file, a list that may only shrink.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { KEY_NAMESPACES } from '../../src/core/keys.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const KEYS_FILE = 'src/core/keys.ts';
const PREFIXES = Object.values(KEY_NAMESPACES);

function listTs(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return listTs(path);
      return path.endsWith('.ts') ? [path] : [];
    });
}

/** A template whose text has no space and that starts `name:${…}` or joins `${…}#${…}`. */
function keyShaped(node: ts.TemplateExpression): boolean {
  const parts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
  if (parts.some((p) => /\s/.test(p))) return false;
  const namespaced = /^[a-z][a-z0-9-]*(:[a-z0-9-]+)*:$/.test(node.head.text);
  // A literal between two substitutions that starts with `#`: `${repo}#${change}`.
  const repoId = parts.slice(1, -1).some((p) => p.startsWith('#') && p !== '#L'); // `#L`: a URL's line anchor
  return namespaced || repoId;
}

/**
 * `file:line: literal` for each literal of `text` that starts with a namespace. A key has no space
 * after its namespace; a log message such as 'sweep: candidate skipped' does.
 */
function handBuiltKeys(name: string, text: string): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const literal =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
        ? node.text
        : ts.isTemplateExpression(node)
          ? node.head.text
          : null;
    const known = literal !== null && PREFIXES.some((p) => literal.startsWith(p) && literal[p.length] !== ' ');
    if (known || (ts.isTemplateExpression(node) && keyShaped(node))) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${name}:${line}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Key-shaped templates outside src/core/keys.ts still to move into a builder there, by file (how
 * many). Shrink only: a new one fails, and so does one that is gone (take it off the list).
 */
const NOT_YET_MOVED: Record<string, number> = {
  'src/core/candidate-set.ts': 1,
  'src/core/gate.ts': 1,
  'src/core/plan/after-merge.ts': 6,
  'src/core/plan/agent-hold.ts': 2,
  'src/core/plan/auto-merge-off.ts': 1,
  'src/core/plan/combine-rebuild.ts': 2,
  'src/core/plan/comparison.ts': 2,
  'src/core/plan/human-gate.ts': 3,
  'src/core/plan/portfolio.ts': 6,
  'src/core/plan/selection.ts': 6,
  'src/core/plan/views.ts': 2,
  'src/core/render/markdown.ts': 1,
  'src/handlers/issues.ts': 1,
  'src/jobs/delivery-job.ts': 1,
  'src/jobs/queue-types.ts': 1,
  'src/judge/snapshot.ts': 3,
  'src/workflows/recorded-plan.ts': 1,
  'src/workflows/services.ts': 1,
};

const byFile = (found: string[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const f of found) {
    const file = f.slice(0, f.indexOf(':'));
    counts[file] = (counts[file] ?? 0) + 1;
  }
  return counts;
};

describe('idempotency keys and markers', () => {
  it('are built only in src/core/keys.ts (but for the shrinking list)', () => {
    const found = listTs(SRC)
      .map((file) => [relative(ROOT, file), file] as const)
      .filter(([name]) => name !== KEYS_FILE)
      .flatMap(([name, file]) => handBuiltKeys(name, readFileSync(file, 'utf8')));
    console.log(`key-shaped templates outside ${KEYS_FILE}: ${found.length}\n  ${found.join('\n  ')}`);
    expect(byFile(found)).toEqual(NOT_YET_MOVED);
  });

  it('the check finds a key built by hand in a string or a template literal', () => {
    const text = [
      'const a = `claim:${key}`;',
      "const b = 'round-done:' + id;",
      'const c = `trust:adopted:${repo}#${n}`;',
      'const d = `comparison:${n}@${base}`; // a marker: key-shaped, whatever its prefix',
      "log.info({}, 'sweep: candidate skipped');",
      'const e = `${ctx.key}#${change}/late/${pr}`; // an owner/repo#n id',
      'const f = `no round for ${repo}#${change}`; // words',
      'const g = `[#${n}](${url}/issues/${n})`; // a link',
      'const h = `${id}#rerun-${n}`;',
    ].join('\n');
    expect(handBuiltKeys('x.ts', text)).toEqual([
      'x.ts:1: `claim:${key}`',
      "x.ts:2: 'round-done:'",
      'x.ts:3: `trust:adopted:${repo}#${n}`',
      'x.ts:4: `comparison:${n}@${base}`',
      'x.ts:6: `${ctx.key}#${change}/late/${pr}`',
      'x.ts:9: `${id}#rerun-${n}`',
    ]);
  });

  it('no namespace is a prefix of another', () => {
    // `repair:` and `repair-expired:` differ at the fifth character; a shared prefix would make the
    // sweep's pruning of one namespace reach into another.
    const clashes = PREFIXES.flatMap((p) => PREFIXES.filter((q) => q !== p && q.startsWith(p)).map((q) => `${p} ${q}`));
    expect(clashes).toEqual([]);
  });
});
