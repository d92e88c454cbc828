// Whether a composite candidate holds its Change's selection round (DESIGN.md sections 2 and 6):
// a set is one sibling of the Change, so the round waits while it is composing (a member has not
// opened, or its agent is still at work on it) or verifying (a member's required checks have not concluded), each up to
// `selection.siblingTimeout` as for any sibling; a set whose gate passed holds it until its acceptance
// check over every member has judged it. A set that is not a candidate, or whose gate
// failed (unpromotable), holds nothing. Pure: the stored record, the timeout and the time in.
import { refText, setAcceptance, type SetRecord } from '../candidate-set.ts';

export type SetHold =
  { holds: true; label: string; why: string; since: string } | { holds: false; timedOut: { since: string } | null };

/** How the set is named in a waiting list: its name and members. */
export const setLabel = (record: SetRecord): string =>
  `set ${record.name} (${(record.parts ?? record.seen).map(refText).join(', ')})`;

/** Whether the set holds its Change's round now, and since when. */
export function setHold(record: SetRecord, siblingTimeoutSeconds: number, now: string): SetHold {
  // A record from before sets held rounds has no `since`: it holds nothing (no hold without an end).
  if (record.since === undefined) return { holds: false, timedOut: null };
  let why: string;
  let since: string;
  if (record.state === 'composing' && record.working !== undefined && record.working.length > 0) {
    // Only agents at work: timed from the members' last heads, as a composing single candidate's hold
    // runs from its head (an agent that keeps pushing keeps it; one that stalls lets the round go on).
    why = `composing: ${record.working.join(', ')} still at work`;
    since = record.headsAt ?? record.since;
  } else if (record.state === 'composing') {
    why = 'composing';
    since = record.since;
  } else if (record.state === 'candidate' && record.gate?.settled !== true) {
    why = 'CI running';
    since = record.headsAt ?? record.since;
  } else if (record.state === 'candidate' && record.gate?.promotable === true && setAcceptance(record) === null) {
    // Judged once over every member when its gate passes: the round waits for that evidence too.
    why = 'acceptance running';
    since = record.headsAt ?? record.since;
  } else return { holds: false, timedOut: null };
  if (Date.parse(now) - Date.parse(since) >= siblingTimeoutSeconds * 1000) return { holds: false, timedOut: { since } };
  return { holds: true, label: setLabel(record), why, since };
}

/** The sets that hold the round, as entries of its waiting list (a set has no pull request here: `pr` 0). */
export function setsHoldingRound(
  records: readonly SetRecord[],
  siblingTimeoutSeconds: number,
  now: string,
): { pr: number; label: string; why: string }[] {
  const held: { pr: number; label: string; why: string }[] = [];
  for (const r of [...records].sort((a, b) => a.name.localeCompare(b.name))) {
    const hold = setHold(r, siblingTimeoutSeconds, now);
    if (hold.holds) held.push({ pr: 0, label: hold.label, why: hold.why });
  }
  return held;
}
