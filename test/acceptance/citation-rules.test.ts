// The citation rule of issue 15: short specific quotes of real code verify; trivial or repeated
// quotes, comments, prose files and restatements of the criterion do not; removals need both
// the model's classification and a criterion that asks for something to go away.
import { describe, expect, it } from 'vitest';
import { verifyCitation, type CitationMaterial } from '../../src/acceptance/citations.ts';
import { commentMask, isProsePath, partsOfQuote } from '../../src/acceptance/comments.ts';
import {
  asksForRemoval,
  isDocumentationCriterion,
  isTrivialQuote,
  selfDescribes,
} from '../../src/acceptance/quote-rules.ts';

const one = (path: string, text: string): CitationMaterial => ({ files: [{ path, text }], patch: '' });

describe('short quotes of real code verify', () => {
  it.each([
    [
      'src/slug.ts',
      "export const slug = (t: string): string => t.trim().toLowerCase().replace(/\\s+/g, '-');\n",
      ".replace(/\\s+/g, '-')",
    ],
    ['.prettierrc.json', '{\n  "semi": true,\n  "tabWidth": 2,\n  "singleQuote": true\n}\n', '"tabWidth": 2'],
    ['src/slug.js', "export function slug(t) {\n  return t.replace(/ +/g, '-');\n}\n", "t.replace(/ +/g, '-')"],
    ['public/style.css', 'body {\n  color: #111;\n  background: #fafafa;\n}\n', 'color: #111;'],
  ])('%s: %s', (path, text, quote) => {
    expect(verifyCitation({ path, quote }, one(path, text), { criterion: 'Titles become URL slugs' })).toMatchObject({
      ok: true,
      side: 'head',
    });
  });

  it('a whole line of 8+ characters that occurs once is specific, even when made of keywords', () => {
    const text = 'export function f(a) {\n  if (a) {\n    return false;\n  }\n  return a.value;\n}\n';
    expect(verifyCitation({ path: 'f.js', quote: 'return false;' }, one('f.js', text))).toEqual({
      ok: true,
      line: 3,
      side: 'head',
    });
  });
});

describe('unspecific quotes do not verify', () => {
  it.each(['}', 'return;', '</div>', 'true', 'null', 'else {', 'export', 'i++', 'x = 1', '});'])(
    'trivial: %s',
    (quote) => {
      expect(isTrivialQuote(quote)).toBe(true);
      const text = `export const thing = compute(value);\n${quote}\n`;
      expect(verifyCitation({ path: 'a.ts', quote }, one('a.ts', text))).toMatchObject({ ok: false });
    },
  );

  it('a fragment that occurs more than a few times in the material is not specific', () => {
    const css = Array.from({ length: 5 }, (_, i) => `.c${i} { color: red; margin: ${i}px; }`).join('\n');
    expect(verifyCitation({ path: 's.css', quote: 'color: red;' }, one('s.css', css))).toEqual({
      ok: false,
      reason: 'not-specific',
    });
    expect(verifyCitation({ path: 's.css', quote: 'margin: 3px;' }, one('s.css', css))).toMatchObject({
      ok: true,
      line: 4,
    });
  });

  it('a quote must not cut a word: `value` is not found inside `valueOf`', () => {
    expect(verifyCitation({ path: 'a.ts', quote: 'return value' }, one('a.ts', 'return valueOf();\n'))).toEqual({
      ok: false,
      reason: 'not-found',
    });
  });
});

describe('text about the work is not the work', () => {
  const search = [
    '// AC1 is met: search ignores case',
    'export function filterTodos(todos: string[], query: string): string[] {',
    '  /* The search box filters the list as you type. */',
    '  return todos; // TODO: filtering',
    '}',
  ].join('\n');
  const m: CitationMaterial = {
    files: [
      { path: 'src/search.ts', text: search },
      {
        path: 'NOTES.md',
        text: '# Notes\n\n- The search ignores upper and lower case.\n- A search box filters the todo list as you type.\n',
      },
      { path: 'src/messages.ts', text: "export const HELP = 'The search ignores upper and lower case';\n" },
    ],
    patch: '',
  };
  const behaviour = 'The search ignores upper and lower case';

  it.each([
    ['src/search.ts', '// AC1 is met: search ignores case', 'in-comment'],
    ['src/search.ts', 'The search box filters the list as you type.', 'in-comment'],
    ['src/search.ts', 'TODO: filtering', 'in-comment'],
    ['NOTES.md', 'The search ignores upper and lower case.', 'prose-file'],
    ['src/messages.ts', 'The search ignores upper and lower case', 'restates-criterion'],
  ])('%s `%s` → %s', (path, quote, reason) => {
    expect(verifyCitation({ path, quote }, m, { criterion: behaviour })).toEqual({ ok: false, reason });
  });

  it('the code itself still verifies', () => {
    expect(verifyCitation({ path: 'src/search.ts', quote: 'return todos;' }, m, { criterion: behaviour })).toEqual({
      ok: true,
      line: 4,
      side: 'head',
    });
  });

  it('a criterion about documentation may cite prose and comments', () => {
    const docs = 'The README explains how the search works';
    expect(isDocumentationCriterion(docs)).toBe(true);
    expect(
      verifyCitation({ path: 'NOTES.md', quote: 'The search ignores upper and lower case.' }, m, {
        criterion: docs,
        allowProse: true,
      }),
    ).toMatchObject({ ok: true });
    expect(
      verifyCitation({ path: 'src/search.ts', quote: '// AC1 is met: search ignores case' }, m, {
        criterion: docs,
        allowProse: true,
      }),
    ).toMatchObject({ ok: true, line: 1 });
  });

  // Documentation files by extension and by well-known name without a code extension; never a
  // source file because of its name or folder.
  it.each([
    ['README.md', true],
    ['docs/guide.rst', true],
    ['docs/guide.adoc', true],
    ['notes.txt', true],
    ['CHANGELOG', true],
    ['NOTES', true],
    ['TODO', true],
    ['LICENSE', true],
    ['LICENSE-MIT', true],
    ['HISTORY.md', true],
    ['src/docsify.ts', false],
    ['src/app.ts', false],
    ['src/todo.ts', false],
    ['src/Todo.tsx', false],
    ['src/notes.js', false],
    ['lib/history.js', false],
    ['src/changes.py', false],
    ['docs/app.js', false],
    ['docs/guide.html', false],
    ['documentation/index.ts', false],
    ['TODO.elm', false],
  ])('documentation path %s → %s', (path, want) => expect(isProsePath(path)).toBe(want));

  it.each([
    ['The search ignores upper and lower case', "'Search ignores upper and lower case'", true],
    [
      'The search ignores upper and lower case',
      'return todos.filter((todo) => todo.toLocaleLowerCase().includes(wanted));',
      false,
    ],
    [
      'A search box filters the todo list as you type',
      '<input id="search" type="search" placeholder="Search todos">',
      false,
    ],
    ['Titles become URL slugs', "t.replace(/ +/g, '-')", false],
    // Code naming the criterion's nouns many times is not a restatement: distinct words count.
    [
      'A card can be moved from one column to another',
      'return cards.map((card) => (card.id === id ? { ...card, column: to } : card));',
      false,
    ],
  ])('describes %s: %s → %s', (criterion, quote, want) =>
    expect(selfDescribes(partsOfQuote('src/search.ts', quote), criterion)).toBe(want),
  );
});

