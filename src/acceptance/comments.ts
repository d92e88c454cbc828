// Where the text about the work lies: which characters of a file are comments, text (string
// literals, markup text) or code, and which files are documentation (README, *.md…). Pure; linear in the text.
import { posix } from 'node:path';

interface Syntax {
  /** Tokens that open a comment running to the end of the line. */
  line: string[];
  /** Open and close tokens of block comments. */
  block: [string, string][];
  /** Characters that open a string (a comment token inside a string is not a comment). */
  quotes: string;
  /** Quotes whose strings may span lines (template literals); the others end at a line break. */
  multiline: string;
  /** `#` starts a comment only at the start of a line or after whitespace (YAML, shell: `a#b`). */
  lineNeedsSpace?: boolean;
  /** Python: a triple-quoted string that opens a line is a docstring, text about the code. */
  docstrings?: boolean;
}

const C_LIKE: Syntax = { line: ['//'], block: [['/*', '*/']], quotes: `"'\``, multiline: '`' };
const CSS: Syntax = { line: [], block: [['/*', '*/']], quotes: `"'`, multiline: '' };
const SCSS: Syntax = { line: ['//'], block: [['/*', '*/']], quotes: `"'`, multiline: '' };
const HASH: Syntax = { line: ['#'], block: [], quotes: `"'`, multiline: '', lineNeedsSpace: true };
const PYTHON: Syntax = { ...HASH, docstrings: true };
const SQL: Syntax = { line: ['--'], block: [['/*', '*/']], quotes: `"'`, multiline: '' };
const MARKUP: Syntax = { line: [], block: [['<!--', '-->']], quotes: '', multiline: '' };

const BY_EXTENSION: Record<string, Syntax> = {};
const register = (syntax: Syntax, exts: string[]): void => {
  for (const e of exts) BY_EXTENSION[e] = syntax;
};
register(C_LIKE, [
  'js',
  'mjs',
  'cjs',
  'jsx',
  'ts',
  'mts',
  'cts',
  'tsx',
  'java',
  'c',
  'h',
  'cc',
  'cpp',
  'hpp',
  'cs',
  'go',
  'rs',
]);
register(C_LIKE, ['swift', 'kt', 'kts', 'scala', 'dart', 'php', 'groovy', 'gradle', 'json', 'jsonc', 'json5', 'proto']);
register(CSS, ['css']);
register(SCSS, ['scss', 'less', 'sass']);
register(PYTHON, ['py', 'pyi']);
register(HASH, [
  'rb',
  'sh',
  'bash',
  'zsh',
  'fish',
  'yml',
  'yaml',
  'toml',
  'r',
  'pl',
  'ps1',
  'conf',
  'cfg',
  'ini',
  'env',
]);
register(SQL, ['sql', 'lua', 'hs']);
register(MARKUP, ['html', 'htm', 'xhtml', 'xml', 'svg', 'vue', 'svelte', 'astro']);

const HASH_NAMES =
  /^(makefile|dockerfile|gemfile|rakefile|\.gitignore|\.dockerignore|\.npmignore|\.editorconfig|\.env(\..+)?)$/i;

const syntaxOf = (path: string): Syntax | null => {
  const base = posix.basename(path);
  if (HASH_NAMES.test(base)) return HASH;
  const dot = base.lastIndexOf('.');
  return dot < 0 ? null : (BY_EXTENSION[base.slice(dot + 1).toLowerCase()] ?? null);
};

const PROSE_EXT = /\.(md|markdown|mdx|txt|text|rst|adoc|asciidoc|org|textile|rtf|rdoc|pod)$/i;
/** Well-known names of documentation files, alone or with a prose extension (README, NOTES.md, LICENSE-MIT). */
const PROSE_NAME =
  /^(readme|changelog|changes|history|news|notes|authors|contributors|contributing|license|licence|copying|todo|notice|install|faq|code_of_conduct|security|support)([.-][^/]*)?$/i;

