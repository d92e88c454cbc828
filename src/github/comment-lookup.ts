// Finding Arbiter's own comments on many issues with one GraphQL query (an alias per issue, its
// last 100 comments), and the one rule that turns what was found into a create, an edit or nothing.
import { z } from 'zod';
import { fitBytes } from '../core/render/byte-limit.ts';
import { hasMarker, markerFor } from '../core/render/markers.ts';

/** One of Arbiter's comments on an issue, as the upsert needs it. */
export interface OwnComment {
  id: number;
  body: string;
}

export type CommentWrite =
  { kind: 'create'; text: string } | { kind: 'edit'; id: number; text: string } | { kind: 'keep'; id: number };

/**
 * The text a marked comment is written with: the body, led by its marker unless it carries it,
 * within GitHub's 65,535 bytes (cut on a character boundary, saying so; the marker always kept).
 */
export function commentText(marker: string, body: string): string {
  const led = `${markerFor(marker)}\n${body}`;
  if (!body.includes(markerFor(marker))) return fitBytes(led);
  const text = fitBytes(body);
  return text.includes(markerFor(marker)) ? text : fitBytes(led);
}

/** `ours`: Arbiter's comments on the issue in GitHub's order (oldest first); the oldest marked one is updated. */
export function planCommentWrite(ours: OwnComment[], marker: string, body: string): CommentWrite {
  const text = commentText(marker, body);
  const existing = ours.find((c) => hasMarker(c.body, marker));
  if (!existing) return { kind: 'create', text };
  return existing.body === text ? { kind: 'keep', id: existing.id } : { kind: 'edit', id: existing.id, text };
}

/** Issues per query: 100 aliases of 100 comments each stay far below GitHub's node limit (500,000). */
export const ISSUES_PER_QUERY = 100;

const PAGE = 100;

export function commentsQuery(issues: number[]): string {
  const fields = issues
    .map(
      (n) =>
        `i${n}: issueOrPullRequest(number: ${n}) { ... on Issue { comments(last: ${PAGE}) { ...ArbiterCommentPage } } ... on PullRequest { comments(last: ${PAGE}) { ...ArbiterCommentPage } } }`,
    )
    .join('\n    ');
  // fullDatabaseId, not databaseId: comment ids have outgrown GraphQL's 32-bit Int on github.com.
  return `query ArbiterComments($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    ${fields}
  }
}
fragment ArbiterCommentPage on IssueCommentConnection { totalCount pageInfo { hasPreviousPage } nodes { fullDatabaseId body author { __typename login } } }`;
}

const CommentPage = z.object({
  totalCount: z.number(),
  pageInfo: z.object({ hasPreviousPage: z.boolean() }),
  nodes: z.array(
    z
      .object({
        // BigInt arrives as a decimal string; accept a number too.
        fullDatabaseId: z.union([z.string().regex(/^\d+$/), z.number().int()]).nullable(),
        body: z.string(),
        author: z.object({ __typename: z.string(), login: z.string() }).nullable(),
      })
      .nullable(),
  ),
});

const Answer = z.object({
  repository: z.record(z.string(), z.object({ comments: CommentPage.optional() }).nullable()).nullable(),
});

/**
 * Arbiter's comments per issue from an answer to `commentsQuery`. An issue is left out when its
 * comments did not fit in one page or it was not answered: the caller lists those with REST.
 * GraphQL names a GitHub App's bot by its slug (`arbiter`, typename `Bot`), where REST says
 * `arbiter[bot]`; a user who happens to be called `arbiter` is not the app.
 */
export function readCommentsAnswer(data: unknown, appSlug: string): Map<number, OwnComment[]> {
  const found = new Map<number, OwnComment[]>();
  const parsed = Answer.safeParse(data);
  if (!parsed.success || !parsed.data.repository) return found;
  for (const [alias, node] of Object.entries(parsed.data.repository)) {
    const number = /^i(\d+)$/.exec(alias)?.[1];
    const page = node?.comments;
    if (number === undefined || !page) continue;
    const nodes = page.nodes.flatMap((c) => (c ? [c] : []));
    if (page.pageInfo.hasPreviousPage || page.totalCount > nodes.length) continue;
    const ours = nodes.filter(
      (c) =>
        c.author?.__typename === 'Bot' &&
        (c.author.login === appSlug || c.author.login === `${appSlug}[bot]`) &&
        c.fullDatabaseId !== null,
    );
    found.set(
      Number(number),
      ours.map((c) => ({ id: Number(c.fullDatabaseId), body: c.body })),
    );
  }
  return found;
}
