// The note on a Change that no candidate remains open on a base (after a rejection), and the same
// note written again once a candidate shipped there after all (a loser brought back), so it never
// goes stale. Pure: the shell says whether the note was written and what shipped.
import type { Action } from '../actions.ts';
import { recordAction } from '../actions.ts';
import { changeActionKey, markerKey } from '../keys.ts';
import { markerFor } from '../render/markers.ts';

const marker = (change: number, base: string): string => markerKey('none-left', change, base);

/** Where the shell records that the note was written on `change` for `base` (read when a candidate ships). */
export const noneLeftRecordKey = (repo: string, change: number, base: string): string =>
  changeActionKey(repo, change, base, 'none-left');

/** The note after `pr` (at `headSha`) was rejected and no candidate on `base` remains open, and its record. */
export function planNoneLeft(input: {
  repo: string;
  change: number;
  base: string;
  pr: number;
  headSha: string;
  prefix: string;
}): Action[] {
  const { repo, change, base, pr } = input;
  const text = `No candidate for #${change} on \`${base}\` remains open after #${pr} was rejected. A new candidate opens the next round; or cancel the change with \`${input.prefix} cancel\`.`;
  return [
    {
      kind: 'comment',
      key: changeActionKey(repo, change, 'reject', `${pr}@${input.headSha}`, 'none-left'),
      issue: change,
      marker: marker(change, base),
      body: `${markerFor(marker(change, base))}\n${text}`,
    },
    recordAction(noneLeftRecordKey(repo, change, base), { pr }),
  ];
}

/** The note once `pr` shipped on `base` after all: what shipped, and that nothing more does. */
export function planNoneLeftShipped(input: {
  repo: string;
  change: number;
  base: string;
  pr: number;
  mergeCommit: string | null;
  by: string | null;
}): Action[] {
  const { repo, change, base, pr } = input;
  const commit = input.mergeCommit ? ` as ${input.mergeCommit.slice(0, 7)}` : '';
  const by = input.by ? `, promoted by @${input.by}` : '';
  return [
    {
      kind: 'comment',
      key: changeActionKey(repo, change, base, 'none-left', `shipped-${pr}`),
      issue: change,
      marker: marker(change, base),
      body: `${markerFor(marker(change, base))}\n#${pr} was merged for #${change} on \`${base}\`${commit}${by}. Nothing more ships for #${change} on \`${base}\`; the comparison says how it was chosen.`,
    },
  ];
}
