// Reading the head files for acceptance: a file the patch adds is taken from the patch whole, so
// a candidate that only adds files costs no read; anything else is read from the head tree.
import { describe, expect, it } from 'vitest';
import type { AcceptanceConfig } from '../../src/acceptance/context.ts';
import { addedFileText, gatherHeadFiles, type HeadReader } from '../../src/acceptance/gather.ts';
import type { HeadFile } from '../../src/core/head-files.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import type { PatchRow } from '../../src/store/types.ts';

const config = (over: Partial<AcceptanceConfig> = {}): AcceptanceConfig => ({ ...defaultConfig().acceptance, ...over });

const ADDED = [
  'diff --git a/src/new.ts b/src/new.ts',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/src/new.ts',
  '@@ -0,0 +1,3 @@',
  "+import { x } from './old.ts';",
  '+',
  '+export const y = x + 1;',
].join('\n');
const NO_NEWLINE = [
  'diff --git a/src/flat.txt b/src/flat.txt',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/src/flat.txt',
  '@@ -0,0 +1 @@',
  '+no newline at the end',
  '\\ No newline at end of file',
].join('\n');
const MODIFIED = [
  'diff --git a/src/old.ts b/src/old.ts',
  '--- a/src/old.ts',
  '+++ b/src/old.ts',
  '@@ -1,2 +1,2 @@',
  ' export const x = 1;',
  '-export const z = 2;',
  '+export const z = 3;',
].join('\n');

const patchOf = (text: string, files: PatchRow['files'], truncated = false): PatchRow => ({
  repo: 'acme/widgets',
  pr: 7,
  headSha: 'a'.repeat(40),
  mergeBase: 'b'.repeat(40),
  patch: `${text}\n`,
  truncated,
  files,
});

const file = (text: string): HeadFile => ({
  text,
  byteSize: Buffer.byteLength(text),
  isBinary: false,
  isTruncated: false,
});

/** A head tree of these files; records every read. */
function reader(tree: Record<string, string>): { read: HeadReader; asked: string[][] } {
  const asked: string[][] = [];
  const read: HeadReader = async ({ paths }) => {
    asked.push(paths);
    const files = new Map<string, HeadFile>();
    for (const p of paths) if (tree[p] !== undefined) files.set(p, file(tree[p]));
    return { files, tree: [] };
  };
  return { read, asked };
}

describe('the text of an added file, from the patch', () => {
  const added = { path: 'src/new.ts', status: 'added', additions: 3, deletions: 0 };
  const flat = { path: 'src/flat.txt', status: 'added', additions: 1, deletions: 0 };
  const modified = { path: 'src/old.ts', status: 'modified', additions: 1, deletions: 1 };
  const patch = patchOf([MODIFIED, ADDED, NO_NEWLINE].join('\n'), [modified, added, flat]);

  it('is every added line, with the final newline as the patch says', () => {
    expect(addedFileText(patch, 'src/new.ts')).toBe("import { x } from './old.ts';\n\nexport const y = x + 1;\n");
    expect(addedFileText(patch, 'src/flat.txt')).toBe('no newline at the end');
  });

  it('is unknown for a modified file, a cut patch, or counts that do not match', () => {
    expect(addedFileText(patch, 'src/old.ts')).toBeNull();
    expect(addedFileText(patchOf(ADDED, [added], true), 'src/new.ts')).toBeNull();
    expect(addedFileText(patchOf(ADDED, [{ ...added, additions: 4 }]), 'src/new.ts')).toBeNull();
    expect(addedFileText(patchOf(ADDED, [added]), 'src/other.ts')).toBeNull();
  });
});

describe('gathering the head files', () => {
  const tree = {
    'src/new.ts': "import { x } from './old.ts';\n\nexport const y = x + 1;\n",
    'src/old.ts': 'export const x = 1;\nexport const z = 3;\n',
  };

  it('reads nothing for a patch that only adds files, and follows their references', async () => {
    const patch = patchOf(ADDED, [{ path: 'src/new.ts', status: 'added', additions: 3, deletions: 0 }]);
    const { read, asked } = reader(tree);
    const files = await gatherHeadFiles(read, { sha: patch.headSha, patch, config: config() });
    expect(files.get('src/new.ts')).toEqual(file(tree['src/new.ts']));
    // The first read was not needed; the reference to ./old.ts is still read.
    expect(asked).toEqual([['src/old.ts']]);
    expect(files.get('src/old.ts')?.text).toBe(tree['src/old.ts']);
  });

  it('reads the files the patch does not hold whole, in the order of the patch', async () => {
    const patch = patchOf([MODIFIED, ADDED].join('\n'), [
      { path: 'src/old.ts', status: 'modified', additions: 1, deletions: 1 },
      { path: 'src/new.ts', status: 'added', additions: 3, deletions: 0 },
    ]);
    const { read, asked } = reader(tree);
    const files = await gatherHeadFiles(read, { sha: patch.headSha, patch, config: config() });
    expect(asked[0]).toEqual(['src/old.ts']);
    expect([...files.keys()]).toEqual(['src/old.ts', 'src/new.ts']);
    expect(files.get('src/new.ts')?.text).toBe(tree['src/new.ts']);
  });
});
