// A late sibling (DESIGN.md section 6, "Stale"): a pull request that links a Change that already
// shipped or was cancelled holds no round. Its plan: a completed neutral `Arbiter / selection`
// saying why, a note, the closure as stale, then its record as a stale candidate. Pure.
import type { Action } from '../actions.ts';
import { changeActionKey, markerKey } from '../keys.ts';
import { markerFor } from '../render/markers.ts';
import { inMode, type ModeConfig } from '../render/mode-words.ts';

export interface LateSiblingInput {
  repo: string;
  change: number;
  /** The candidate that shipped on this base, or null when the Change was cancelled. */
  shipped: number | null;
  pull: { number: number; headSha: string; base: string; author: string };
  /** The configured mode, for the words only: the executor's filter decides what shadow mode does. */
  config: ModeConfig;
  now: string;
}

export function planLateSibling(input: LateSiblingInput): Action[] {
  const { repo, change, shipped, pull } = input;
  const title = shipped !== null ? `#${shipped} already shipped for #${change}` : `#${change} was cancelled`;
  const summary = `${title}, so this pull request is not compared with anything. ${inMode(input.config, { live: 'Arbiter closes it as stale.', shadow: 'Shadow mode: Arbiter would close it as stale.' })}`;
  const k = (s: string): string => changeActionKey(repo, change, 'late', `${pull.number}@${pull.headSha}`, s);
  const marker = markerKey('late', pull.number);
  // The answer first, then the record: a retry after a kill in between finds no stale row that
  // would keep it from answering (the actions are keyed, so nothing is written twice).
  return [
    {
      kind: 'check-run',
      key: k('check'),
      pr: pull.number,
      headSha: pull.headSha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      title,
      summary,
    },
    { kind: 'comment', key: k('note'), issue: pull.number, marker, body: `${markerFor(marker)}\n${summary}` },
    { kind: 'close', key: k('close'), pr: pull.number },
    {
      kind: 'record-candidate',
      key: k('record'),
      candidate: {
        pr: pull.number,
        change,
        base: pull.base,
        headSha: pull.headSha,
        author: pull.author,
        state: 'stale',
        reason: `${title}.`,
        headSeenAt: input.now,
      },
    },
  ];
}
