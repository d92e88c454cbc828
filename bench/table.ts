// Plain-text tables for the bench output: right-aligned numbers, a header rule, nothing else.
export type Cell = string | number | null;

const show = (c: Cell): string =>
  c === null ? '-' : typeof c === 'number' ? (Number.isInteger(c) ? String(c) : c.toFixed(c < 10 ? 2 : 1)) : c;

export function renderTable(header: string[], rows: Cell[][]): string[] {
  const text = rows.map((r) => r.map(show));
  const widths = header.map((h, i) => Math.max(h.length, ...text.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.every((r) => typeof r[i] === 'number' || r[i] === null));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...text.map(line)];
}
