// The winner's merge path against the real app and the emulator (issue 29): chosen from what
// GitHub says now, every refusal named, a person asked where GitHub needs one. Each outcome was
// written from DESIGN.md section 6 ("Winner") before the story was played.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { expectRendersClean } from '../support/gfm.ts';

const SLOW = { timeout: 420_000 };
const SELECTION = 'Arbiter / selection';
const AWAITING = 'arbiter:awaiting-approval';
const MERGE = '/repos/{owner}/{repo}/pulls/{pull_number}/merge';
const UPDATE = '/repos/{owner}/{repo}/pulls/{pull_number}/update-branch';

const play = async (name: string): Promise<Transcript> =>
  expectRendersClean(
    await playStory(
      await loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url))),
    ),
  );
const merges = (t: Transcript) => t.writes.filter((w) => w.route === MERGE);
const mutations = (t: Transcript, name: string) => t.writes.filter((w) => w.operation === name);
const said = (t: Transcript, num: number): string =>
  [...(t.prs[String(num)] ?? t.issues[String(num)]).comments]
    .filter((c) => c.user === 'arbiter[bot]')
    .map((c) => c.body)
    .join('\n');
/** Every word Arbiter wrote about the winner: its comments, its selection check, the comparison. */
const words = (t: Transcript, pr: number, change: number): string =>
  [said(t, pr), said(t, change), JSON.stringify(t.prs[String(pr)].checks[SELECTION] ?? {})].join('\n');

