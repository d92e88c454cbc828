// GraphQL connections over plain lists: first/last/after/before with opaque cursors, nodes,
// edges, pageInfo and totalCount, as GitHub answers them.
export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

const encodeCursor = (index: number): string => Buffer.from(`cursor:v2:${index}`).toString('base64');

function decodeCursor(cursor: string | null | undefined): number | null {
  if (!cursor) return null;
  const m = /^cursor:v2:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  if (!m) throw new Error(`\`${cursor}\` does not appear to be a valid cursor.`);
  return Number(m[1]);
}

export function connection<T>(
  items: T[],
  args: ConnectionArgs,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  if ((args.first ?? 0) > 100 || (args.last ?? 0) > 100)
    throw new Error(
      `Requesting ${args.first ?? args.last} records on the connection exceeds the \`first\` limit of 100 records.`,
    );
  let start = 0;
  let end = items.length;
  const after = decodeCursor(args.after);
  const before = decodeCursor(args.before);
  if (after !== null) start = after + 1;
  if (before !== null) end = Math.min(end, before);
  if (typeof args.first === 'number') end = Math.min(end, start + args.first);
  if (typeof args.last === 'number') start = Math.max(start, end - args.last);
  const slice = items.slice(start, end);
  return {
    totalCount: items.length,
    nodes: slice,
    edges: slice.map((node, i) => ({ node, cursor: encodeCursor(start + i) })),
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      startCursor: slice.length > 0 ? encodeCursor(start) : null,
      endCursor: slice.length > 0 ? encodeCursor(end - 1) : null,
    },
    ...extra,
  };
}
