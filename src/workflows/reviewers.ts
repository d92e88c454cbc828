// Who is asked at the human gate: the reviewers named in config, else the CODEOWNERS owners of
// the changed files (last matching rule wins, as GitHub reads it). Authors and bots are never asked.
import picomatch from 'picomatch';
import type { RepoContext } from './context.ts';

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
