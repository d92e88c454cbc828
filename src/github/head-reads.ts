// Reads head-tree file contents (and, for globs, folder listings) in ONE GraphQL query with
// aliased `object(expression: "<sha>:<path>")` lookups; paths travel as variables, never spliced.
// Every failure is a GitHubError.
import { z } from 'zod';
import { MAX_LOOKUPS_PER_QUERY, type HeadFile, type HeadRead } from '../core/head-files.ts';
import { callGitHub, GitHubError } from './errors.ts';
import type { HeadReadInput } from './port.ts';

/** The part of an @octokit/core client's `graphql` this module uses. */
export type GraphqlClient = (query: string, variables?: Record<string, unknown>) => Promise<unknown>;

/** Folder listings descend this many levels below the listed folder. */
export const TREE_DEPTH = 3;

const OPERATION = 'read head files';

const Blob = z.object({
  text: z.string().nullable(),
  byteSize: z.number().int().nonnegative(),
  isBinary: z.boolean().nullable(),
  isTruncated: z.boolean(),
});

interface TreeNode {
  entries: { path?: string | null; type: string; object?: TreeNode | Record<string, never> | null }[];
}
const TreeSchema: z.ZodType<TreeNode> = z.lazy(() =>
  z.object({
    entries: z.array(
      z.object({
        path: z.string().nullable().optional(),
        type: z.string(),
        object: z
          .union([TreeSchema, z.object({})])
          .nullable()
          .optional(),
      }),
    ),
  }),
);

const Response = z.object({ repository: z.record(z.string(), z.unknown()).nullable() });

const treeSelection = (depth: number): string =>
  depth <= 0 ? 'entries { path type }' : `entries { path type object { ... on Tree { ${treeSelection(depth - 1)} } } }`;

/** Builds the query text; exported for tests. Only aliases and variable names appear in it. */
export function buildReadQuery(fileCount: number, dirCount: number): string {
  const vars = ['$owner: String!', '$name: String!'];
  const fields: string[] = [];
  for (let i = 0; i < fileCount; i++) {
    vars.push(`$e${i}: String!`);
    fields.push(`f${i}: object(expression: $e${i}) { ... on Blob { text byteSize isBinary isTruncated } }`);
  }
  for (let i = 0; i < dirCount; i++) {
    vars.push(`$d${i}: String!`);
    fields.push(`d${i}: object(expression: $d${i}) { ... on Tree { ${treeSelection(TREE_DEPTH - 1)} } }`);
  }
  return `query ArbiterReadHead(${vars.join(', ')}) { repository(owner: $owner, name: $name) { ${fields.join(' ')} } }`;
}

const collectBlobs = (node: TreeNode, out: string[]): void => {
  for (const e of node.entries) {
    if (e.type === 'blob' && e.path) out.push(e.path);
    const sub = e.object ? TreeSchema.safeParse(e.object) : null;
    if (sub?.success) collectBlobs(sub.data, out);
  }
};

/** Reads files and lists folders of the tree at `sha`, all in one query. */
export async function readHead(
  graphql: GraphqlClient,
  input: HeadReadInput & { owner: string; repo: string },
): Promise<HeadRead> {
  const paths = [...new Set(input.paths)].slice(0, MAX_LOOKUPS_PER_QUERY);
  const dirs = [...new Set(input.dirs ?? [])].slice(0, Math.max(0, MAX_LOOKUPS_PER_QUERY - paths.length));
  const files = new Map<string, HeadFile>();
  if (paths.length === 0 && dirs.length === 0) return { files, tree: [] };
  const variables: Record<string, unknown> = { owner: input.owner, name: input.repo };
  paths.forEach((p, i) => (variables[`e${i}`] = `${input.sha}:${p}`));
  dirs.forEach((d, i) => (variables[`d${i}`] = `${input.sha}:${d}`));

  const data = await callGitHub(OPERATION, () => graphql(buildReadQuery(paths.length, dirs.length), variables));
  const parsed = Response.safeParse(data);
  if (!parsed.success || parsed.data.repository === null)
    throw new GitHubError(OPERATION, 0, 'GitHub answered the file read without the repository', null);
  const repo = parsed.data.repository;
  paths.forEach((p, i) => {
    const blob = Blob.safeParse(repo[`f${i}`]);
    if (blob.success) files.set(p, { ...blob.data, isBinary: blob.data.isBinary === true });
  });
  const tree: string[] = [];
  dirs.forEach((_, i) => {
    const t = TreeSchema.safeParse(repo[`d${i}`]);
    if (t.success) collectBlobs(t.data, tree);
  });
  return { files, tree };
}