describe('the merge path', () => {
  it(
    'auto-merge not allowed: the reason and the review are asked of a person; the approval merges the winner',
    SLOW,
    async () => {
      const t = await play('merge-path-no-auto-merge');
      // Never "enable auto-merge" on a repository that does not allow it.
      expect(mutations(t, 'enablePullRequestAutoMerge')).toEqual([]);
      expect(t.prs['61']).toMatchObject({ state: 'closed', merged: true });
      // Merged once, with the REST merge, after the maintainer's approval at 30 s (no refusal on the way).
      expect(merges(t).map((w) => w.status)).toEqual([200]);
      expect(merges(t)[0].at).toBeGreaterThanOrEqual(30);
      const text = words(t, 61, 7);
      expect(text).toContain('does not allow auto-merge');
      expect(text).toContain('approve #61: the approval merges it');
      expect(text).not.toMatch(/It ships|Waiting for evidence/);
      // The review was requested (the Change's author: no reviewers configured, no CODEOWNERS).
      expect(
        t.writes.some((w) => w.summary.startsWith('request review') || w.route.endsWith('/requested_reviewers')),
      ).toBe(true);
      // Before the approval the winner stood before a person: labelled, and it left when it merged.
      expect(t.writes.some((w) => w.summary.includes(AWAITING))).toBe(true);
      expect(t.prs['61'].labels).not.toContain(AWAITING);
    },
  );

  it('approved before the decision: merged directly within a minute, no person', SLOW, async () => {
    const t = await play('merge-path-approved-first');
    expect(t.prs['61']).toMatchObject({ state: 'closed', merged: true, labels: [] });
    expect(merges(t).map((w) => w.status)).toEqual([200]);
    // The last CI result lands at 5 s; the merge follows within a minute.
    expect(merges(t)[0].at).toBeLessThan(5 + 60);
    expect(mutations(t, 'enablePullRequestAutoMerge')).toEqual([]);
    expect(t.writes.some((w) => w.summary.includes(AWAITING))).toBe(false);
    expect(t.prs['61'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Selected: shipped' });
  });

  it(
    'a merge queue with a missing review: a person is asked with what is missing; the approval enqueues it',
    SLOW,
    async () => {
      const t = await play('merge-path-queue-missing-review');
      // The queue would refuse it before the review: Arbiter does not try, and never merges around the queue.
      const enqueues = mutations(t, 'enqueuePullRequest');
      expect(enqueues.map((w) => w.status)).toEqual([200]);
      expect(enqueues[0].at).toBeGreaterThanOrEqual(30);
      expect(merges(t)).toEqual([]);
      const text = words(t, 61, 7);
      expect(text).toContain('merge queue, which does not take #61 until it has an approving review');
      expect(text).toContain('approve #61');
      expect(text).not.toMatch(/It ships|Waiting for evidence/);
      // Before the approval it stood before a person; the queue merged it after.
      expect(t.writes.some((w) => w.summary.includes(AWAITING))).toBe(true);
      expect(t.prs['61']).toMatchObject({ state: 'closed', merged: true });
      expect(t.prs['61'].labels).not.toContain(AWAITING);
    },
  );

  it('a strict branch that fell behind: updated once, the new head verified, then merged', SLOW, async () => {
    const t = await play('merge-path-strict-behind');
    expect(t.prs['81']).toMatchObject({ merged: true });
    expect(t.prs['61']).toMatchObject({ state: 'closed', merged: true });
    const updates = t.writes.filter((w) => w.route === UPDATE);
    expect(updates.map((w) => w.status)).toEqual([202]);
    // GitHub refused the merge while behind (405, its words kept); the merge of the updated head came after.
    const attempts = merges(t).filter((w) => w.path.endsWith('/pulls/61/merge'));
    expect(attempts.at(-1)?.status).toBe(200);
    expect(attempts.filter((w) => w.status === 200)).toHaveLength(1);
    expect(attempts.at(-1)!.at).toBeGreaterThan(updates[0].at);
    // The new head was verified: CI ran on it and the acceptance check answered on it before the merge.
    expect(t.prs['61'].checks['Arbiter / acceptance']).toMatchObject({ conclusion: 'success' });
    expect(said(t, 7)).toContain('round 2');
  });

  it(
    'auto-merge on the winner, its agent pushes a new head: Arbiter withdraws its auto-merge and ships the new head only once verified',
    SLOW,
    async () => {
      const t = await play('merge-path-auto-merge-new-head');
      // Enabled on the verified head when the decision waited on a review; withdrawn when the head
      // moved at 20 s (the agent has write access: GitHub itself kept it on), before the approval at 30 s.
      const on = mutations(t, 'enablePullRequestAutoMerge');
      const off = mutations(t, 'disablePullRequestAutoMerge');
      expect(on.map((w) => w.status)).toEqual([200]);
      expect(off.map((w) => w.status)).toEqual([200]);
      expect(off[0].at).toBeGreaterThanOrEqual(20);
      expect(off[0].at).toBeLessThan(30);
      // Nothing merged by itself when the new head's CI passed at 60 s: Arbiter judged the new head
      // first (its acceptance check), then merged it with its own compare-and-swap merge.
      expect(t.prs['61']).toMatchObject({ state: 'closed', merged: true });
      expect(merges(t).map((w) => w.status)).toEqual([200]);
      expect(merges(t)[0].at).toBeGreaterThanOrEqual(60);
      expect(t.prs['61'].checks['Arbiter / acceptance']).toMatchObject({ conclusion: 'success' });
      expect(t.prs['61'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Selected: shipped' });
      expect(said(t, 7)).toContain('round 2');
    },
  );

  it('classic protection with a required check the rulesets do not name: the round waits for it', SLOW, async () => {
    const t = await play('merge-path-classic-protection');
    expect(t.prs['61']).toMatchObject({ state: 'closed', merged: true });
    // No merge before e2e concluded at 40 s, and none refused on the way.
    expect(merges(t).map((w) => w.status)).toEqual([200]);
    expect(merges(t)[0].at).toBeGreaterThanOrEqual(40);
    expect(t.prs['61'].checks['Arbiter / gate']?.summary ?? '').toContain('e2e');
  });
  it(
    'GitHub turns off the auto-merge of a still-verified winner: Arbiter turns it back on, and the approval merges it',
    SLOW,
    async () => {
      const t = await play('merge-path-auto-merge-off-again');
      // Expected (DESIGN.md section 6, "Winner": every refusal has a named reason; never "ships" then
      // nothing): the same head is still the round's verified winner and still waits on a review, so
      // its merge path is taken again: auto-merge on once more, after GitHub turned it off at 15 s.
      const on = mutations(t, 'enablePullRequestAutoMerge');
      expect(on.map((w) => w.status)).toEqual([200, 200]);
      expect(on[1].at).toBeGreaterThanOrEqual(15);
      expect(on[1].at).toBeLessThan(30);
      expect(mutations(t, 'disablePullRequestAutoMerge')).toEqual([]);
      // The maintainer's approval at 30 s merged it through GitHub's auto-merge: no person was asked.
      expect(t.prs['61']).toMatchObject({ state: 'closed', merged: true });
      expect(t.writes.some((w) => w.summary.includes(AWAITING))).toBe(false);
      expect(t.prs['61'].checks[SELECTION]).toMatchObject({ conclusion: 'success' });
    },
  );

  it(
    "a maintainer turns off the winner's auto-merge: never turned back on; a person is asked, and the approval ships it",
    SLOW,
    async () => {
      const t = await play('merge-path-auto-merge-off-person');
      // GitHub's own turning off at 15 s: back on once. The maintainer's at 20 s is a person's choice:
      // Arbiter does not undo it (no third enable) and says who turned it off, before a person.
      const on = mutations(t, 'enablePullRequestAutoMerge');
      expect(on.map((w) => w.status)).toEqual([200, 200]);
      expect(on[1].at).toBeLessThan(20);
      const text = words(t, 61, 7);
      expect(text).toContain('@maintainer turned off auto-merge on #61');
      expect(t.writes.some((w) => w.summary.includes(AWAITING) && w.at >= 20 && w.at < 30)).toBe(true);
      expect(t.prs['61'].checks[SELECTION]).toBeDefined();
      // The approval at 30 s is a person's act on a gated winner: merged with Arbiter's own `sha` merge.
      expect(t.prs['61']).toMatchObject({ state: 'closed', merged: true });
      expect(merges(t).map((w) => w.status)).toEqual([200]);
      expect(merges(t)[0].at).toBeGreaterThanOrEqual(30);
      expect(t.prs['61'].labels).not.toContain(AWAITING);
    },
  );
  it(
    'a maintainer promotes the loser while the winner waits in the queue: the winner leaves the queue first',
    SLOW,
    async () => {
      const t = await play('merge-path-queue-promote-loser');
      const queue = t.writes
        .filter((w) => w.status < 300 && (w.operation === 'enqueuePullRequest' || w.operation === 'dequeuePullRequest'))
        .map((w) => w.summary);
      // Never two candidates of #7 in the queue at once: #61 out before #62 in.
      expect(queue).toEqual(['enqueue #81', 'enqueue #61', 'dequeue #61', 'enqueue #62']);
      expect(said(t, 61)).toContain('Arbiter took #61 out of the merge queue');
      expect(t.prs['61']).toMatchObject({ merged: false });
    },
  );
  it(
    "a person's promote on a branch that requires a review takes a decision's path: auto-merge at the verified head, the review asked; the approval merges it",
    SLOW,
    async () => {
      const t = await play('merge-path-promote-review');
      // Never a direct merge GitHub refuses (405 "a person must resolve it").
      expect(merges(t).filter((w) => w.status >= 300)).toEqual([]);
      const auto = mutations(t, 'enablePullRequestAutoMerge');
      expect(auto.map((w) => [w.at, w.status])).toEqual([[20, 200]]);
      // At the verified head (the executor checks it before enabling), with the review requested.
      expect(said(t, 85)).toMatch(
        /Promoted #85 at [0-9a-f]{7}: the branch requires an approving review, so auto-merge is on; GitHub merges it once the review is in/,
      );
      expect(t.writes.some((w) => w.at === 20 && w.route.endsWith('/requested_reviewers'))).toBe(true);
      expect(said(t, 85)).not.toMatch(/a person must resolve it/);
      // Merged once the reviewer approved, at its verified head; the comparison says who promoted it.
      expect(t.prs['85']).toMatchObject({ state: 'closed', merged: true });
      // GitHub merged it, on the maintainer's word: its check says so.
      expect(t.prs['85'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Promoted by @maintainer' });
      const merged = t.writes.find((w) => w.summary === 'merge #85' || w.operation === 'mergePullRequest');
      expect(merged?.at ?? 40).toBeGreaterThanOrEqual(40);
      expect(said(t, 8)).toMatch(/#85 merged as \[[0-9a-f]{7}\]\([^)]+\), promoted by @maintainer/);
      expect(said(t, 8)).not.toMatch(/awaiting a person/);
    },
  );

  it('a queued winner whose Change is cancelled: Arbiter takes it out of the queue and says so', SLOW, async () => {
    const t = await play('merge-path-queue-cancel');
    // Expected (DESIGN.md section 6: `/arbiter cancel` closes every candidate; nothing merges after it):
    // queued at its decision (behind main, it waits in the queue), dequeued at the cancel, never merged.
    // (#81 of Change #8 goes through the queue first and merges at once.)
    expect(mutations(t, 'enqueuePullRequest').map((w) => w.summary)).toEqual(['enqueue #81', 'enqueue #61']);
    const out = mutations(t, 'dequeuePullRequest');
    expect(out.map((w) => w.status)).toEqual([200]);
    expect(out[0].at).toBeGreaterThanOrEqual(40);
    expect(t.prs['61']).toMatchObject({ state: 'closed', merged: false });
    expect(said(t, 61)).toContain('Arbiter took #61 out of the merge queue: #7 was cancelled');
  });

  it('GitHub removes the queued winner from the merge queue: a person is asked with the reason', SLOW, async () => {
    const t = await play('merge-path-queue-dequeued');
    // Never silence, never queued again blindly (its merge group failed): before a person, GitHub's words.
    expect(mutations(t, 'enqueuePullRequest').map((w) => w.summary)).toEqual(['enqueue #81', 'enqueue #61']);
    expect(mutations(t, 'dequeuePullRequest')).toEqual([]);
    expect(merges(t).filter((w) => w.path.endsWith('/pulls/61/merge'))).toEqual([]);
    expect(t.prs['61']).toMatchObject({ state: 'open', merged: false });
    expect(t.prs['61'].labels).toContain(AWAITING);
    expect(t.prs['61'].checks[SELECTION]).toMatchObject({ conclusion: 'action_required' });
    expect(words(t, 61, 7)).toContain('GitHub took #61 out of the merge queue: "Merge group checks failed"');
  });
});
