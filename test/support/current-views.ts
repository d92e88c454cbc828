// Every view is current (issue 25): after a person's promote-and-merge, a cancel and a repair
// timeout, the comparison's headline says what happened, with nothing stale left. Asserted on the
// run of the test file that already plays each story (people, judge, decisions), so no story is
// played twice for its views (issue 28: full-app runs that share a story share one run).
import { expect } from 'vitest';
import type { Transcript } from '../../sim/runner/index.ts';
import { structureOf } from './gfm.ts';

const SELECTION = 'Arbiter / selection';

/** The Change's one comparison comment. */
export const comparison = (t: Transcript, change: number): string => {
  const found = t.issues[String(change)].comments.filter((c) => c.body.includes('arbiter:comparison:'));
  expect(found, 'one comparison comment').toHaveLength(1);
  return found[0].body;
};
/** The headline as a reader sees it: the first bold paragraph under the heading. */
export const headline = (body: string): string => structureOf(/^\*\*.+\*\*$/m.exec(body)?.[0] ?? '').visible.trim();
export const visible = (body: string): string => structureOf(body).visible;
const STALE = /awaiting|is requested|repair requested|#\d+: ships/;

/** people-promote: "merged", with the merge commit; the gate and the winner say so. */
export function expectMergedOnPromoteViews(t: Transcript): void {
  expect(t.prs['85']).toMatchObject({ state: 'closed', merged: true });
  const body = comparison(t, 8);
  expect(headline(body)).toMatch(/^#85 merged as [0-9a-f]{7}, promoted by @maintainer: met 1 of 2 criteria/);
  expect(visible(body)).not.toMatch(STALE);
  expect(body).toMatch(/\/acme\/todo\/commit\/[0-9a-f]{40}\)/);
  const own = t.prs['85'].comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);
  const gate = own.find((b) => b.includes('arbiter:gate:85')) ?? '';
  expect(visible(gate)).toContain("#85 was merged on @maintainer's word.");
  // What was asked is folded below the new first lines.
  expect(gate.indexOf('<details>')).toBeGreaterThan(gate.indexOf("was merged on @maintainer's word"));
  expect(own.find((b) => b.includes('arbiter:winner:85'))).toContain('This candidate won the comparison on #8');
  expect(t.prs['85'].checks[SELECTION]).toMatchObject({ conclusion: 'success' });
}

/** judge-unavailable: "cancelled", and no candidate awaits a person. */
export function expectCancelledViews(t: Transcript): void {
  const body = comparison(t, 9);
  expect(headline(body)).toMatch(/^Cancelled by @maintainer\. Every open candidate was closed; nothing ships\.$/);
  expect(visible(body)).not.toMatch(STALE);
  // The tie's one gate comment on the Change, and the repair note, say it too.
  const own = t.issues['9'].comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);
  expect(visible(own.find((b) => b.includes('arbiter:gate:9@main')) ?? '')).toContain('Cancelled by @maintainer.');
  expect(visible(own.find((b) => b.includes('arbiter:repair:9')) ?? '')).toContain(
    'It is no longer awaited: Cancelled by @maintainer.',
  );
  for (const pr of ['91', '92']) expect(t.prs[pr].comments.some((c) => c.body.includes('arbiter:gate:'))).toBe(false);
}

/** decisions-repair-timeout: "waits for a person: …", posted once, with the full gate on the candidate. */
export function expectRepairTimeoutViews(t: Transcript): void {
  const body = comparison(t, 11);
  expect(headline(body)).toMatch(
    /^#101 waits for a person: the requested repair of #101 did not arrive within 10 minutes\. Approve it, or comment \/arbiter promote on it/,
  );
  expect(visible(body)).not.toMatch(STALE);
  const own = t.issues['11'].comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);
  // The Change hears it in its comparison and its repair note, not in a second copy of the gate.
  expect(own.filter((b) => b.includes('did not arrive')).length).toBe(1);
  expect(visible(own.find((b) => b.includes('arbiter:repair:11')) ?? '')).not.toMatch(/requested one repair/);
  const gates = t.prs['101'].comments.filter((c) => c.body.includes('arbiter:gate:101'));
  expect(gates).toHaveLength(1);
  expect(visible(gates[0].body)).toContain('@maintainer: your decision is needed.');
  expect(t.prs['101'].checks[SELECTION]).toMatchObject({ conclusion: 'action_required' });
}
