// Finds the files a head file references (HTML `<script src>` / `<link href>`, relative
// `import`/`export … from`/`require()` in TS/JS) and the repository paths each may resolve to. Pure.
import { posix } from 'node:path';

/** Only this much of a file is scanned for references. */
export const SCAN_BYTES = 256 * 1024;
/** At most this many references are taken from one file. */
export const MAX_REFERENCES_PER_FILE = 40;

const HTML_REFS = [/<script\b[^>]*?\bsrc\s*=\s*["']([^"'<>]+)["']/gi, /<link\b[^>]*?\bhref\s*=\s*["']([^"'<>]+)["']/gi];
const JS_REFS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*["'](\.{1,2}\/[^"'\n]+)["']/g,
  /\bimport\s*["'](\.{1,2}\/[^"'\n]+)["']/g,
  /\b(?:require|import)\s*\(\s*["'](\.{1,2}\/[^"'\n]+)["']\s*\)/g,
];

const HTML_EXT = /\.(html?|xhtml)$/i;
const SCRIPT_EXT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|vue|svelte|astro)$/i;
const RESOLVE_SUFFIXES = ['', '.ts', '.tsx', '.js', '.mjs', '/index.ts', '/index.tsx', '/index.js', '/index.mjs'];
// TypeScript ESM imports name the emitted `.js` file; the source is `.ts`/`.tsx`.
const JS_TO_TS: Record<string, string[]> = {
  '.js': ['.ts', '.tsx'],
  '.mjs': ['.mts'],
  '.cjs': ['.cts'],
  '.jsx': ['.tsx'],
};

const isExternal = (ref: string): boolean => /^(?:[a-z][a-z0-9+.-]*:|\/\/|#)/i.test(ref);

/** Joins inside the repository; null when the reference climbs out of it. */
const joinInRepo = (dir: string, ref: string): string | null => {
  const joined = posix.normalize(posix.join(dir, ref));
  if (joined.startsWith('..') || joined.startsWith('/')) return null;
  return joined === '.' ? null : joined;
};

/** The repository paths one reference may resolve to, most likely first. */
const candidatesFor = (fromPath: string, rawRef: string, html: boolean): string[] => {
  const ref = rawRef.split(/[?#]/)[0].trim();
  if (ref === '' || isExternal(ref)) return [];
  const dir = posix.dirname(fromPath);
  // In HTML a root-absolute reference is relative to the served folder, usually the page's own.
  const bases = ref.startsWith('/')
    ? html
      ? [joinInRepo(dir, `.${ref}`), joinInRepo('.', `.${ref}`)]
      : []
    : [joinInRepo(dir, ref)];
  const out: string[] = [];
  for (const base of bases) {
    if (base === null) continue;
    const ext = posix.extname(base);
    if (html || ext !== '') {
      out.push(base);
      for (const alt of JS_TO_TS[ext.toLowerCase()] ?? []) out.push(base.slice(0, -ext.length) + alt);
      if (!html && !Object.hasOwn(JS_TO_TS, ext.toLowerCase()) && !SCRIPT_EXT.test(base)) {
        for (const s of RESOLVE_SUFFIXES.slice(1)) out.push(base + s);
      }
    } else for (const s of RESOLVE_SUFFIXES) out.push(base + s);
  }
  return [...new Set(out)];
};

/**
 * The references of one file, in order of appearance, each as its candidate paths. Files that
 * are neither HTML nor scripts reference nothing. Bounded: the first SCAN_BYTES characters and
 * at most MAX_REFERENCES_PER_FILE references.
 */
export function findReferences(path: string, text: string): string[][] {
  const html = HTML_EXT.test(path);
  if (!html && !SCRIPT_EXT.test(path)) return [];
  const scanned = text.length > SCAN_BYTES ? text.slice(0, SCAN_BYTES) : text;
  const found: { at: number; ref: string; html: boolean }[] = [];
  const patterns = html
    ? [...HTML_REFS.map((p) => ({ p, html: true })), ...JS_REFS.map((p) => ({ p, html: false }))]
    : JS_REFS.map((p) => ({ p, html: false }));
  for (const { p, html: isHtmlRef } of patterns) {
    for (const m of scanned.matchAll(new RegExp(p.source, p.flags))) {
      if (m.index !== undefined && m[1] !== undefined) found.push({ at: m.index, ref: m[1], html: isHtmlRef });
    }
  }
  found.sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const f of found) {
    if (out.length >= MAX_REFERENCES_PER_FILE) break;
    const c = candidatesFor(path, f.ref, f.html);
    const key = c.join('\0');
    if (c.length === 0 || seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}
