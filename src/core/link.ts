// Which Change a pull request is a candidate for: `Candidate-for: #42`, else exactly one
// closing reference (`Closes #42`). Pure.

const CANDIDATE_FOR = /^\s*candidate-for:\s*#(\d+)\b/im;
const CLOSING = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#(\d+)\b/gi;

export function linkedChange(body: string | null | undefined): number | null {
  if (!body) return null;
  const text = body.length > 100_000 ? body.slice(0, 100_000) : body;
  const explicit = CANDIDATE_FOR.exec(text);
  if (explicit) return Number(explicit[1]);
  const refs = new Set<number>();
  for (const match of text.matchAll(CLOSING)) refs.add(Number(match[1]));
  return refs.size === 1 ? [...refs][0] : null;
}
