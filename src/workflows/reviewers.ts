// Who is asked at the human gate: the reviewers named in config, else the CODEOWNERS owners of
// the changed files (last matching rule wins, as GitHub reads it). Authors and bots are never asked.
import picomatch from 'picomatch';
import type { RepoContext } from './context.ts';
import type { GroupView } from './model.ts';

const CODEOWNERS_PATHS = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'];

/** CODEOWNERS pattern → picomatch glob, following GitHub's gitignore-like rules. */
function toGlob(pattern: string): string {
  let p = pattern.startsWith('/') ? pattern.slice(1) : `**/${pattern}`;
  if (p.endsWith('/')) p = `${p}**`;
  else if (!/[*?[]/.test(p.split('/').pop() ?? '')) p = `{${p},${p}/**}`;
  return p;
}

export function ownersOf(codeowners: string, paths: string[]): string[] {
  const rules = codeowners
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean)
    .map((line) => {
      const [pattern, ...owners] = line.split(/\s+/);
      return { glob: toGlob(pattern), owners };
    });
  const found = new Set<string>();
  for (const path of paths) {
    let owners: string[] = [];
    for (const rule of rules) if (picomatch.isMatch(path, rule.glob, { dot: true })) owners = rule.owners;
    for (const o of owners) found.add(o);
  }
  return [...found];
}

export async function resolveReviewers(
  ctx: RepoContext,
  paths: string[],
  authors: string[],
): Promise<{ users: string[]; teams: string[] }> {
  let names = ctx.config.policy.reviewers;
  if (names.length === 0) {
    for (const file of CODEOWNERS_PATHS) {
      const text = await ctx.gh.readFile(file);
      if (text !== null) {
        names = ownersOf(text, paths);
        break;
      }
    }
  }
  const users: string[] = [];
  const teams: string[] = [];
  for (const raw of names) {
    const name = raw.replace(/^@/, '');
    if (name.includes('/')) teams.push(name.split('/')[1]);
    else if (!name.endsWith('[bot]') && !authors.includes(name) && !name.includes('@')) users.push(name);
  }
  return { users, teams };
}

/**
 * Who is asked to review `prs` of a group: config's reviewers or the CODEOWNERS of their changed
 * files; nobody named, the person who wrote the Change (never one of the candidates' authors, nor a bot).
 */
export async function reviewersFor(
  ctx: RepoContext,
  view: Pick<GroupView, 'evidence' | 'change'>,
  prs: number[],
): Promise<{ users: string[]; teams: string[] }> {
  const paths = prs.flatMap((pr) => view.evidence.get(pr)?.changedPaths ?? []);
  const authors = prs.map((pr) => view.evidence.get(pr)?.author ?? '');
  const reviewers = await resolveReviewers(ctx, paths, authors);
  if (reviewers.users.length + reviewers.teams.length > 0) return reviewers;
  const author = (await ctx.gh.getIssue(view.change.number))?.user?.login;
  return author && !author.endsWith('[bot]') && !authors.includes(author) ? { users: [author], teams: [] } : reviewers;
}
