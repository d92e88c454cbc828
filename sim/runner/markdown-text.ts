// Arbiter's comments as a terminal shows them: the markdown GitHub would render, turned into plain
// text (headings and emphasis without their marks, links as their text, tables as aligned columns,
// folded `<details>` as their summary, hidden markers dropped). Only the forms Arbiter writes.

const HIDDEN = /<!--[\s\S]*?-->/g;

/** Inline markdown as text: links keep their text, code and emphasis lose their marks. */
export function inlineText(markdown: string): string {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/__([^_]+)__/g, '$1')
    .replace(/(^|[^\w*])\*([^*\s][^*]*)\*(?!\w)/g, '$1$2')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/<\/?(?:sub|sup|b|i|em|strong|code|kbd|br)\s*\/?>/gi, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/\\([\\`*_[\]|#<>()!-])/g, '$1');
}

const cells = (row: string): string[] => {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  // A `\|` inside a cell is part of its text, not a border.
  return inner.split(/(?<!\\)\|/).map((c) => inlineText(c.trim().replace(/\\\|/g, '|')));
};

const width = (text: string): number => [...text].length;

function table(rows: string[]): string[] {
  const [head, , ...body] = rows;
  const grid = [cells(head), ...body.map(cells)];
  const columns = Math.max(...grid.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...grid.map((r) => width(r[i] ?? ''))));
  const line = (r: string[]) =>
    r
      .map((c, i) => c + ' '.repeat(widths[i] - width(c)))
      .join('  ')
      .trimEnd();
  return [line(grid[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...grid.slice(1).map(line)];
}

const isTableRow = (line: string): boolean => /^\s*\|.*\|\s*$/.test(line);
const isDelimiter = (line: string): boolean => /^\s*\|(\s*:?-+:?\s*\|)+\s*$/.test(line);

/** The lines a terminal shows for a comment body. */
export function markdownToText(markdown: string): string[] {
  const lines = markdown.replace(HIDDEN, '').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (isTableRow(line) && i + 1 < lines.length && isDelimiter(lines[i + 1])) {
      const rows = [line];
      for (i++; i < lines.length && isTableRow(lines[i]); i++) rows.push(lines[i]);
      i--;
      out.push(...table(rows));
      continue;
    }
    const summary = /<summary>(.*?)<\/summary>/i.exec(line);
    if (summary) {
      out.push(`▸ ${inlineText(summary[1])}`);
      continue;
    }
    if (/^\s*<\/?details>\s*$/i.test(line)) continue;
    const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      out.push(inlineText(heading[1]));
      continue;
    }
    const item = /^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[([ xX])\]\s+)?(.*)$/.exec(line);
    if (item) {
      const box = item[2] === undefined ? '' : item[2] === ' ' ? '[ ] ' : '[x] ';
      out.push(`${item[1]}- ${box}${inlineText(item[3])}`);
      continue;
    }
    out.push(inlineText(line.replace(/^\s*>\s?/, '')));
  }
  // Runs of blank lines fold into one, and none start or end the text.
  return out
    .map((l) => l.trimEnd())
    .filter((l, i, all) => l !== '' || (i > 0 && all[i - 1] !== ''))
    .join('\n')
    .trim()
    .split('\n');
}
