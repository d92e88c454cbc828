// The executor looks for the markers of a plan's comments with one read, then writes each comment
// from what it found: edit when Arbiter's marked comment exists (a lost store never repeats it),
// nothing when it is identical, create otherwise. Retries and resumed runs look again.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { GitHubError } from '../../src/github/errors.ts';
import { markerFor } from '../../src/core/render/markers.ts';
import { executePlan } from '../../src/workflows/execute.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { makeWorld, type World } from '../support/selection-world.ts';

const note = (pr: number, text: string, key = `acme/todo#42/r1/note/${pr}`): Action => ({
  kind: 'comment',
  key,
  issue: pr,
  marker: `note:${pr}:r1`,
  body: `${markerFor(`note:${pr}:r1`)}\n${text}`,
});
const BOT = 'arbiter[bot]';

describe('comments of a plan', () => {
  let opened: OpenedBackend;
  let w: World;
  beforeAll(async () => {
    opened = await openBackend('postgres', 'wf-comments');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => {
    await opened.truncate();
    w = makeWorld({ store: opened.store });
    for (const pr of [12, 13, 14]) w.gh.addPull({ number: pr, headSha: `${pr}`.padEnd(40, 'a') });
  });

  it('finds the marked comments of every issue in one read, and edits the one that exists instead of creating it', async () => {
    // The store was lost: #13's note is on GitHub with an older text.
    w.gh.comments.push({ id: 1, issue: 13, user: BOT, body: `${markerFor('note:13:r1')}\nWaiting for #12.` });
    await executePlan(w.ctx('job'), [note(12, 'Lost to #14.'), note(13, 'Lost to #14.'), note(14, 'Shipped.')]);
    expect(w.gh.lookups).toEqual(['comments #12,#13,#14']);
    expect(w.gh.writes).toEqual(['comment #12 note:12:r1', 'edit comment #13 note:13:r1', 'comment #14 note:14:r1']);
    expect(w.gh.commentsOn(13)).toEqual([
      { id: 1, issue: 13, user: BOT, body: `${markerFor('note:13:r1')}\nLost to #14.` },
    ]);
  });

  it('writes nothing when the marked comment already says the same', async () => {
    w.gh.comments.push({ id: 1, issue: 12, user: BOT, body: `${markerFor('note:12:r1')}\nLost to #14.` });
    await executePlan(w.ctx('job'), [note(12, 'Lost to #14.')]);
    expect(w.gh.lookups).toEqual(['comments #12']);
    expect(w.gh.writes).toEqual([]);
  });

  it("another user's comment with the same marker text is not Arbiter's: Arbiter writes its own", async () => {
    w.gh.comments.push({ id: 1, issue: 12, user: 'someone', body: `> ${markerFor('note:12:r1')}\n> Lost to #14.` });
    w.gh.comments.push({ id: 2, issue: 12, user: 'arbiter', body: `${markerFor('note:12:r1')}\nLost to #14.` });
    await executePlan(w.ctx('job'), [note(12, 'Lost to #14.')]);
    expect(w.gh.writes).toEqual(['comment #12 note:12:r1']);
    expect(w.gh.commentsOn(12).map((c) => c.user)).toEqual(['someone', 'arbiter', BOT]);
  });

  it('an issue with more than 100 comments is listed on its own when its comment is written', async () => {
    w.gh.comments.push({ id: 1, issue: 13, user: BOT, body: `${markerFor('note:13:r1')}\nWaiting.` });
    for (let i = 0; i < 100; i++) w.gh.comments.push({ id: 10 + i, issue: 13, user: 'agent', body: `ping ${i}` });
    await executePlan(w.ctx('job'), [note(12, 'Lost.'), note(13, 'Lost.')]);
    expect(w.gh.lookups).toEqual(['comments #12,#13', 'comments #13']);
    expect(w.gh.writes).toEqual(['comment #12 note:12:r1', 'edit comment #13 note:13:r1']);
  });

  it('only comments not yet recorded are looked for', async () => {
    await opened.store.recordAppliedAction('acme/todo#42/r1/note/12', { id: 5, created: true }, '2026-03-02T09:00:00Z');
    await executePlan(w.ctx('job'), [note(12, 'Lost.'), note(13, 'Lost.')]);
    expect(w.gh.lookups).toEqual(['comments #13']);
    expect(w.gh.writes).toEqual(['comment #13 note:13:r1']);
  });

  it('a comment whose answer was lost is looked for again on its retry, and not repeated', async () => {
    w.gh.fail({ match: 'comment #12', status: 502, when: 'after' });
    await executePlan(w.ctx('job'), [note(12, 'Lost.'), note(13, 'Lost.')]);
    expect(w.gh.lookups).toEqual(['comments #12,#13', 'comments #12']);
    expect(w.gh.applied()).toEqual(['comment #12 note:12:r1', 'comment #13 note:13:r1']);
    expect(w.gh.commentsOn(12)).toHaveLength(1);
  });

  it('a run resuming its own claim (it died after writing, before recording) looks again, and does not repeat it', async () => {
    const plan = [note(12, 'Lost.'), note(13, 'Lost.')];
    // The first run claimed and wrote #12's note, then died before recording it.
    await opened.store.recordAppliedAction(
      'claim:action:acme/todo#42/r1/note/12',
      { token: 'job' },
      '2026-03-02T09:00:00Z',
    );
    w.gh.comments.push({ id: 1, issue: 12, user: BOT, body: `${markerFor('note:12:r1')}\nLost.` });
    await executePlan(w.ctx('job'), plan);
    expect(w.gh.lookups).toEqual(['comments #12,#13', 'comments #12']);
    expect(w.gh.writes).toEqual(['comment #13 note:13:r1']);
  });

  it('two comments with the same marker in one plan: the second edits the first', async () => {
    await executePlan(w.ctx('job'), [note(12, 'Waiting.', 'k1'), note(12, 'Lost.', 'k2')]);
    expect(w.gh.lookups).toEqual(['comments #12']);
    expect(w.gh.writes).toEqual(['comment #12 note:12:r1', 'edit comment #12 note:12:r1']);
    expect(w.gh.commentsOn(12)).toHaveLength(1);
  });

  it('when the one read fails, each comment looks for its marker alone', async () => {
    const gh = new FakeGitHub({
      latency: async (call) => {
        if (call.startsWith('comments #12,'))
          throw new GitHubError('find comments', 403, 'Resource not accessible by integration', null);
      },
    });
    w = makeWorld({ store: opened.store, gh });
    gh.comments.push({ id: 1, issue: 13, user: BOT, body: `${markerFor('note:13:r1')}\nWaiting.` });
    await executePlan(w.ctx('job'), [note(12, 'Lost.'), note(13, 'Lost.')]);
    expect(gh.lookups).toEqual(['comments #12', 'comments #13']);
    expect(gh.writes).toEqual(['comment #12 note:12:r1', 'edit comment #13 note:13:r1']);
  });
});
