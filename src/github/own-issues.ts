// The issues Arbiter opens itself (the dashboard), beside the gateway: the issues its bot created,
// a new one, and an edit of one's body. Every Octokit error becomes a GitHubError here.
import { z } from 'zod';
import type { Octokit } from '../deps.ts';
import { callGitHub } from './errors.ts';
import type { IssueSnapshot, OwnIssues } from './port.ts';

/** Pages of 100 read at most when looking for Arbiter's own issues (oldest first). */
const MAX_PAGES = 3;

const Issue = z.object({
  number: z.number().int(),
  title: z.string(),
  body: z.string().nullable().optional(),
  state: z.string(),
  pull_request: z.unknown().optional(),
  user: z.object({ login: z.string() }).nullable(),
});

const snapshotOf = (i: z.infer<typeof Issue>): IssueSnapshot => ({
  number: i.number,
  title: i.title,
  body: i.body ?? null,
  state: i.state,
  user: i.user,
  ...(i.pull_request ? { pull_request: i.pull_request } : {}),
});

export function ownIssues(input: { octokit: Octokit; owner: string; repo: string }, botLogin: string): OwnIssues {
  const { octokit, owner, repo } = input;
  return {
    async listOwn() {
      const found: IssueSnapshot[] = [];
      for (let page = 1; page <= MAX_PAGES; page++) {
        const { data } = await callGitHub('list own issues', () =>
          octokit.request('GET /repos/{owner}/{repo}/issues', {
            owner,
            repo,
            creator: botLogin,
            state: 'all',
            sort: 'created',
            direction: 'asc',
            per_page: 100,
            page,
          }),
        );
        const list = z.array(z.unknown()).catch([]).parse(data);
        for (const raw of list) {
          const parsed = Issue.safeParse(raw);
          // GitHub lists pull requests as issues too; and only what the bot itself opened counts.
          if (parsed.success && !parsed.data.pull_request && parsed.data.user?.login === botLogin)
            found.push(snapshotOf(parsed.data));
        }
        if (list.length < 100) break;
      }
      return found;
    },
    async open(title, body) {
      const { data } = await callGitHub('open issue', () =>
        octokit.request('POST /repos/{owner}/{repo}/issues', { owner, repo, title, body }),
      );
      return snapshotOf(Issue.parse(data));
    },
    async editBody(number, body) {
      await callGitHub('edit issue', () =>
        octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
          owner,
          repo,
          issue_number: number,
          body,
        }),
      );
    },
  };
}
