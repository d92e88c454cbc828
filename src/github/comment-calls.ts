// Arbiter's comments on issues and pull requests, beside the gateway: its own comments listed (REST,
// one issue) or found (GraphQL, 100 issues a query), and the comment carrying a marker created or
// updated in place. Every Octokit error becomes a GitHubError here.
import { z } from 'zod';
import type { Octokit } from '../deps.ts';
import {
  commentsQuery,
  ISSUES_PER_QUERY,
  planCommentWrite,
  readCommentsAnswer,
  type OwnComment,
} from './comment-lookup.ts';
import { callGitHub, propertyOf } from './errors.ts';

/** The client, the repository, and the app whose comments these are. */
export interface CommentClient {
  octokit: Octokit;
  owner: string;
  repo: string;
  appSlug: string;
}

const Comment = z.object({
  id: z.number(),
  body: z.string().nullable().optional(),
  user: z.object({ login: z.string() }).nullable(),
});

/** Arbiter's comments on an issue, oldest first: the REST listing, every page. */
export async function listOwnComments(gh: CommentClient, issue: number): Promise<OwnComment[]> {
  const comments = await callGitHub('list comments', async () => {
    const all: z.infer<typeof Comment>[] = [];
    for (let page = 1; page <= 30; page++) {
      const { data } = await gh.octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        owner: gh.owner,
        repo: gh.repo,
        issue_number: issue,
        per_page: 100,
        page,
      });
      const parsed = z.array(Comment).safeParse(data);
      if (!parsed.success) break;
      all.push(...parsed.data);
      if (parsed.data.length < 100) break;
    }
    return all;
  });
  return comments.filter((c) => c.user?.login === `${gh.appSlug}[bot]`).map((c) => ({ id: c.id, body: c.body ?? '' }));
}

/**
 * Arbiter's comments on many issues, with one GraphQL query per 100 issues. An issue left out
 * of the answer had more than 100 comments (or was not answered): `upsertComment` lists it.
 */
export async function findOwnComments(gh: CommentClient, issues: number[]): Promise<Map<number, OwnComment[]>> {
  const wanted = [...new Set(issues)];
  const found = new Map<number, OwnComment[]>();
  for (let i = 0; i < wanted.length; i += ISSUES_PER_QUERY) {
    const chunk = wanted.slice(i, i + ISSUES_PER_QUERY);
    const data = await callGitHub('find comments', async () => {
      try {
        return await gh.octokit.graphql(commentsQuery(chunk), { owner: gh.owner, name: gh.repo });
      } catch (error) {
        // Errors on some aliases (an issue deleted, say) still answer the others.
        const partial = propertyOf(error, 'data');
        if (propertyOf(error, 'name') === 'GraphqlResponseError' && typeof partial === 'object' && partial !== null)
          return partial;
        throw error;
      }
    });
    for (const [issue, ours] of readCommentsAnswer(data, gh.appSlug)) found.set(issue, ours);
  }
  return found;
}

/**
 * Creates the comment carrying `marker`, or updates it in place when it exists. `ours`: Arbiter's
 * comments on the issue when already looked up (`findOwnComments`); without it they are listed.
 */
export async function upsertComment(
  gh: CommentClient,
  issue: number,
  marker: string,
  body: string,
  ours?: OwnComment[],
): Promise<{ id: number; created: boolean }> {
  const write = planCommentWrite(ours ?? (await listOwnComments(gh, issue)), marker, body);
  if (write.kind === 'keep') return { id: write.id, created: false };
  if (write.kind === 'edit') {
    await callGitHub('update comment', () =>
      gh.octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
        owner: gh.owner,
        repo: gh.repo,
        comment_id: write.id,
        body: write.text,
      }),
    );
    return { id: write.id, created: false };
  }
  const { data } = await callGitHub('create comment', () =>
    gh.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner: gh.owner,
      repo: gh.repo,
      issue_number: issue,
      body: write.text,
    }),
  );
  return { id: z.object({ id: z.number() }).parse(data).id, created: true };
}
