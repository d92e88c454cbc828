// Where the text about the work lies: which characters of a file are inside a comment of its
// language, and which files are prose (README, docs, notes). Pure; linear in the text.
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

const PROSE_EXT = /\.(md|markdown|mdx|txt|text|rst|adoc|asciidoc|org|textile|rtf)$/i;
const PROSE_NAME =
  /^(readme|changelog|changes|history|news|notes|authors|contributors|contributing|license|licence|copying|todo)(\.[^/]*)?$/i;
const DOCS_DIR = /(^|\/)(docs|documentation)\//i;

/** A file of prose about the work: `*.md`, `*.txt`…, README/CHANGELOG/NOTES…, anything under docs/. */
export const isProsePath = (path: string): boolean =>
  PROSE_EXT.test(path) || PROSE_NAME.test(posix.basename(path)) || DOCS_DIR.test(path.replace(/^\.?\/+/, ''));

const startsWithAt = (text: string, at: number, token: string): boolean => text.startsWith(token, at);

const atLineStart = (text: string, at: number): boolean => {
  let i = at - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  return i < 0 || text[i] === '\n';
};

/** Marks [from, to) of `text` in `mask` where the syntax has comments. */
function scan(text: string, syntax: Syntax, mask: Uint8Array, from: number, to: number): void {
  let i = from;
  const mark = (a: number, b: number): void => {
    mask.fill(1, a, Math.min(b, to));
  };
  while (i < to) {
    const ch = text[i];
    if (syntax.docstrings && (startsWithAt(text, i, '"""') || startsWithAt(text, i, "'''")) && atLineStart(text, i)) {
      const close = text.indexOf(text.slice(i, i + 3), i + 3);
      const end = close < 0 || close >= to ? to : close + 3;
      mark(i, end);
      i = end;
      continue;
    }
    const block = syntax.block.find(([open]) => startsWithAt(text, i, open));
    if (block) {
      const close = text.indexOf(block[1], i + block[0].length);
      const end = close < 0 || close >= to ? to : close + block[1].length;
      mark(i, end);
      i = end;
      continue;
    }
    const line = syntax.line.find((t) => startsWithAt(text, i, t));
    if (line && (!syntax.lineNeedsSpace || i === 0 || /\s/.test(text[i - 1]))) {
      const nl = text.indexOf('\n', i);
      const end = nl < 0 || nl >= to ? to : nl;
      mark(i, end);
      i = end;
      continue;
    }
    if (syntax.quotes.includes(ch)) {
      const spans = syntax.multiline.includes(ch);
      let j = i + 1;
      while (j < to && text[j] !== ch && (spans || text[j] !== '\n')) j += text[j] === '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    i++;
  }
}

const SCRIPT_OR_STYLE = /<(script|style)\b[^>]*>([\s\S]*?)<\/\1\s*>/gi;

/**
 * One byte per character of `text`: 1 inside a comment of the file's language, else 0. A file
 * whose language is unknown has no comments. HTML-like files also mark the comments of their
 * `<script>` and `<style>` blocks. Heuristic, not a parser: a regular expression holding a
 * quote or `//` may shift what follows on its line, which errs towards "not a comment".
 */
export function commentMask(path: string, text: string): Uint8Array {
  const mask = new Uint8Array(text.length);
  const syntax = syntaxOf(path);
  if (syntax === null) return mask;
  scan(text, syntax, mask, 0, text.length);
  if (syntax === MARKUP) {
    for (const m of text.matchAll(SCRIPT_OR_STYLE)) {
      if (m.index === undefined || m[2] === undefined) continue;
      const from = m.index + m[0].indexOf('>') + 1;
      scan(text, m[1].toLowerCase() === 'style' ? CSS : C_LIKE, mask, from, from + m[2].length);
    }
  }
  return mask;
}
