// The acceptance check of a candidate set (src/acceptance/set-material.ts): every member's patch and
// files in one material, each path prefixed by its repository, within one candidate's limits; a
// citation verifies only in the member whose repository it names. The call goes through the real
// SDK client to the fake endpoint, which answers a set's call from its first member's script.
import { afterEach, describe, expect, it } from 'vitest';
import { buildAcceptanceContext } from '../../src/acceptance/context.ts';
import { verifyCitation } from '../../src/acceptance/citations.ts';
import { parseUnifiedDiff } from '../../src/core/unified-diff.ts';
import { runAcceptance } from '../../src/acceptance/run.ts';
import { prefixDiff, setMaterial, splitSetPath, type SetMemberMaterial } from '../../src/acceptance/set-material.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { createAnthropicClient } from '../../src/llm/client.ts';
import { FakeAnthropic } from '../../sim/anthropic/index.ts';

const config = defaultConfig().acceptance;

const added = (path: string, text: string): string =>
  [
    `diff --git a/${path} b/${path}`,
    'new file mode 100644',
    '--- /dev/null',
    `+++ b/${path}`,
    `@@ -0,0 +1,${text.split('\n').length} @@`,
    ...text.split('\n').map((l) => `+${l}`),
    '',
  ].join('\n');

const member = (repo: string, pr: number, path: string, text: string): SetMemberMaterial => ({
  repo,
  pr,
  headSha: String(pr).repeat(40).slice(0, 40),
  patch: {
    repo,
    pr,
    headSha: String(pr).repeat(40).slice(0, 40),
    mergeBase: 'b'.repeat(40),
    patch: added(path, text),
    truncated: false,
    files: [{ path, status: 'added', additions: text.split('\n').length, deletions: 0 }],
  },
  headFiles: new Map([[path, { text: `${text}\n`, byteSize: text.length + 1, isBinary: false, isTruncated: false }]]),
});

const API =
  'export const search = (q: string) => index.find(q);\nexport const list = (rows: string[]) => rows.join(", ");';
const UI = "export const box = (results: string[]) => results.map(row).join('');";
const members = [member('acme/api', 7, 'src/search.ts', API), member('acme/ui', 9, 'src/search.ts', UI)];

describe('a set’s material', () => {
  it('prefixes every header path of a member’s diff, never a hunk line', () => {
    const diff = [
      'diff --git a/src/a.ts b/src/b.ts',
      'rename from src/a.ts',
      'rename to src/b.ts',
      '--- a/src/a.ts',
      '+++ b/src/b.ts',
      '@@ -1,2 +1,2 @@',
      '--- a/not/a/header',
      '+++ b/not/a/header',
    ].join('\n');
    const [file] = parseUnifiedDiff(prefixDiff(diff, 'acme/api'), { keepLines: true });
    expect(file).toMatchObject({ path: 'acme/api:src/b.ts', oldPath: 'acme/api:src/a.ts', status: 'renamed' });
    expect(file!.newSide.map((l) => l.text)).toEqual(['++ b/not/a/header']);
    expect(file!.removed.map((l) => l.text)).toEqual(['-- a/not/a/header']);
    expect(splitSetPath('acme/api:src/b.ts')).toEqual({ repo: 'acme/api', path: 'src/b.ts' });
    expect(splitSetPath('src/b.ts')).toBeNull();
  });

  it('holds both members, the same path apart by repository, within one candidate’s byte limit', () => {
    const context = buildAcceptanceContext({ ...setMaterial(members), config: { ...config, maxBytes: 2_000 } });
    expect(context.sent.map((f) => f.path)).toEqual(['acme/api:src/search.ts', 'acme/ui:src/search.ts']);
    expect(context.material).toContain('===== FILE acme/ui:src/search.ts');
    expect(Buffer.byteLength(context.material)).toBeLessThanOrEqual(2_000);
    const tight = buildAcceptanceContext({ ...setMaterial(members), config: { ...config, maxBytes: 700 } });
    expect(tight.truncated).toBe(true);
    expect(Buffer.byteLength(tight.material)).toBeLessThanOrEqual(700);
  });

  it('verifies a citation only in the member whose repository it names', () => {
    const context = buildAcceptanceContext({ ...setMaterial(members), config });
    const material = { files: context.sent, patch: context.patchText };
    const quote = 'export const list = (rows: string[]) => rows.join(", ");';
    expect(verifyCitation({ path: 'acme/api:src/search.ts', quote }, material)).toMatchObject({ ok: true, line: 2 });
    // The quote exists only in acme/api: cited in acme/ui, it is not found.
    expect(verifyCitation({ path: 'acme/ui:src/search.ts', quote }, material)).toEqual({
      ok: false,
      reason: 'not-found',
    });
    // A path without its repository names no member.
    expect(verifyCitation({ path: 'src/search.ts', quote }, material)).toEqual({ ok: false, reason: 'path-not-sent' });
    // A member that is not in the set.
    expect(verifyCitation({ path: 'acme/web:src/search.ts', quote }, material)).toEqual({
      ok: false,
      reason: 'path-not-sent',
    });
  });
});

describe('one acceptance call over a set', () => {
  let fake: FakeAnthropic | null = null;
  afterEach(async () => {
    await fake?.stop();
    fake = null;
  });

  it('is one small call that names the set; a citation of the wrong member is rejected', async () => {
    fake = await FakeAnthropic.start({
      scripts: {
        candidates: {
          7: {
            small: {
              AC1: {
                status: 'met',
                path: 'acme/api:src/search.ts',
                quote: 'export const search = (q: string) => index.find(q);',
              },
              AC2: {
                status: 'met',
                path: 'acme/ui:src/search.ts',
                quote: 'export const list = (rows: string[]) => rows.join(", ");',
              },
            },
          },
        },
      },
    });
    const llm = createAnthropicClient({ apiKey: 'test-key', baseURL: fake.url, retryBaseMs: 1, maxRetryDelayMs: 2 });
    const evidence = await runAcceptance({
      candidate: 7,
      set: { name: 'good', members: ['acme/api#7', 'acme/ui#9'] },
      criteria: [
        { id: 'AC1', text: 'The API answers a search query from the index', check: null },
        { id: 'AC2', text: 'The search box lists the results it gets', check: null },
      ],
      context: buildAcceptanceContext({ ...setMaterial(members), config }),
      checks: [],
      config,
      llm,
      changeTitle: 'Search',
    });
    expect(evidence.results.map((r) => [r.id, r.status, r.citation?.path ?? r.reason])).toEqual([
      ['AC1', 'met', 'acme/api:src/search.ts'],
      ['AC2', 'unclear', 'citation rejected: the quote does not occur in the cited file or patch'],
    ]);
    // AC2 unclear asks the large model once (unscripted: unavailable), as for one candidate.
    expect(evidence.modelCalls).toEqual({ small: 1, large: 1 });
    const first = JSON.stringify(fake.requests[0]!.body);
    expect(first).toContain('[arbiter-call] kind=acceptance candidate=7 set=good');
    expect(first).toContain('prefixed by its repository');
  });
});
