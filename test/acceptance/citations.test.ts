// Citation verification: verbatim (whitespace-normalised) quotes in this candidate's material only.
import { describe, expect, it } from 'vitest';
import {
  CITATION_FAILURE_WORDING,
  isMeaningfulQuote,
  verifyCitation,
  type CitationMaterial,
} from '../../src/acceptance/citations.ts';
import { asksForRemoval } from '../../src/acceptance/quote-rules.ts';
import { parseUnifiedDiff } from '../../src/core/unified-diff.ts';

const kanban = [
  "import { renderCalendar } from './calendar.ts';",
  '',
  'export function mountBoard(root: HTMLElement): void {',
  '  const days = renderCalendar(root,   new Date());',
  '  for (const day of days) {',
  '    day.appendChild(createKanbanList(day.dataset.date));',
  '  }',
  '}',
].join('\n');

const patch = [
  'diff --git a/src/kanban.ts b/src/kanban.ts',
  'index 111..222 100644',
  '--- a/src/kanban.ts',
  '+++ b/src/kanban.ts',
  '@@ -1,3 +1,4 @@',
  " import { renderCalendar } from './calendar.ts';",
  '-import { legacyWeekView } from "./week.ts";',
  '+',
  '+export const BOARD_VERSION = "kanban-2";',
  ' export function mountBoard(root: HTMLElement): void {',
  'diff --git a/old/banner.js b/old/banner.js',
  'deleted file mode 100644',
  '--- a/old/banner.js',
  '+++ /dev/null',
  '@@ -1,2 +0,0 @@',
  '-showMarketingBanner(document.body);',
  '-export default showMarketingBanner;',
  'diff --git a/logo.png b/logo.png',
  'Binary files a/logo.png and b/logo.png differ',
  '',
].join('\n');

const material = (): CitationMaterial => ({ files: [{ path: 'src/kanban.ts', text: kanban }], patch });

describe('isMeaningfulQuote', () => {
  it.each([
    ['}', false],
    ['return', false],
    ['</div>', false],
    ['</div></div></div>', false],
    ['return x;', false],
    ['})});});});', false],
    ['return value;', true],
    ['renderCalendar()', true],
    ['Each day has a list', true],
  ])('%s → %s', (q, want) => {
    expect(isMeaningfulQuote(q)).toBe(want);
  });
});

describe('asksForRemoval (see citation-rules.test.ts for the full table)', () => {
  it.each([
    ['Remove the marketing banner', true],
    ['The week view is no longer shown', true],
    ['Delete old/banner.js', true],
    ['Each day holds a kanban list', false],
  ])('%s → %s', (t, want) => expect(asksForRemoval(t)).toBe(want));
});