/**
 * A documentation file: a prose extension (`*.md`, `*.txt`, `*.rst`, `*.adoc`…), or a well-known
 * documentation name (README, CHANGELOG, NOTES, TODO, LICENSE…) without a code extension. A source
 * file is never prose because of its name or folder: `src/todo.ts`, `src/notes.js` and
 * `docs/app.js` are code.
 */
export const isProsePath = (path: string): boolean => {
  if (PROSE_EXT.test(path)) return true;
  const base = posix.basename(path.replace(/\\/g, '/'));
  return PROSE_NAME.test(base) && syntaxOf(base) === null && !CODE_EXT.test(base);
};

const CODE_EXT =
  /\.(elm|exs?|erl|hrl|clj[sc]?|mli?|fsx?|nim|zig|vb|mm?|jl|pas|cr|sol|tf|hcl|coffee|purs|res|gleam|odin)$/i;

const startsWithAt = (text: string, at: number, token: string): boolean => text.startsWith(token, at);

const atLineStart = (text: string, at: number): boolean => {
  let i = at - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  return i < 0 || text[i] === '\n';
};

/** What a character of a file is: code, a comment, text (prose in a string or markup), an interpolation, a name. */
export const KIND = {
  /** Code: identifiers, keywords, operators, tag and attribute names. */
  code: 0,
  /** Inside a comment (or docstring) of the file's language. */
  comment: 1,
  /** Text: a string literal holding words (`'Sort by priority'`), markup text content, a YAML value. */
  text: 2,
  /** Code inside a template literal's `${…}`: part of the message it builds, not code on its own. */
  interpolation: 3,
  /** A string literal that is one name (`'taskListCheck'`, `"invalid_type"`, `'priority'`): a key, not prose. */
  name: 4,
} as const;

