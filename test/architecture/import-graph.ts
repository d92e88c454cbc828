// The import graph of src/ and the checks on it, as functions of text, so the architecture test
// runs them on the real tree and on small fixture graphs that must fail (a type-only cycle, an
// arrow the room table forbids).
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';

export interface Edge {
  /** A repository path (`src/core/keys.ts`). */
  from: string;
  /** A repository path for a relative import, else the package name. */
  to: string;
  /** `import type`, `import { type A }` only, or `export type … from`: no code at run time. */
  typeOnly: boolean;
}

/** Every import and re-export of the file `path` (a repository path) whose text is `text`. */
export function importsOf(path: string, text: string): Edge[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    const to = spec.startsWith('.') ? normalize(join(dirname(path), spec)) : spec;
    edges.push({ from: path, to, typeOnly });
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
      const named = node.exportClause;
      const allNamedTypes =
        named !== undefined &&
        ts.isNamedExports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier.text, node.isTypeOnly || allNamedTypes);
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

/**
 * Every cycle a depth-first walk meets, type imports included (a type cycle is still two files
 * that cannot be read apart), each as `a -> b -> … -> a`. One cycle per edge that closes one, so a
 * tangle of files shows each of its loops the walk passes.
 */
export function findCycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!e.to.startsWith('src/')) continue;
    next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  }
  const nodes = [...new Set(edges.map((e) => e.from))].sort();
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
  for (const node of nodes) if (!state.has(node)) walk(node);
  return cycles;
}

/** One row of the room table: the paths it owns and what they may import at run time. */
export interface Room {
  /** The row's folders (`src/core/`) and files (`src/app.ts`). */
  owns: string[];
  /** The folders and files its files may import at run time; `everything` for the wiring. */
  mayImport: string[] | 'everything';
}

const codeSpans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

/**
 * The room table of docs/ARCHITECTURE.md (`| folder | room | may import at run time |`): a row's
 * first cell names the paths it owns in backticks; its last names, in backticks, the folders and
 * files of src/ its files may import at run time, or says `everything`. Rows outside src/ (the
 * emulator) are not rooms of src/.
 */
export function parseRoomTable(markdown: string): Room[] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((l) => /^\|\s*folder\s*\|\s*room\s*\|\s*may import at run time\s*\|/.test(l));
  if (header < 0) throw new Error('docs/ARCHITECTURE.md has no room table');
  const rooms: Room[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1);
    const owns = codeSpans(cells[0] ?? '').filter((p) => p.startsWith('src/'));
    if (owns.length === 0) continue;
    const last = cells[cells.length - 1] ?? '';
    const mayImport = /\beverything\b/.test(last) ? 'everything' : codeSpans(last).filter((p) => p.startsWith('src/'));
    rooms.push({ owns, mayImport });
  }
  return rooms;
}

const covers = (owned: string, path: string): boolean =>
  owned.endsWith('/') ? path.startsWith(owned) : path === owned;

/** The row that owns `path` (its longest matching folder or file), or null. */
export function roomOf(rooms: readonly Room[], path: string): Room | null {
  let best: { room: Room; length: number } | null = null;
  for (const room of rooms)
    for (const owned of room.owns)
      if (covers(owned, path) && (best === null || owned.length > best.length)) best = { room, length: owned.length };
  return best?.room ?? null;
}

/** The run-time imports between rooms that the table does not allow, as `from -> to`. */
export function forbiddenArrows(edges: readonly Edge[], rooms: readonly Room[]): string[] {
  return edges
    .filter((e) => !e.typeOnly && e.to.startsWith('src/'))
    .filter((e) => {
      const from = roomOf(rooms, e.from);
      const to = roomOf(rooms, e.to);
      if (from === null || to === null || from === to || from.mayImport === 'everything') return false;
      return !from.mayImport.some((allowed) => covers(allowed, e.to));
    })
    .map((e) => `${e.from} -> ${e.to}`);
}
