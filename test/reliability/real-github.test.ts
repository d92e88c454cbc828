// Real GitHub behaviour in the full app (issue 13): rate limits waited out on the scenario clock,
// a transient 405 on the merge, and the other answers real GitHub gives that a contract alone
// does not show. Each plays the reliability base with a fault and compares with the base.
import { describe, expect, it } from 'vitest';
import { duplicateWrites, loadReliability, MERGE, outcome, play, SLOW, withFaults, writeList } from './helpers.ts';

const COMMENTS = 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments';
const SECONDARY = {
  message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
  documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
};

describe('rate limits (the reliability base)', () => {
  it(
    'two retry-after: 60 answers on the comment write: one comment, written no sooner than 60 s later',
    SLOW,
    async () => {
      const base = await loadReliability('selection');
      const undisturbed = (await play(base)).t;
      const { t } = await play(
        withFaults(base, {
          github: [
            {
              route: COMMENTS,
              status: 403,
              times: 2,
              when: 'before',
              headers: { 'retry-after': '60' },
              body: SECONDARY,
            },
          ],
        }),
      );
      const posts = (x: typeof t) => x.writes.filter((w) => `${w.method} ${w.route}` === COMMENTS);
      const refused = posts(t).filter((w) => w.status === 403);
      const written = posts(t).filter((w) => w.status < 300);
      expect(refused.length).toBeGreaterThanOrEqual(2);
      // The refused comment is written once, and no other comment is added or lost.
      expect(written).toHaveLength(posts(undisturbed).length);
      // Each refusal was waited out on the scenario clock, as GitHub asked: never retried early.
      expect(written[0].at).toBeGreaterThanOrEqual(refused[0].at + 60);
      for (const w of t.writes.filter((x) => x.status < 300 && x.seq > refused[0].seq))
        expect(w.at).toBeGreaterThanOrEqual(refused[0].at + 60);
      expect(t.issues['7'].comments.filter((c) => c.user === 'arbiter[bot]')).toHaveLength(1);
      expect(outcome(t)).toEqual(outcome(undisturbed));
      expect(writeList(t)).toEqual(writeList(undisturbed));
      expect(duplicateWrites(t)).toEqual([]);
    },
  );
});

describe('merging (the reliability base)', () => {
  it('one transient 405 ("Base branch was modified") and then success: ships without a person', SLOW, async () => {
    const base = await loadReliability('selection');
    const body = {
      message: 'Base branch was modified. Review and try the merge again.',
      documentation_url: 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request',
    };
    const { t } = await play(
      withFaults(base, { github: [{ route: `PUT ${MERGE}`, status: 405, times: 1, when: 'before', body }] }),
    );
    const merges = t.writes.filter((w) => w.route === MERGE);
    expect(merges.map((w) => w.status)).toEqual([405, 200]);
    // Tried again after a wait on the scenario clock, not at once.
    expect(merges[1].at).toBeGreaterThan(merges[0].at);
    expect(t.prs['73']).toMatchObject({ state: 'closed', merged: true });
    expect(t.prs['73'].labels).not.toContain('arbiter:awaiting-approval');
    expect(t.prs['73'].comments.map((c) => c.body).join('\n')).not.toMatch(/refused to merge/);
    expect(duplicateWrites(t)).toEqual([]);
  });
});
