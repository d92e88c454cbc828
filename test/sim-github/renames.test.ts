// Renamed files end to end (issue 13): the emulator finds a rename as GitHub does (a removed and an
// added file at least half alike), lists it with `status: renamed` and `previous_filename`, and
// writes `rename from/to` in the diff; Arbiter's patch reader keeps the new path, whether it reads
// the diff or (when GitHub refuses the diff) the file pages, and a citation of the new path verifies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCitation } from '../../src/acceptance/citations.ts';
import { fetchPatch } from '../../src/github/patch-reads.ts';
import { parseScenario } from '../../sim/scenario-schema.ts';
import { startHarness, type Harness } from './harness.ts';

const OWNER = 'acme';
const NAME = 'renames';
const REPO = `${OWNER}/${NAME}`;
const LIST = [
  '// A kanban list.',
  'export const COLUMNS = ["todo", "doing", "done"];',
  'export function moveCard(cards, id, to) {',
  '  return cards.map((c) => (c.id === id ? { ...c, column: to } : c));',
  '}',
  '',
].join('\n');
const BOARD = LIST.replace('// A kanban list.', '// A kanban board.');
const GUIDE = '# Guide\n\nHow to plan a week.\n';
let h: Harness;
let headSha: string;

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({
    owner: OWNER,
    name: NAME,
    files: { 'src/list.ts': LIST, 'docs/guide.md': GUIDE, 'src/app.ts': 'run();\n' },
  });
  // Moved and edited (one line of five), moved as it is, and an unrelated file removed.
  headSha = h.emulator.commit(REPO, 'agent/board', {
    renamed: { 'src/board.ts': 'src/list.ts', 'docs/planning.md': 'docs/guide.md' },
    files: { 'src/board.ts': BOARD },
    deleted: ['src/app.ts'],
    from: 'main',
  });
  await h.emulator.openPullRequest(REPO, {
    number: 5,
    head: 'agent/board',
    title: 'Board',
    body: 'Candidate-for: #1',
    user: 'agent',
    draft: true,
  });
});

afterAll(async () => {
  await h.stop();
});

const target = () => ({ owner: OWNER, repo: NAME, pr: 5, baseRef: 'main', headSha });

describe('renamed files', () => {
  it('GET /pulls/{n}/files lists a moved file once, renamed, with its previous filename', async () => {
    const { data } = await h.octokit.pulls.listFiles({ owner: OWNER, repo: NAME, pull_number: 5 });
    const byName = Object.fromEntries(data.map((f) => [f.filename, f]));
    expect(Object.keys(byName).sort()).toEqual(['docs/planning.md', 'src/app.ts', 'src/board.ts']);
    expect(byName['src/board.ts']).toMatchObject({
      status: 'renamed',
      previous_filename: 'src/list.ts',
      additions: 1,
      deletions: 1,
    });
    expect(byName['src/board.ts']?.patch).toContain('+// A kanban board.');
    expect(byName['docs/planning.md']).toMatchObject({
      status: 'renamed',
      previous_filename: 'docs/guide.md',
      changes: 0,
    });
    expect(byName['docs/planning.md']?.patch).toBeUndefined();
    expect(byName['src/app.ts']).toMatchObject({ status: 'removed' });
  });

  it("the PR's diff says rename from / rename to, and the patch reader keeps the new path", async () => {
    const row = await fetchPatch(h.octokit, target());
    expect(row.patch).toContain(
      'diff --git a/src/list.ts b/src/board.ts\nsimilarity index 80%\nrename from src/list.ts\nrename to src/board.ts\n--- a/src/list.ts\n+++ b/src/board.ts\n',
    );
    expect(row.files).toEqual([
      { path: 'docs/planning.md', status: 'renamed', additions: 0, deletions: 0, binary: false },
      { path: 'src/app.ts', status: 'removed', additions: 0, deletions: 1, binary: false },
      { path: 'src/board.ts', status: 'renamed', additions: 1, deletions: 1, binary: false },
    ]);
  });

  it('when GitHub refuses the diff, the patch is assembled from the file pages with the renames', async () => {
    h.emulator.addFault({ route: 'GET /repos/{owner}/{repo}/pulls/{pull_number}', status: 406, times: 1 });
    const row = await fetchPatch(h.octokit, target());
    expect(row.patch).toContain(
      'diff --git a/src/list.ts b/src/board.ts\nrename from src/list.ts\nrename to src/board.ts\n--- a/src/list.ts\n+++ b/src/board.ts\n',
    );
    expect(row.patch).not.toContain('Binary files');
    expect(row.files.map((f) => [f.path, f.status, f.binary])).toEqual(
      [
        ['src/app.ts', 'removed', false],
        ['src/board.ts', 'renamed', false],
        ['docs/planning.md', 'renamed', false],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
  });

  it('a citation of the new path verifies, from the patch alone or the head file; the old path does not', async () => {
    const row = await fetchPatch(h.octokit, target());
    const quote = 'return cards.map((c) => (c.id === id ? { ...c, column: to } : c));';
    expect(verifyCitation({ path: 'src/board.ts', quote }, { files: [], patch: row.patch })).toMatchObject({
      ok: true,
      side: 'head',
      line: 4,
    });
    expect(
      verifyCitation(
        { path: 'src/board.ts', quote },
        { files: [{ path: 'src/board.ts', text: BOARD }], patch: row.patch },
      ),
    ).toMatchObject({ ok: true, line: 4 });
    expect(
      verifyCitation(
        { path: 'src/list.ts', quote },
        { files: [{ path: 'src/board.ts', text: BOARD }], patch: row.patch },
      ),
    ).toMatchObject({ ok: false });
  });

  it('the scenario format takes `renamed` on a candidate and on a push, new path: old path', () => {
    const r = parseScenario({
      repo: 'acme/renames',
      change: { number: 1, title: 'Board', body: '' },
      candidates: [{ number: 5, branch: 'agent/board', renamed: { 'src/board.ts': 'src/list.ts' } }],
      events: [{ at: 1, push: { on: 5, renamed: { 'src/kanban.ts': 'src/board.ts' } } }],
    });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect(r.scenario.candidates[0]?.renamed).toEqual({ 'src/board.ts': 'src/list.ts' });
    expect(r.scenario.events[0]?.push?.renamed).toEqual({ 'src/kanban.ts': 'src/board.ts' });
  });

  it("every answer above matched GitHub's published response schema", () => {
    expect(h.emulator.violations).toEqual([]);
  });

  it('renaming a path that is not on the branch is refused with the reason', () => {
    expect(() => h.emulator.commit(REPO, 'agent/board', { renamed: { 'src/x.ts': 'src/missing.ts' } })).toThrow(
      'cannot rename src/missing.ts to src/x.ts: src/missing.ts is not a file on agent/board',
    );
  });
});
