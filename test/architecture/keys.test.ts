// The idempotency-key namespaces are spelled in one file (issue 12 item 6): every string and
// template literal in src/ is read with the TypeScript parser, and one that starts with a listed
// namespace outside src/core/keys.ts is a key built by hand.
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
    if (literal !== null && PREFIXES.some((p) => literal.startsWith(p) && literal[p.length] !== ' ')) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${name}:${line}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('idempotency-key namespaces', () => {
  it('are built only in src/core/keys.ts', () => {
    const found = listTs(SRC)
      .map((file) => [relative(ROOT, file), file] as const)
      .filter(([name]) => name !== KEYS_FILE)
      .flatMap(([name, file]) => handBuiltKeys(name, readFileSync(file, 'utf8')));
    expect(found).toEqual([]);
  });

  it('the check finds a key built by hand in a string or a template literal', () => {
    const text = [
      'const a = `claim:${key}`;',
      "const b = 'round-done:' + id;",
      'const c = `trust:adopted:${repo}#${n}`;',
      'const d = `comparison:${n}`; // a marker, not a key namespace',
      "log.info({}, 'sweep: candidate skipped');",
    ].join('\n');
    expect(handBuiltKeys('x.ts', text)).toEqual([
      'x.ts:1: `claim:${key}`',
      "x.ts:2: 'round-done:'",
      'x.ts:3: `trust:adopted:${repo}#${n}`',
    ]);
  });

  it('no namespace is a prefix of another', () => {
    // `repair:` and `repair-expired:` differ at the fifth character; a shared prefix would make the
    // sweep's pruning of one namespace reach into another.
    const clashes = PREFIXES.flatMap((p) => PREFIXES.filter((q) => q !== p && q.startsWith(p)).map((q) => `${p} ${q}`));
    expect(clashes).toEqual([]);
  });
});
