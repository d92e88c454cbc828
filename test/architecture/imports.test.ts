// The arrows between rooms (docs/ARCHITECTURE.md), enforced: every import in src/ is read with
// the TypeScript parser and checked against the rules below. Type-only imports carry no code
// at run time, so only the core rule and the size rule look at them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const MAX_LINES = 400;

interface Edge {
  from: string; // path relative to the repository root
  to: string; // a repository path for relative imports, else the package name
  typeOnly: boolean;
}

function listTs(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return listTs(path);
      return path.endsWith('.ts') ? [path] : [];
    });
}

function importsOf(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const from = relative(ROOT, file);
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    const to = spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec)) : spec;
    edges.push({ from, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allNamedTypes =
        named !== undefined &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (clause.name === undefined && allNamedTypes));
      add(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

const files = listTs(SRC);
const edges = files.flatMap(importsOf);
const runtime = edges.filter((e) => !e.typeOnly);
const inRoom = (path: string, room: string) => path.startsWith(`src/${room}/`);
const show = (list: Edge[]) => list.map((e) => `${e.from} -> ${e.to}${e.typeOnly ? ' (type)' : ''}`);

/** Packages the pure core may use; anything else, or a file outside src/core/, is I/O or another room. */
const CORE_PACKAGES = new Set(['zod', 'picomatch']);
/** Type-only imports the core may take from outside itself: the config it decides on. */
const CORE_TYPE_IMPORTS = new Set(['src/config/schema.ts']);

describe('the arrows between rooms', () => {
  it('the core imports nothing outside src/core/ but zod, picomatch and the config types', () => {
    const bad = edges.filter(
      (e) =>
        inRoom(e.from, 'core') &&
        !inRoom(e.to, 'core') &&
        !CORE_PACKAGES.has(e.to) &&
        !(e.typeOnly && CORE_TYPE_IMPORTS.has(e.to)),
    );
    expect(show(bad)).toEqual([]);
  });

  it('acceptance and the judge reach neither GitHub, the store nor the workflows at run time', () => {
    const bad = runtime.filter(
      (e) =>
        (inRoom(e.from, 'acceptance') || inRoom(e.from, 'judge')) &&
        (inRoom(e.to, 'github') || inRoom(e.to, 'store') || inRoom(e.to, 'workflows')),
    );
    expect(show(bad)).toEqual([]);
  });

  it('workflows never import commands, and handlers reach neither GitHub nor the planners directly', () => {
    const bad = runtime.filter(
      (e) =>
        (inRoom(e.from, 'workflows') && inRoom(e.to, 'commands')) ||
        (inRoom(e.from, 'handlers') && (inRoom(e.to, 'github') || e.to.startsWith('src/core/plan'))),
    );
    expect(show(bad)).toEqual([]);
  });

  it('nothing in src/ imports the simulator', () => {
    const bad = edges.filter((e) => e.to.startsWith('sim/') || e.to === 'sim');
    expect(show(bad)).toEqual([]);
  });

  it('src/ has no import cycle (run-time imports)', () => {
    const next = new Map<string, string[]>();
    for (const e of runtime) {
      if (!e.to.startsWith('src/')) continue;
      next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const walk = (node: string) => {
      state.set(node, 'open');
      stack.push(node);
      for (const to of next.get(node) ?? []) {
        if (state.get(to) === 'open') cycles.push([...stack.slice(stack.indexOf(to)), to].join(' -> '));
        else if (!state.has(to)) walk(to);
      }
      stack.pop();
      state.set(node, 'done');
    };
    for (const f of files.map((f) => relative(ROOT, f))) if (!state.has(f)) walk(f);
    expect(cycles).toEqual([]);
  });

  it(`no file in src/ is over ${MAX_LINES} lines`, () => {
    const long = files
      .map((f) => ({ f: relative(ROOT, f), n: readFileSync(f, 'utf8').split('\n').length }))
      .filter(({ n }) => n > MAX_LINES)
      .map(({ f, n }) => `${f}: ${n} lines`);
    expect(long).toEqual([]);
  });
});
