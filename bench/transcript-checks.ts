// Checks a finished group against what must have happened: the expected winner merged, every
// other sibling closed as lost, and no closure, merge, label or comment written twice.
import type { PrState, Transcript, WriteEntry } from '../sim/runner/index.ts';

export interface GroupVerdict {
  correct: boolean;
  problems: string[];
  duplicateWrites: number;
}

/** Writes that must happen at most once: closures, merges, labels (by their summary). */
export function duplicateWrites(writes: Pick<WriteEntry, 'status' | 'summary'>[]): string[] {
  const once = writes.filter((w) => w.status < 300 && /^(close|merge|label) /.test(w.summary)).map((w) => w.summary);
  return once.filter((s, i) => once.indexOf(s) !== i);
}

export function repeatedComments(threads: [string, { comments: { user: string; body: string }[] }][]): string[] {
  const out: string[] = [];
  for (const [num, t] of threads) {
    const bodies = t.comments.map((c) => `${c.user}\n${c.body}`);
    if (bodies.some((b, i) => bodies.indexOf(b) !== i)) out.push(`#${num}`);
  }
  return out;
}

export function checkGroup(prs: Record<string, PrState>, winner: number, candidates: number[]): string[] {
  const problems: string[] = [];
  const w = prs[String(winner)];
  if (!w?.merged) problems.push(`expected winner #${winner} is not merged (${w ? w.state : 'missing'})`);
  for (const n of candidates) {
    if (n === winner) continue;
    const p = prs[String(n)];
    if (!p) problems.push(`#${n} is missing`);
    else if (p.merged) problems.push(`#${n} merged although #${winner} was expected`);
    else if (p.state !== 'closed' || !p.labels.includes('arbiter:lost'))
      problems.push(`#${n} is ${p.state} with labels [${p.labels.join(', ')}], not closed as lost`);
  }
  return problems;
}

export function judgeTranscript(t: Transcript, winner: number, candidates: number[]): GroupVerdict {
  const problems = checkGroup(t.prs, winner, candidates);
  const dups = duplicateWrites(t.writes);
  const comments = repeatedComments([...Object.entries(t.prs), ...Object.entries(t.issues)]);
  if (dups.length) problems.push(`repeated writes: ${[...new Set(dups)].slice(0, 5).join('; ')}`);
  if (comments.length) problems.push(`repeated comment on ${comments.slice(0, 5).join(', ')}`);
  return { correct: problems.length === 0, problems, duplicateWrites: dups.length + comments.length };
}
