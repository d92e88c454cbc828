// What a person must never see in a view Arbiter writes (a comment, a check run's title, summary or
// text, an issue or pull request body): an internal code in bold (**`not_a_candidate`**), an
// evidence id (`ev:92:check:test`; the folded receipt's JSON is for tools and may hold them), the
// model's call counts, or a markdown table left unrendered.
import { renderGfm, structureOfHtml } from './gfm.ts';

/** One view and where it is shown. */
export interface View {
  where: string;
  markdown: string;
}

/** An internal code: lower-case words joined by underscores. */
const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

interface Thread {
  body?: string;
  comments: { user: string; body: string }[];
}

/** The parts of a transcript (DESIGN.md §9) that hold views. */
export interface Viewed {
  prs: Record<
    string,
    Thread & { checks: Record<string, { title?: string | null; summary?: string | null; text?: string | null }> }
  >;
  issues: Record<string, Thread>;
}

/** Every view of a transcript: Arbiter's comments, each check run's title, summary and text, and every body. */
export function transcriptViews(t: Viewed): View[] {
  const out: View[] = [];
  for (const [n, thread] of [...Object.entries(t.prs), ...Object.entries(t.issues)]) {
    if (thread.body) out.push({ where: `#${n} body`, markdown: thread.body });
    thread.comments.forEach((c, i) => {
      if (c.user.endsWith('[bot]')) out.push({ where: `#${n} comment ${i + 1}`, markdown: c.body });
    });
  }
  for (const [n, pr] of Object.entries(t.prs)) {
    for (const [name, c] of Object.entries(pr.checks)) {
      if (c.title) out.push({ where: `#${n} ${name} title`, markdown: c.title });
      if (c.summary) out.push({ where: `#${n} ${name} summary`, markdown: c.summary });
      if (c.text) out.push({ where: `#${n} ${name} text`, markdown: c.text });
    }
  }
  return out;
}

/** What is wrong with text as a person reads it (rendered, tags gone), one line per finding. */
export function textProblems(text: string, boldCodes: string[]): string[] {
  const problems: string[] = [];
  const evidence = /\bev:[\w:.-]+/.exec(text);
  if (evidence) problems.push(`an evidence id (${evidence[0]})`);
  if (/model calls/i.test(text)) problems.push('"Model calls"');
  const table = /^.*(?:^|\|)\s*:?-{3,}:?\s*\|.*$/m.exec(text);
  if (table) problems.push(`an unrendered markdown table (${table[0].trim()})`);
  for (const code of boldCodes.filter((c) => SNAKE.test(c.trim()))) problems.push(`an internal code in bold (${code})`);
  const raw = /\*\*`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`\*\*/.exec(text);
  if (raw) problems.push(`an internal code in bold (${raw[1]})`);
  return problems;
}

/** The problems of one view rendered with CommonMark + GFM, as GitHub renders it. */
export function viewProblems(view: View): string[] {
  // The folded decision receipt is JSON for tools (its evidence ids are its point), not prose.
  const html = renderGfm(view.markdown).replace(/<pre><code class="language-json">[\s\S]*?<\/code><\/pre>/g, '');
  const boldCodes = [...html.matchAll(/<(?:strong|b)>\s*<code>([^<]*)<\/code>\s*<\/(?:strong|b)>/g)].map((m) =>
    m[1].trim(),
  );
  return textProblems(structureOfHtml(html).visible, boldCodes).map((p) => `${view.where}: ${p}`);
}

/**
 * The last sentence of a closed loser's comment: how to bring it back (before a ship), that nothing
 * more ships, or (a set's member, lost to another set) that a set is not brought back.
 */
const BRING_BACK =
  /(?:To ship it instead, reopen it and comment `\S+ promote` on it \(write access\) once its siblings have settled\.|(?:\S+)?#\d+ shipped for (?:\S+)?#\d+, so Arbiter ships no other candidate for it on this base branch; this one's branch stays, to reuse by hand\.|Arbiter does not bring a losing set back; its members' branches stay, to reuse by hand\.)$/;

/** Every pull request Arbiter closed as lost (`arbiter:lost`): its loser's comment ends with how to bring it back. */
export function loserProblems(t: {
  prs: Record<string, { state: string; labels: string[]; comments: { user: string; body: string }[] }>;
}): string[] {
  const problems: string[] = [];
  for (const [n, pr] of Object.entries(t.prs)) {
    if (!pr.labels.includes('arbiter:lost')) continue;
    // Another repository's pull request is keyed `owner/name#N`; its note's marker names N.
    const number = n.includes('#') ? n.slice(n.lastIndexOf('#') + 1) : n;
    const notes = pr.comments.filter(
      (c) => c.user.endsWith('[bot]') && c.body.startsWith(`<!-- arbiter:note:${number}:`),
    );
    if (notes.length === 0) problems.push(`${n.includes('#') ? n : `#${n}`}: lost, with no comment saying why`);
    for (const note of notes)
      if (!BRING_BACK.test(note.body.trim()))
        problems.push(`#${n}: the loser's comment does not end with how to bring it back`);
  }
  return problems;
}
