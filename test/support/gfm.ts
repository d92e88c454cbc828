// Renders markdown as GitHub does (CommonMark + GFM, raw HTML kept) and reads the structure of
// the result: where tables sit, what a reader sees. For tests of every body Arbiter writes.
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { expect } from 'vitest';
import { transcriptViews, viewProblems } from './views.ts';

export function renderGfm(markdown: string): string {
  return micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()], allowDangerousHtml: true });
}

const VOID = new Set(['br', 'hr', 'img', 'input', 'meta', 'link', 'wbr']);

export interface Structure {
  /** Each `<table>` with the tags it sits in, outermost first. */
  tables: { ancestors: string[]; headers: string[]; rows: string[][] }[];
  /** How many lists there are at the top level. */
  lists: number;
  /** Text a reader sees: comments and tags removed, entities decoded. */
  visible: string;
}

const decode = (text: string): string =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** Walks the HTML with a tag stack (micromark's output is well formed). */
export function structureOf(markdown: string): Structure {
  return structureOfHtml(renderGfm(markdown));
}

/** The same reading of HTML from elsewhere (a browser's DOM). */
export function structureOfHtml(source: string): Structure {
  const html = source.replace(/<!--[\s\S]*?-->/g, '').replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, '');
  const stack: string[] = [];
  const tables: Structure['tables'] = [];
  let row: string[] | null = null;
  let cellText: string | null = null;
  let inHead = false;
  let lists = 0;
  const token = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>|([^<]+)/g;
  for (const m of html.matchAll(token)) {
    const [, closing, rawTag, text] = m;
    if (text !== undefined) {
      if (cellText !== null) cellText += text;
      continue;
    }
    const tag = rawTag.toLowerCase();
    if (!closing) {
      if ((tag === 'ul' || tag === 'ol') && !inList(stack)) lists++;
      if (tag === 'table') tables.push({ ancestors: [...stack], headers: [], rows: [] });
      if (tag === 'thead') inHead = true;
      if (tag === 'tr') row = [];
      if (tag === 'td' || tag === 'th') cellText = '';
      if (!VOID.has(tag)) stack.push(tag);
      continue;
    }
    const at = stack.lastIndexOf(tag);
    if (at >= 0) stack.splice(at);
    const table = tables[tables.length - 1];
    if ((tag === 'td' || tag === 'th') && row && cellText !== null) {
      row.push(decode(cellText).trim());
      cellText = null;
    }
    if (tag === 'tr' && row && table) {
      if (inHead) table.headers = row;
      else table.rows.push(row);
      row = null;
    }
    if (tag === 'thead') inHead = false;
  }
  const visible = decode(html.replace(/<[^>]+>/g, ''));
  return { tables, lists, visible };
}

const LISTS = new Set(['ul', 'ol', 'li']);
export const inList = (ancestors: string[]): boolean => ancestors.some((t) => LISTS.has(t));

/** The bodies a transcript holds: every comment, and every check run's summary and text. */
export function transcriptBodies(t: {
  prs: Record<
    string,
    {
      comments: { user: string; body: string }[];
      checks: Record<string, { summary?: string | null; text?: string | null }>;
    }
  >;
  issues: Record<string, { comments: { user: string; body: string }[] }>;
}): { where: string; body: string }[] {
  const out: { where: string; body: string }[] = [];
  for (const [n, thread] of [...Object.entries(t.prs), ...Object.entries(t.issues)]) {
    // Arbiter's own comments: what people write is theirs (a scenario may post a 1 MB comment).
    thread.comments.forEach((c, i) => {
      if (c.user.endsWith('[bot]')) out.push({ where: `#${n} comment ${i + 1}`, body: c.body });
    });
  }
  for (const [n, pr] of Object.entries(t.prs)) {
    for (const [name, c] of Object.entries(pr.checks)) {
      if (c.summary) out.push({ where: `#${n} ${name} summary`, body: c.summary });
      if (c.text) out.push({ where: `#${n} ${name} text`, body: c.text });
    }
  }
  return out;
}

/**
 * Every body renders as GitHub shows it: no hidden marker visible, within 65,535 characters, and
 * Arbiter's comparison has its matrix as a table outside any list. No view carries an internal code
 * in bold, an evidence id, the model's call counts or an unrendered table (test/support/views.ts).
 * Returns the transcript.
 */
export function expectRendersClean<T extends Parameters<typeof transcriptBodies>[0]>(t: T): T {
  expect(transcriptViews(t).flatMap(viewProblems), 'what a person must not see').toEqual([]);
  for (const { where, body } of transcriptBodies(t)) {
    expect(body.length, where).toBeLessThanOrEqual(65_535);
    const { visible, tables } = structureOf(body);
    expect(visible, `${where}: a hidden marker shows`).not.toMatch(
      /<!--|-->|arbiter:(?:comparison|receipt|gate|note|repair)/,
    );
    if (body.includes('<!-- arbiter:comparison:')) {
      expect(tables.length, `${where}: the comparison has its table`).toBeGreaterThan(0);
      expect(
        tables.filter((x) => inList(x.ancestors)),
        `${where}: a table inside a list`,
      ).toEqual([]);
    }
  }
  return t;
}