/** A word of prose: letters, perhaps an apostrophe or hyphen, in brackets or quotes, before punctuation. */
const PROSE_WORD = /^[(["'`“‘]*\p{L}[\p{L}'’-]*[)\]"'`”’.,;:!?]*$/u;

/**
 * A literal whose content is not prose (fewer than two words of prose): a name (`'taskListCheck'`,
 * `"invalid_type"`, `'priority'`), a path, a route (`"GET /repos/{owner}/{repo}/issues"`), a format.
 */
const isNameLiteral = (content: string): boolean => content.split(/\s+/).filter((t) => PROSE_WORD.test(t)).length < 2;

/** The offset just past the `}` closing a `${` whose body starts at `from` (nested braces counted). */
function closingBrace(text: string, from: number, to: number): number {
  let depth = 1;
  for (let k = from; k < to; k++) {
    if (text[k] === '{') depth++;
    else if (text[k] === '}' && --depth === 0) return k + 1;
  }
  return to;
}

/** A literal holding a query: SQL (`SELECT … ORDER BY priority`) or GraphQL (`query { … }`) is code, not prose. */
const EMBEDDED_CODE =
  /^\s*(?:(?:SELECT|INSERT INTO|UPDATE|DELETE FROM|WITH|CREATE|ALTER|DROP)\s+[\w"*(]|(?:query|mutation|subscription|fragment)\b[^{]*\{)/;

/** Marks a string literal opened at `i`: text or name by its content, its `${…}` as interpolation. Returns its end. */
function markLiteral(text: string, syntax: Syntax, kinds: Uint8Array, i: number, to: number): number {
  const ch = text[i];
  const spans = syntax.multiline.includes(ch);
  const holes: [number, number][] = [];
  let content = '';
  let j = i + 1;
  while (j < to && text[j] !== ch && (spans || text[j] !== '\n')) {
    if (ch === '`' && text.startsWith('${', j)) {
      const end = closingBrace(text, j + 2, to);
      holes.push([j, end]);
      j = end;
      continue;
    }
    const step = text[j] === '\\' ? 2 : 1;
    content += text.slice(j, j + step);
    j += step;
  }
  const end = Math.min(j + 1, to);
  if (EMBEDDED_CODE.test(content)) return end; // SQL or GraphQL in a string is code
  kinds.fill(isNameLiteral(content) ? KIND.name : KIND.text, i, end);
  for (const [a, b] of holes) kinds.fill(KIND.interpolation, a, b);
  return end;
}

/** Marks [from, to) of `text` in `kinds`: comments, and string literals (text or name, with `${…}` interpolations). */
function scan(text: string, syntax: Syntax, kinds: Uint8Array, from: number, to: number): void {
  let i = from;
  const comment = (a: number, b: number): void => {
    kinds.fill(KIND.comment, a, Math.min(b, to));
  };
  while (i < to) {
    const ch = text[i];
    if (syntax.docstrings && (startsWithAt(text, i, '"""') || startsWithAt(text, i, "'''")) && atLineStart(text, i)) {
      const close = text.indexOf(text.slice(i, i + 3), i + 3);
      const end = close < 0 || close >= to ? to : close + 3;
      comment(i, end);
      i = end;
      continue;
    }
    const block = syntax.block.find(([open]) => startsWithAt(text, i, open));
    if (block) {
      const close = text.indexOf(block[1], i + block[0].length);
      const end = close < 0 || close >= to ? to : close + block[1].length;
      comment(i, end);
      i = end;
      continue;
    }
    const line = syntax.line.find((t) => startsWithAt(text, i, t));
    if (line && (!syntax.lineNeedsSpace || i === 0 || /\s/.test(text[i - 1]))) {
      const nl = text.indexOf('\n', i);
      const end = nl < 0 || nl >= to ? to : nl;
      comment(i, end);
      i = end;
      continue;
    }
    if (syntax.quotes.includes(ch)) {
      i = markLiteral(text, syntax, kinds, i, to);
      continue;
    }
    i++;
  }
}

/**
 * Markup: comments, text content between tags, and quoted attribute values. Tag and attribute
 * names are code. `<script>` and `<style>` blocks are scanned in their own language afterwards.
 */
function scanMarkup(text: string, kinds: Uint8Array): void {
  let at = 0;
  const textRun = (a: number, b: number): void => {
    if (/\S/.test(text.slice(a, b))) kinds.fill(KIND.text, a, b);
  };
  for (const m of text.matchAll(/<!--[\s\S]*?(?:-->|$)|<\/?[A-Za-z][^<>]*>/g)) {
    const start = m.index ?? 0;
    textRun(at, start);
    if (m[0].startsWith('<!--')) kinds.fill(KIND.comment, start, start + m[0].length);
    else
      for (const v of m[0].matchAll(/=\s*("[^"]*"|'[^']*')/g)) {
        const a = start + (v.index ?? 0) + v[0].indexOf(v[1]);
        kinds.fill(isNameLiteral(v[1].slice(1, -1)) ? KIND.name : KIND.text, a, a + v[1].length);
      }
    at = start + m[0].length;
  }
  textRun(at, text.length);
}

const JSX_TAG = /<\/?[A-Za-z][\w.:-]*(?:\s[^<>]*?)?\/?>/g;

/**
 * JSX text (`<button>Sort by priority</button>` in a .jsx/.tsx/.js file): a run after a tag that
 * holds letters and ends at the next `<` or `{` without passing code punctuation. Errs towards code.
 */
function markJsxText(text: string, kinds: Uint8Array): void {
  for (const m of text.matchAll(JSX_TAG)) {
    const from = (m.index ?? 0) + m[0].length;
    let k = from;
    while (k < text.length && kinds[k] === KIND.code && !/[;(){}=|&<>]/.test(text[k])) k++;
    const ends = k === text.length || text[k] === '<' || text[k] === '{';
    if (k > from && ends && /[A-Za-z]/.test(text.slice(from, k))) kinds.fill(KIND.text, from, k);
  }
}

/** YAML: a plain (unquoted) value after `key:` or `- ` is text, or a name when it is one word. */
function markYamlValues(text: string, kinds: Uint8Array): void {
  for (const m of text.matchAll(/^([ \t]*(?:-[ \t]+)?(?:[\w$.-]+[ \t]*:[ \t]+|-[ \t]+))([^\s"'[{|>&*!#][^\n]*)$/gm)) {
    const a = (m.index ?? 0) + m[1].length;
    const hash = m[2].search(/\s#/);
    const value = (hash >= 0 ? m[2].slice(0, hash) : m[2]).trimEnd();
    if (value.length === 0 || kinds[a] !== KIND.code) continue;
    kinds.fill(isNameLiteral(value) ? KIND.name : KIND.text, a, a + value.length);
  }
}

const SCRIPT_OR_STYLE = /<(script|style)\b[^>]*>([\s\S]*?)<\/\1\s*>/gi;
const JSX_EXT = /\.(jsx|tsx|js|mjs|cjs)$/i;
const YAML_EXT = /\.ya?ml$/i;

/**
 * One byte per character of `text`, a KIND: code, comment, text, interpolation or name. A file
 * whose language is unknown is all code. HTML-like files mark text content and attribute values,
 * and scan their `<script>` and `<style>` blocks in those languages. Heuristic, not a parser: a
 * regular expression holding a quote or `//` may shift what follows on its line, which errs
 * towards "code".
 */
export function textKinds(path: string, text: string): Uint8Array {
  const kinds = new Uint8Array(text.length);
  const syntax = syntaxOf(path);
  if (syntax === null) return kinds;
  if (syntax === MARKUP) {
    scanMarkup(text, kinds);
    for (const m of text.matchAll(SCRIPT_OR_STYLE)) {
      if (m.index === undefined || m[2] === undefined) continue;
      const from = m.index + m[0].indexOf('>') + 1;
      kinds.fill(KIND.code, from, from + m[2].length);
      scan(text, m[1].toLowerCase() === 'style' ? CSS : C_LIKE, kinds, from, from + m[2].length);
    }
    return kinds;
  }
  scan(text, syntax, kinds, 0, text.length);
  if (JSX_EXT.test(path)) markJsxText(text, kinds);
  if (YAML_EXT.test(path)) markYamlValues(text, kinds);
  return kinds;
}

/** One byte per character of `text`: 1 inside a comment of the file's language, else 0 (the comment part of textKinds). */
export function commentMask(path: string, text: string): Uint8Array {
  return textKinds(path, text).map((k) => (k === KIND.comment ? 1 : 0));
}

/** What a quote holds, by kind: its code (with names in quotes), its text (string and markup prose), its `${…}` slots. */
export interface QuoteParts {
  /** Code and name literals; everything else becomes spaces. */
  code: string;
  /** Text (prose literals, markup text, YAML values); everything else becomes spaces. */
  text: string;
  /** The `${…}` of template literals: values filled into a text; everything else becomes spaces. */
  slots: string;
}

/** Splits `chars[from, to)` by `kinds` into the quote's code and its text. */
export function quoteParts(chars: string, kinds: ArrayLike<number>, from = 0, to = chars.length): QuoteParts {
  let code = '';
  let text = '';
  let slots = '';
  for (let i = from; i < to; i++) {
    const k = kinds[i];
    code += k === KIND.code || k === KIND.name ? chars[i] : ' ';
    text += k === KIND.text ? chars[i] : ' ';
    slots += k === KIND.interpolation ? chars[i] : ' ';
  }
  return { code, text, slots };
}

/** The parts of a quote standing alone, read as text of a file at `path` (for tests and tools). */
export const partsOfQuote = (path: string, quote: string): QuoteParts => quoteParts(quote, textKinds(path, quote));
