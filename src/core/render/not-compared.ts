// The comparison's paragraph on linked pull requests that were not compared: who opened each, why
// it is not a candidate, and the one act that admits it (the same one its neutral check names).
import type { NotCompared } from '../receipt.ts';
import { prLink, type RepoUrl } from './markdown.ts';

/** At most this many are named; the rest are counted. */
const SHOWN = 10;

/** One line per pull request, or null when every linked pull request was compared. */
export function notComparedParagraph(list: NotCompared[], prefix: string, repoUrl: RepoUrl): string | null {
  if (list.length === 0) return null;
  const sorted = [...list].sort((a, b) => a.pr - b.pr);
  const lines = sorted.slice(0, SHOWN).map((n) => {
    const admit = `a maintainer admits it with \`${prefix} admit\` on #${n.pr}`;
    const how = n.trustWith ? `add \`${n.trustWith}\` to \`.github/arbiter.yml\` to trust it, or ${admit}` : admit;
    return `- ${prLink(repoUrl, n.pr)} by @${n.author} was not compared: ${n.reason}; ${how}.`;
  });
  const more = sorted.length - SHOWN;
  if (more > 0) lines.push(`- and ${more} more, each with the same neutral \`Arbiter / selection\` check saying why.`);
  const head =
    sorted.length === 1
      ? 'One more pull request links this Change but is not a candidate:'
      : `${sorted.length} more pull requests link this Change but are not candidates:`;
  return `${head}\n\n${lines.join('\n')}`;
}
