// Parses the acceptance criteria of a Change body: the list items under a heading or bold line
// named "Acceptance criteria". Pure; linear in the body; bounded in output (see the limits below).
import type { Criterion } from './types.ts';

/** At most this many criteria are read from one body; later items are ignored. */
export const MAX_CRITERIA = 200;
/** A criterion's text is cut to this many characters (with a trailing `…`). */
export const MAX_CRITERION_CHARS = 1000;

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// Bullet (`-`, `*`, `+`) or numbered (`1.`, `1)`) item: indent, marker, then the content.
const LIST_ITEM = /^([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const TASK_BOX = /^\[[ xX]\](?:[ \t]+|$)/;
const CHECK_SUFFIX = /\(check:[ \t]*([^()\s][^()]*?)[ \t]*\)\s*$/i;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

/** The title of a heading or bold line, stripped of emphasis and a trailing colon. */
const isCriteriaTitle = (title: string): boolean => {
  const bare = title
    .trim()
    .replace(/^(\*\*|__)(.*)\1$/, '$2')
    .replace(/:$/, '')
    .trim()
    .replace(/:$/, '')
    .trim();
  return /^acceptance criteria$/i.test(bare);
};

/** `**Acceptance criteria**`, `**Acceptance criteria:**`, `__Acceptance criteria__:` on a line of its own. */
const isBoldCriteriaLine = (line: string): boolean => {
  const m = /^ {0,3}(\*\*|__)(.+?)\1[ \t]*:?[ \t]*$/.exec(line);
  return m !== null && isCriteriaTitle(m[2]);
};

const indentOf = (raw: string): number => {
  let width = 0;
  for (const ch of raw) width += ch === '\t' ? 4 - (width % 4) : 1;
  return width;
};

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

interface Item {
  own: string[];
  children: string[];
}

/** Turns one collected item into a criterion text and an optional check name. */
const finishItem = (item: Item): { text: string; check: string | null } | null => {
  let own = collapse(item.own.join(' '));
  let check: string | null = null;
  const m = CHECK_SUFFIX.exec(own);
  if (m) {
    check = m[1].trim();
    own = own.slice(0, m.index).trim();
  }
  const children = item.children.map(collapse).filter((c) => c.length > 0);
  const text = [own, ...children].filter((t) => t.length > 0).join('; ');
  if (text.length === 0) return null;
  const bounded = text.length > MAX_CRITERION_CHARS ? `${text.slice(0, MAX_CRITERION_CHARS - 1)}…` : text;
  return { text: bounded, check };
};

/** Strips a task-list box from an item's content. */
const itemContent = (content: string | undefined): string => (content ?? '').replace(TASK_BOX, '');

type Section = { kind: 'heading'; level: number } | { kind: 'bold' };

/**
 * The criteria of a Change body, ids AC1…ACn in order. A section starts at a heading (ATX of
 * any level, or setext) or a bold line named "Acceptance criteria" (case-insensitive, optional
 * colon) and ends at the next heading of the same or a higher level (any heading for a bold
 * line), a thematic break, or a non-list paragraph once items have started. Nested items belong
 * to their parent and are appended to its text (`parent; child`). Fenced code is ignored. An
 * item ending in `(check: NAME)` is judged by that check. HTML comments are skipped. Several
 * sections are read in order.
 */
export function parseCriteria(body: string): Criterion[] {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  const found: { text: string; check: string | null }[] = [];
  let section: Section | null = null;
  let fence: string | null = null;
  let current: Item | null = null;
  let topIndent = -1;
  let itemsStarted = false;
  let blankBefore = false;

  const flush = (): void => {
    if (current && found.length < MAX_CRITERIA) {
      const done = finishItem(current);
      if (done) found.push(done);
    }
    current = null;
  };
  const endSection = (): void => {
    flush();
    section = null;
    topIndent = -1;
    itemsStarted = false;
  };

  let inComment = false;
  for (let i = 0; i < lines.length && found.length < MAX_CRITERIA; i++) {
    let line = lines[i];
    // HTML comments (issue templates put examples in them) are not content.
    if (inComment) {
      const end = line.indexOf('-->');
      if (end < 0) continue;
      inComment = false;
      line = line.slice(end + 3);
      if (line.trim() === '') continue;
    }
    if (fence === null && line.includes('<!--')) {
      line = line.replace(/<!--[\s\S]*?-->/g, '');
      const open = line.indexOf('<!--');
      if (open >= 0) {
        inComment = true;
        line = line.slice(0, open);
      }
      if (line.trim() === '') continue;
    }
    if (fence !== null) {
      const close = FENCE.exec(line);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length && line.trim() === close[1])
        fence = null;
      continue;
    }
    const open = FENCE.exec(line);
    if (open) {
      fence = open[1];
      continue;
    }

    const heading = HEADING.exec(line);
    const next = lines[i + 1] ?? '';
    const setext = line.trim().length > 0 && !LIST_ITEM.test(line) && SETEXT_UNDERLINE.exec(next);
    const headingLevel = heading ? heading[1].length : setext ? (setext[1][0] === '=' ? 1 : 2) : 0;
    if (headingLevel > 0) {
      const title = heading ? (heading[2] ?? '') : line;
      const sec: Section | null = section;
      if (sec !== null && (sec.kind === 'bold' || headingLevel <= sec.level)) endSection();
      if (isCriteriaTitle(title)) {
        endSection();
        section = { kind: 'heading', level: headingLevel };
      }
      if (setext) i++;
      blankBefore = false;
      continue;
    }
    if (isBoldCriteriaLine(line)) {
      endSection();
      section = { kind: 'bold' };
      blankBefore = false;
      continue;
    }
    if (section === null) continue;

    if (line.trim().length === 0) {
      blankBefore = true;
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      endSection();
      continue;
    }
    const item = LIST_ITEM.exec(line);
    const indent = indentOf(line.slice(0, line.length - line.trimStart().length));
    if (item) {
      if (topIndent < 0) topIndent = indent;
      if (indent >= topIndent + 2 && current !== null) {
        (current as Item).children.push(itemContent(item[2]));
      } else {
        flush();
        current = { own: [itemContent(item[2])], children: [] };
        itemsStarted = true;
      }
      blankBefore = false;
      continue;
    }
    // A non-list line: an indented continuation of the current item, a lazy continuation right
    // after it, an introduction before the first item, or the paragraph that ends the section.
    const cur = current as Item | null;
    if (cur !== null && (indent >= topIndent + 2 || !blankBefore)) {
      if (cur.children.length > 0 && indent >= topIndent + 4) {
        cur.children[cur.children.length - 1] += ` ${line.trim()}`;
      } else if (cur.children.length === 0) {
        cur.own.push(line.trim());
      } else {
        cur.children[cur.children.length - 1] += ` ${line.trim()}`;
      }
      blankBefore = false;
      continue;
    }
    if (itemsStarted) endSection();
    blankBefore = false;
  }
  flush();
  return found.slice(0, MAX_CRITERIA).map((c, n) => ({ id: `AC${n + 1}`, text: c.text, check: c.check }));
}
