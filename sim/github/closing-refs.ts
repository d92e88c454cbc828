// The issues a pull request closes, as GitHub computes `closingIssuesReferences`: the body is
// rendered as GitHub renders it (GFM), and a closing keyword (close, closes, closed, fix, fixes,
// fixed, resolve, resolves, resolved; any case; an optional colon) followed by `#N`,
// `owner/repo#N` or the issue's URL links that issue, unless it sits in a block quote, a
// `<details>` block, code or an HTML comment. GitHub links keywords only on a pull request to
// the default branch; links made in the Development sidebar count on any. Only issues that exist
// (not pull requests) are listed, each once, keywords first.
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

export interface IssueAddress {
  /** `owner/name` as written (matched case-insensitively by the caller). */
  repo: string;
  number: number;
}

const HIDDEN = /<(blockquote|details|pre|code)\b[^>]*>(?:(?!<\1\b)[\s\S])*?<\/\1\s*>/gi;
const KEYWORD =
  /(?<![\w-])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+(?:https?:\/\/[^\s/]+\/([\w.-]+)\/([\w.-]+)\/issues\/(\d+)|([\w.-]+)\/([\w.-]+)#(\d+)|#(\d+))(?![\w-])/gi;

/** The visible text of the rendered body, without quotes, details, code and comments. */
export function visibleText(body: string): string {
  let html = micromark(body, { extensions: [gfm()], htmlExtensions: [gfmHtml()], allowDangerousHtml: true }).replace(
    /<!--[\s\S]*?(?:-->|$)/g,
    ' ',
  );
  // Innermost first, until nothing hidden is left (a quote inside details inside a quote).
  for (let before = ''; before !== html;) {
    before = html;
    html = html.replace(HIDDEN, ' ');
  }
  // An unclosed <details> hides the rest of the body, as GitHub's collapsed block does.
  html = html.replace(/<details\b[\s\S]*$/i, ' ');
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The issues the body's closing keywords name; `here` is the pull request's own `owner/name`. */
export function keywordReferences(body: string, here: string): IssueAddress[] {
  const refs: IssueAddress[] = [];
  for (const m of visibleText(body).matchAll(KEYWORD)) {
    const ref: IssueAddress =
      m[3] !== undefined
        ? { repo: `${m[1]}/${m[2]}`, number: Number(m[3]) }
        : m[6] !== undefined
          ? { repo: `${m[4]}/${m[5]}`, number: Number(m[6]) }
          : { repo: here, number: Number(m[7]) };
    if (!refs.some((r) => r.number === ref.number && r.repo.toLowerCase() === ref.repo.toLowerCase())) refs.push(ref);
  }
  return refs;
}
