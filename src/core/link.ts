// Which Change a pull request is a candidate for (DESIGN.md section 1, "Candidate"): a line
// `Candidate-for: #42`, else GitHub's own list of the issues the PR closes
// (`closingIssuesReferences`: every keyword form, and links made in the Development sidebar) when
// it holds exactly one open issue of this repository. GitHub computes that list for a PR on the
// default branch only; for any other base, or when it was not read, the body's closing keywords
// are read here as GitHub reads them. Text in block quotes, `<details>`, HTML comments and code
// never links: agents quote the issue there. Pure.

/** One issue of GitHub's `closingIssuesReferences`. */
export interface IssueRef {
  /** `owner/name` of the issue's repository. */
  repo: string;
  number: number;
  open: boolean;
}

export interface LinkSources {
  /** `owner/name` of this repository: a reference to another repository never links here. */
  repo: string;
  /** GitHub's `closingIssuesReferences`, or null when it was not read. */
  closing: readonly IssueRef[] | null;
}

const MAX_BODY = 100_000;
const CANDIDATE_FOR = /^[ \t]*candidate-for:[ \t]*#(\d+)\b/im;
// GitHub's keywords; the reference is `#N`, `owner/repo#N` or the issue's URL.
const CLOSING =
  /(?<![\w-])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)[ \t]*:?[ \t]+(?:(?:https?:\/\/[^\s/]+\/)?([\w.-]+)\/([\w.-]+)(?:#|\/issues\/)|#)(\d+)(?![\w-])/gi;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const QUOTE = /^ {0,3}>/;

/** Removes inline code spans (a run of backticks to the next run of the same length). */
function withoutInlineCode(line: string): string {
  return line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, ' ');
}

/**
 * The body as GitHub would link from it: without HTML comments, `<details>` blocks, fenced code,
 * block quotes (with their lazy continuation lines) and inline code.
 */
export function linkableText(body: string): string {
  const text = (body.length > MAX_BODY ? body.slice(0, MAX_BODY) : body)
    .replace(/\r\n?/g, '\n')
    .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ');
  const kept: string[] = [];
  let fence: string | null = null;
  let details = 0;
  let inQuote = false;
  for (const line of text.split('\n')) {
    if (fence !== null) {
      const close = FENCE.exec(line);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length && line.trim() === close[1])
        fence = null;
      continue;
    }
    const opens = (line.match(/<details\b[^>]*>/gi) ?? []).length;
    const closes = (line.match(/<\/details\s*>/gi) ?? []).length;
    if (details > 0 || opens > 0) {
      details = Math.max(0, details + opens - closes);
      continue;
    }
    const open = FENCE.exec(line);
    if (open) {
      fence = open[1]!;
      inQuote = false;
      continue;
    }
    if (line.trim() === '') {
      inQuote = false;
      kept.push('');
      continue;
    }
    if (QUOTE.test(line) || inQuote) {
      inQuote = true;
      continue;
    }
    kept.push(withoutInlineCode(line));
  }
  return kept.join('\n');
}

/** The `Candidate-for: #N` line, outside quotes and code, else null. */
export function candidateForLine(body: string | null | undefined): number | null {
  if (!body) return null;
  const m = CANDIDATE_FOR.exec(linkableText(body));
  return m ? Number(m[1]) : null;
}

/**
 * The issues of `repo` the body's closing keywords name, as GitHub reads them (in order, each
 * once). `repo` null: only the short `#N` form counts (the repository is not known).
 */
export function closingReferences(body: string | null | undefined, repo: string | null): number[] {
  if (!body) return [];
  const refs: number[] = [];
  for (const m of linkableText(body).matchAll(CLOSING)) {
    const [, owner, name, number] = m;
    if (owner !== undefined && (repo === null || `${owner}/${name}`.toLowerCase() !== repo.toLowerCase())) continue;
    const n = Number(number);
    if (n > 0 && !refs.includes(n)) refs.push(n);
  }
  return refs;
}

/**
 * The Change the pull request is a candidate for, or null: `Candidate-for: #N`; else exactly one
 * open issue of this repository in GitHub's closing list; else (the list empty or not read)
 * exactly one issue the body's closing keywords name.
 */
export function linkedChange(body: string | null | undefined, sources?: LinkSources): number | null {
  const explicit = candidateForLine(body);
  if (explicit !== null) return explicit;
  const repo = sources?.repo ?? null;
  const listed = (sources?.closing ?? []).filter(
    (ref) => ref.open && repo !== null && ref.repo.toLowerCase() === repo.toLowerCase(),
  );
  const known = [...new Set(listed.map((ref) => ref.number))];
  if (known.length > 0) return known.length === 1 ? known[0]! : null;
  // GitHub's list names another repository's or only closed issues: nothing of this one to close.
  if ((sources?.closing ?? []).length > 0) return null;
  const refs = closingReferences(body, repo);
  return refs.length === 1 ? refs[0]! : null;
}