describe('comment masks by language', () => {
  const inComment = (path: string, text: string, fragment: string): boolean => {
    const mask = commentMask(path, text);
    const at = text.indexOf(fragment);
    return Array.from(mask.slice(at, at + fragment.length)).every((b) => b === 1);
  };
  it.each([
    ['a.ts', 'const url = "http://example.com"; // real comment', '"http://example.com"', false],
    ['a.ts', 'const url = "http://example.com"; // real comment', '// real comment', true],
    ['a.ts', 'const t = `line\n// not a comment\n`;', '// not a comment', false],
    ['a.css', 'a { background: url(//cdn.example/x.png); } /* note */', 'url(//cdn.example/x.png)', false],
    ['a.css', 'a { color: #111; } /* note */', '/* note */', true],
    ['a.yml', 'color: "#111" # the colour\nurl: http://x#frag', '# the colour', true],
    ['a.yml', 'color: "#111" # the colour\nurl: http://x#frag', 'http://x#frag', false],
    ['a.py', 'def f():\n    """Search ignores case."""\n    return 1', '"""Search ignores case."""', true],
    ['a.html', '<p>Hi</p><!-- AC1 met --><script>\n// AC2 met\nrun();</script>', '<!-- AC1 met -->', true],
    ['a.html', '<p>Hi</p><!-- AC1 met --><script>\n// AC2 met\nrun();</script>', '// AC2 met', true],
    ['a.html', '<p>Hi</p><!-- AC1 met --><script>\n// AC2 met\nrun();</script>', 'run();', false],
  ])('%s: %s', (path, text, fragment, want) => expect(inComment(path, text, fragment)).toBe(want));
});

describe('removals', () => {
  // Both kinds of criteria: those that ask for something to go away, and features that delete.
  it.each([
    ['Remove the marketing banner', true],
    ['Remove support for Node 16', true],
    ['Delete old/banner.js', true],
    ['Drop the legacy week view', true],
    ['Get rid of the debug logging', true],
    ['The week view is no longer shown', true],
    ['The old exact-match search is removed', true],
    ['The jQuery dependency has been dropped', true],
    ['No more tracking pixels in the footer', true],
    ['A card can be deleted from its column', false],
    ['A card can be removed from the board', false],
    ['Deleted cards go to the archive', false],
    ['Removing a card asks for confirmation', false],
    ['The delete button removes the card', false],
    ['Delete button asks before removing a card', false],
    ['Drop files onto the board to attach them', false],
    ['Users are able to delete their account', false],
    ['Each day holds a kanban list', false],
  ])('%s → %s', (text, want) => expect(asksForRemoval(text)).toBe(want));

  const patch = [
    'diff --git a/src/board.ts b/src/board.ts',
    '--- a/src/board.ts',
    '+++ b/src/board.ts',
    '@@ -1,3 +1,2 @@',
    ' export const cards: string[] = [];',
    '-export function deleteCard(id: string): void { cards.splice(cards.indexOf(id), 1); }',
    ' export const columns = 3;',
    '',
  ].join('\n');
  const m: CitationMaterial = {
    files: [{ path: 'src/board.ts', text: 'export const cards: string[] = [];\nexport const columns = 3;\n' }],
    patch,
  };
  const quote = {
    path: 'src/board.ts',
    quote: 'export function deleteCard(id: string): void { cards.splice(cards.indexOf(id), 1); }',
  };

  it('a removed line verifies only with allowRemoved (the model said removal AND the text asks for one)', () => {
    expect(verifyCitation(quote, m, { allowRemoved: true })).toEqual({ ok: true, line: 2, side: 'removed' });
    expect(verifyCitation(quote, m, { allowRemoved: false })).toEqual({ ok: false, reason: 'not-found' });
  });
});
