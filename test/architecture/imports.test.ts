// The arrows between rooms (docs/ARCHITECTURE.md), enforced: every import in src/ is read with the
// TypeScript parser. Cycles count type imports too; the room table of the doc is the allowed
// matrix of run-time imports; the core takes nothing from outside itself but zod, picomatch and
// the config's types. Each check also runs on a small graph that must fail, so none passes by
// seeing nothing.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findCycles, forbiddenArrows, importsOf, parseRoomTable, roomOf, type Edge } from './import-graph.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const MAX_LINES = 400;

function listTs(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return listTs(path);
      return path.endsWith('.ts') ? [path] : [];
    });
}

const files = listTs(SRC).map((f) => relative(ROOT, f));
const edges = files.flatMap((f) => importsOf(f, readFileSync(join(ROOT, f), 'utf8')));
const runtime = edges.filter((e) => !e.typeOnly);
const rooms = parseRoomTable(readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8'));
const inRoom = (path: string, room: string) => path.startsWith(`src/${room}/`);
const show = (list: Edge[]) => list.map((e) => `${e.from} -> ${e.to}${e.typeOnly ? ' (type)' : ''}`);

/** Packages the pure core may use; anything else, or a file outside src/core/, is I/O or another room. */
const CORE_PACKAGES = new Set(['zod', 'picomatch']);
/** Type-only imports the core may take from outside itself: the config it decides on. */
const CORE_TYPE_IMPORTS = new Set(['src/config/schema.ts']);

const fixture = (graph: Record<string, string>): Edge[] =>
  Object.entries(graph).flatMap(([path, text]) => importsOf(path, text));

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

  it('every file of src/ has a row in the room table of docs/ARCHITECTURE.md', () => {
    expect(rooms.length).toBeGreaterThan(10);
    expect(files.filter((f) => roomOf(rooms, f) === null)).toEqual([]);
  });

  it('every run-time import between rooms is one the room table allows', () => {
    const bad = forbiddenArrows(edges, rooms);
    if (bad.length > 0) console.log(`arrows the room table forbids (${bad.length}):\n${bad.join('\n')}`);
    expect(bad).toEqual([]);
  });

  it('handlers reach the planners only through a workflow', () => {
    // Finer than the table: a handler may use the core's types and parsers, never decide.
    const bad = runtime.filter((e) => inRoom(e.from, 'handlers') && e.to.startsWith('src/core/plan'));
    expect(show(bad)).toEqual([]);
  });

  it('nothing in src/ imports the simulator', () => {
    const bad = edges.filter((e) => e.to.startsWith('sim/') || e.to === 'sim');
    expect(show(bad)).toEqual([]);
  });

  it('src/ has no import cycle, type imports included (the allow-list of cycles is empty)', () => {
    const cycles = findCycles(edges);
    console.log(
      `import cycles in src/ (type imports included): ${cycles.length}${cycles.map((c) => `\n  ${c}`).join('')}`,
    );
    expect(cycles).toEqual([]);
  });

  it(`no file in src/ is over ${MAX_LINES} lines`, () => {
    const long = files
      .map((f) => ({ f, n: readFileSync(join(ROOT, f), 'utf8').split('\n').length }))
      .filter(({ n }) => n > MAX_LINES)
      .map(({ f, n }) => `${f}: ${n} lines`);
    expect(long).toEqual([]);
  });
});

describe('the checks fail where they must (fixture graphs)', () => {
  it('a cycle closed only by type imports is a cycle', () => {
    const graph = fixture({
      'src/workflows/candidates.ts': "import type { GroupView } from './select.ts';\nexport interface PullFacts {}",
      'src/workflows/select.ts': "import { type PullFacts } from './candidates.ts';\nexport interface GroupView {}",
      'src/workflows/verify.ts': "import type { PullFacts } from './candidates.ts';",
    });
    expect(graph.every((e) => e.typeOnly)).toBe(true);
    expect(findCycles(graph)).toEqual([
      'src/workflows/candidates.ts -> src/workflows/select.ts -> src/workflows/candidates.ts',
    ]);
  });

  it('every cycle is reported, a re-export and a dynamic import included', () => {
    const graph = fixture({
      'src/a/one.ts': "export { x } from './two.ts';",
      'src/a/two.ts': "const m = await import('./one.ts');\nimport './three.ts';",
      'src/a/three.ts': "export type { T } from './two.ts';",
    });
    expect(findCycles(graph)).toEqual([
      'src/a/one.ts -> src/a/two.ts -> src/a/one.ts',
      'src/a/two.ts -> src/a/three.ts -> src/a/two.ts',
    ]);
  });

  it('an arrow the room table does not list is forbidden; a listed folder, file or `everything` is not', () => {
    const table = [
      '| folder | room | may import at run time |',
      '| --- | --- | --- |',
      '| `src/core/` | the pure domain | nothing but `zod` |',
      '| `src/github/` | GitHub | `src/core/`, `src/acceptance/patch.ts` |',
      '| `src/acceptance/` | acceptance | `src/core/` |',
      '| `src/workflows/` | workflows | `src/core/`, `src/github/` |',
      '| `src/jobs/` | jobs | `src/workflows/` |',
      '| `src/app.ts` | wiring | everything |',
      '| `sim/` | the emulator | `src/` |',
    ].join('\n');
    const table_ = parseRoomTable(table);
    expect(table_.map((r) => r.owns.join(' '))).toEqual([
      'src/core/',
      'src/github/',
      'src/acceptance/',
      'src/workflows/',
      'src/jobs/',
      'src/app.ts',
    ]);
    const graph = fixture({
      'src/github/gateway.ts':
        "import { fetchPatch } from '../acceptance/patch.ts';\nimport { gather } from '../acceptance/gather.ts';\nimport { keys } from '../core/keys.ts';",
      'src/workflows/dashboard.ts':
        "import { blocks } from '../jobs/rate-limit.ts';\nimport type { Job } from '../jobs/queue.ts';\nimport { x } from './other.ts';",
      'src/core/rank.ts': "import { gh } from '../github/port.ts';",
      'src/app.ts': "import { job } from './jobs/delivery-job.ts';",
    });
    expect(forbiddenArrows(graph, table_)).toEqual([
      'src/github/gateway.ts -> src/acceptance/gather.ts',
      'src/workflows/dashboard.ts -> src/jobs/rate-limit.ts',
      'src/core/rank.ts -> src/github/port.ts',
    ]);
  });
});