describe('verifyCitation', () => {
  it('finds a quote in the head file, whitespace-normalised, with its 1-based start line', () => {
    const got = verifyCitation(
      { path: 'src/kanban.ts', quote: 'const days = renderCalendar(root, new Date());\n for (const day of days)' },
      material(),
    );
    expect(got).toEqual({ ok: true, line: 4, side: 'head' });
  });

  it('accepts a ./ prefix on the path', () => {
    expect(
      verifyCitation({ path: './src/kanban.ts', quote: 'createKanbanList(day.dataset.date)' }, material()),
    ).toMatchObject({ ok: true, line: 6 });
  });

  it('finds an added patch line when the file was not sent, with its new-side line', () => {
    const m: CitationMaterial = { files: [], patch };
    expect(verifyCitation({ path: 'src/kanban.ts', quote: '+export const BOARD_VERSION = "kanban-2";' }, m)).toEqual({
      ok: true,
      line: 3,
      side: 'head',
    });
  });

  it('rejects a forged quote', () => {
    expect(
      verifyCitation({ path: 'src/kanban.ts', quote: 'renderCalendar(root, { month: "current" })' }, material()),
    ).toEqual({ ok: false, reason: 'not-found' });
  });

  it('says the quoted part was cut when the cited file was sent cut and the quote is not in its start', () => {
    const cut: CitationMaterial = {
      files: [{ path: 'src/kanban.ts', text: 'export const start = 1;\n[… truncated by Arbiter]', truncated: true }],
      patch: '',
    };
    const quote = { path: './src/kanban.ts', quote: 'renderCalendar(root, { month: "current" })' };
    expect(verifyCitation(quote, cut)).toEqual({ ok: false, reason: 'past-cut' });
    expect(CITATION_FAILURE_WORDING['past-cut']).toMatch(/^the quoted part was cut/);
    // The same file sent whole: the quote is simply not there.
    expect(verifyCitation(quote, { ...cut, files: [{ ...cut.files[0], truncated: false }] })).toEqual({
      ok: false,
      reason: 'not-found',
    });
  });

  it('rejects a quote that exists only in a sibling candidate', () => {
    const sibling: CitationMaterial = {
      files: [{ path: 'src/kanban.ts', text: 'export const sibling = showsCurrentMonth(calendar);' }],
      patch: '',
    };
    const quote = { path: 'src/kanban.ts', quote: 'export const sibling = showsCurrentMonth(calendar);' };
    expect(verifyCitation(quote, sibling)).toMatchObject({ ok: true });
    expect(verifyCitation(quote, material())).toEqual({ ok: false, reason: 'not-found' });
  });

  it('rejects a quote found under another path', () => {
    const m: CitationMaterial = {
      files: [...material().files, { path: 'src/other.ts', text: 'export const other = 1;' }],
      patch: '',
    };
    expect(verifyCitation({ path: 'src/other.ts', quote: 'createKanbanList(day.dataset.date)' }, m)).toEqual({
      ok: false,
      reason: 'not-found',
    });
  });

  it('rejects a path that was not sent', () => {
    expect(verifyCitation({ path: 'src/secret.ts', quote: 'createKanbanList(day.dataset.date)' }, material())).toEqual({
      ok: false,
      reason: 'path-not-sent',
    });
  });

  it('rejects a trivial quote even when it occurs', () => {
    expect(verifyCitation({ path: 'src/kanban.ts', quote: '}' }, material())).toEqual({ ok: false, reason: 'trivial' });
    expect(verifyCitation({ path: 'src/kanban.ts', quote: 'void {' }, material())).toEqual({
      ok: false,
      reason: 'trivial',
    });
  });

  it('rejects a met without path or quote', () => {
    expect(verifyCitation({ path: null, quote: 'createKanbanList(day.dataset.date)' }, material())).toEqual({
      ok: false,
      reason: 'missing',
    });
    expect(verifyCitation({ path: 'src/kanban.ts' }, material())).toEqual({ ok: false, reason: 'missing' });
  });

  it('a quote may not span two separate hunks', () => {
    const twoHunks = [
      'diff --git a/a.ts b/a.ts',
      '--- a/a.ts',
      '+++ b/a.ts',
      '@@ -1,1 +1,1 @@',
      '+const alpha = first();',
      '@@ -40,1 +40,1 @@',
      '+const beta = second();',
      '',
    ].join('\n');
    expect(
      verifyCitation(
        { path: 'a.ts', quote: 'const alpha = first(); const beta = second();' },
        { files: [], patch: twoHunks },
      ),
    ).toEqual({ ok: false, reason: 'not-found' });
    expect(verifyCitation({ path: 'a.ts', quote: 'const beta = second();' }, { files: [], patch: twoHunks })).toEqual({
      ok: true,
      line: 40,
      side: 'head',
    });
  });

  describe('removal', () => {
    it('a removed line no head file holds is met for a removal criterion, with its base line', () => {
      const q = { path: 'old/banner.js', quote: '-showMarketingBanner(document.body);' };
      expect(verifyCitation(q, material(), { allowRemoved: true })).toEqual({ ok: true, line: 1, side: 'removed' });
    });

    it('a removed line does not count for a criterion that is not a removal', () => {
      expect(
        verifyCitation({ path: 'old/banner.js', quote: 'showMarketingBanner(document.body);' }, material()),
      ).toEqual({ ok: false, reason: 'not-found' });
    });

    it('a removed line that a head file still holds does not count', () => {
      const m: CitationMaterial = {
        files: [...material().files, { path: 'src/app.ts', text: 'showMarketingBanner(document.body);' }],
        patch,
      };
      expect(
        verifyCitation({ path: 'old/banner.js', quote: 'showMarketingBanner(document.body);' }, m, {
          allowRemoved: true,
        }),
      ).toEqual({
        ok: false,
        reason: 'removed-line-still-present',
      });
    });

    it('a removed line of a modified file', () => {
      expect(
        verifyCitation({ path: 'src/kanban.ts', quote: 'import { legacyWeekView } from "./week.ts";' }, material(), {
          allowRemoved: true,
        }),
      ).toEqual({
        ok: true,
        line: 2,
        side: 'removed',
      });
    });
  });

  it('verifies 100 citations over 60 KB of material', () => {
    const files = Array.from({ length: 6 }, (_, f) => ({
      path: `src/f${f}.ts`,
      text: Array.from({ length: 300 }, (_, l) => `export const value_${f}_${l} = compute(${l}, "file ${f}");`).join(
        '\n',
      ),
    }));
    const m: CitationMaterial = { files, patch: '' };
    expect(files.reduce((n, f) => n + f.text.length, 0)).toBeGreaterThan(60_000);
    const results = Array.from({ length: 100 }, (_, i) => {
      const f = i % 6;
      const l = (i * 7) % 300;
      const real = verifyCitation(
        { path: `src/f${f}.ts`, quote: `export const value_${f}_${l} = compute(${l}, "file ${f}");` },
        m,
      );
      return real.ok ? real.line : -1;
    });
    expect(results).toEqual(Array.from({ length: 100 }, (_, i) => ((i * 7) % 300) + 1));
  });
});

describe('parseUnifiedDiff', () => {
  it('reads files, statuses and counts', () => {
    const files = parseUnifiedDiff(patch);
    expect(files.map((f) => [f.path, f.status, f.additions, f.deletions, f.binary])).toEqual([
      ['src/kanban.ts', 'modified', 2, 1, false],
      ['old/banner.js', 'removed', 0, 2, false],
      ['logo.png', 'modified', 0, 0, true],
    ]);
  });

  it('reads renames and new files', () => {
    const d = [
      'diff --git a/x.ts b/y.ts',
      'similarity index 90%',
      'rename from x.ts',
      'rename to y.ts',
      'diff --git a/n.ts b/n.ts',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/n.ts',
      '@@ -0,0 +1 @@',
      '+new',
      '',
    ].join('\n');
    expect(parseUnifiedDiff(d).map((f) => [f.oldPath, f.path, f.status, f.additions])).toEqual([
      ['x.ts', 'y.ts', 'renamed', 0],
      ['n.ts', 'n.ts', 'added', 1],
    ]);
  });
});

describe('verifyCitation (property)', () => {
  it('a quote of a sent file verifies at the line where its first occurrence starts, or is refused as unspecific', async () => {
    const fc = await import('fast-check');
    const norm = (t: string): string => t.replace(/\s+/g, ' ').trim();
    /** The first occurrence that does not cut a word at either end (what "verbatim" means). */
    const firstWhole = (hay: string, needle: string): number => {
      for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
        const end = at + needle.length;
        if ((at === 0 || !/\w/.test(hay[at - 1])) && (end === hay.length || !/\w/.test(hay[end]))) return at;
      }
      return -1;
    };
    const word = fc.stringMatching(/^[a-z]{1,6}$/);
    const lineArb = fc.array(word, { minLength: 1, maxLength: 6 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 30 }),
        fc.nat(),
        fc.constantFrom(' ', '  ', '\t', ' \n '),
        (lines, pick, ws) => {
          const i = pick % lines.length;
          const text = lines.map((l, n) => (n % 3 === 0 ? `  ${l}  ` : l)).join('\n');
          const quote = lines[i].split(' ').join(ws);
          const got = verifyCitation({ path: 'f.ts', quote }, { files: [{ path: 'f.ts', text }], patch: '' });
          const uniqueLine =
            lines.filter((l) => firstWhole(l, norm(quote)) >= 0).length === 1 &&
            norm(quote).replace(/ /g, '').length >= 8;
          if (!got.ok) return !uniqueLine && (got.reason === 'trivial' || got.reason === 'not-specific');
          // Oracle: the first occurrence in the normalised text starts within line got.line.
          const at = firstWhole(norm(text), norm(quote));
          const before = norm(lines.slice(0, got.line - 1).join('\n'));
          const upTo = norm(lines.slice(0, got.line).join('\n'));
          return at >= (before.length === 0 ? 0 : before.length + 1) && at < upTo.length;
        },
      ),
      { numRuns: 300 },
    );
  });
});
