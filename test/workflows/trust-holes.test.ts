// Workflow tests for the trust rule at its edges: an admission covers the head it vouched for, the
// criteria come only from bodies trusted accounts wrote, the selection label counts only from a
// trusted sender, and a stale payload never brings back a candidate that left its group.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { onIssues } from '../../src/handlers/issues.ts';
import { onPullRequest } from '../../src/handlers/pull-request.ts';
import type { ChangeRow } from '../../src/store/types.ts';
import { admitPull } from '../../src/workflows/adopt.ts';
import { OPEN_STATES } from '../../src/core/types.ts';
import { criteriaHash } from '../../src/workflows/evidence.ts';
import { explore } from '../../src/workflows/portfolio.ts';
import { adoptedBy } from '../../src/workflows/trust.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { acceptanceOf, configOf, makeWorld, seedGroup, shaOf, type World } from '../support/selection-world.ts';

let opened: OpenedBackend;
let run = 0;
let w: World;
let change: ChangeRow;
const LABEL = 'arbiter:candidate';

beforeAll(async () => {
  opened = await openBackend('postgres', 'wf-trust-holes');
});
afterAll(async () => opened?.dispose());

beforeEach(async () => {
  const gh = new FakeGitHub({ repo: `holes-${run++}` });
  gh.permissions.set('maintainer', 'write');
  gh.permissions.set('agent-bot', 'write');
  w = makeWorld({ store: opened.store, gh, config: configOf({ selection: { label: LABEL } }) });
  change = await seedGroup(w, { siblings: [] });
});

/** A head the workflows can evaluate without reading a patch or asking a model. */
async function prepareHead(pr: number, sha: string): Promise<void> {
  const key = w.ctx('seed').key;
  await w.store.putPatch({
    repo: key,
    pr,
    headSha: sha,
    mergeBase: 'base0000',
    patch: '',
    truncated: false,
    files: [{ path: 'src/calendar.ts', status: 'modified', additions: 3, deletions: 0 }],
  });
  await w.store.putEvidence(key, pr, sha, 'acceptance', {
    ...acceptanceOf(change, {}),
    criteriaHash: criteriaHash(change),
  });
}

function pullHook(
  action: string,
  pr: number,
  sender: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const p = w.gh.pull(pr);
  return {
    action,
    sender: { login: sender },
    ...extra,
    pull_request: {
      number: pr,
      state: 'open',
      draft: p.draft,
      merged: false,
      body: p.body,
      user: { login: p.author },
      base: { ref: p.baseRef },
      head: { sha: p.headSha },
      labels: p.labels.map((name) => ({ name })),
    },
  };
}

const PENDING = [{ name: 'test', conclusion: 'pending' }];
/** Recorded and in its group (CI still running, so nothing is decided). */
const inGroup = async (pr: number): Promise<boolean> => OPEN_STATES.has(((await stateOf(pr)) ?? 'none') as never);
const stateOf = async (pr: number): Promise<string | undefined> =>
  (await w.store.getCandidate(w.ctx('read').key, pr))?.state;

describe('an admission covers the head it vouched for', () => {
  it("an admitted stranger's new head leaves the comparison until a maintainer admits it", async () => {
    w.gh.addPull({ number: 101, headSha: shaOf(101), author: 'stranger', checks: PENDING });
    await prepareHead(101, shaOf(101));
    await onPullRequest(w.ctx('d1'), pullHook('opened', 101, 'stranger'));
    expect(await stateOf(101)).toBeUndefined();
    expect((await admitPull(w.ctx('d2'), 101, true, 'maintainer')).ok).toBe(true);
    expect(await inGroup(101)).toBe(true);

    w.gh.push(101, shaOf(101, 1), PENDING);
    await prepareHead(101, shaOf(101, 1));
    await onPullRequest(w.ctx('d3'), pullHook('synchronize', 101, 'stranger'));
    expect(await stateOf(101)).toBe('withdrawn');
    const check = w.gh.checkOn(101, 'Arbiter / selection', shaOf(101, 1));
    expect(check?.conclusion).toBe('neutral');
    expect(check?.title).toContain('new head is not admitted');
    expect(w.gh.writes.some((l) => l.startsWith('merge'))).toBe(false);

    expect(await admitPull(w.ctx('d4'), 101, true, 'maintainer')).toMatchObject({ ok: true });
    const back = await w.store.getCandidate(w.ctx('read').key, 101);
    expect(back?.headSha).toBe(shaOf(101, 1));
    expect(await inGroup(101)).toBe(true);
  });

  it("a trusted author's new head is unaffected", async () => {
    w.gh.addPull({ number: 102, headSha: shaOf(102), author: 'agent-bot', checks: PENDING });
    await prepareHead(102, shaOf(102));
    await onPullRequest(w.ctx('d1'), pullHook('opened', 102, 'agent-bot'));
    w.gh.push(102, shaOf(102, 1), [{ name: 'test', conclusion: 'pending' }]);
    await prepareHead(102, shaOf(102, 1));
    await onPullRequest(w.ctx('d2'), pullHook('synchronize', 102, 'agent-bot'));
    expect((await w.store.getCandidate(w.ctx('read').key, 102))?.headSha).toBe(shaOf(102, 1));
    expect(await inGroup(102)).toBe(true);
  });

  it('an admission of a PR that links nothing does not cover a link edited in later', async () => {
    w.gh.addPull({
      number: 103,
      headSha: shaOf(103),
      author: 'stranger',
      body: 'Some work',
      checks: [{ name: 'test', conclusion: 'success' }],
    });
    await prepareHead(103, shaOf(103));
    expect((await admitPull(w.ctx('d1'), 103, true, 'maintainer')).ok).toBe(false);
    w.gh.pull(103).body = 'Candidate-for: #42';
    await onPullRequest(w.ctx('d2'), pullHook('edited', 103, 'stranger'));
    expect(await stateOf(103)).toBeUndefined();
    expect(w.gh.checkOn(103, 'Arbiter / selection')?.title).toContain('Not a candidate: @stranger has no write access');
  });
});

describe('the criteria come only from bodies trusted accounts wrote', () => {
  const hacked = 'Please build it.\n\n## Acceptance criteria\n- [ ] Anything at all\n';
  const edit = (login: string, body: string | null): Record<string, unknown> => ({
    action: 'edited',
    issue: { number: 42, title: change.title, body: body ?? w.gh.issues.get(42)!.body, state: 'open' },
    changes: body === null ? { title: { from: 'Old title' } } : { body: { from: change.body } },
    sender: { login },
  });

  it("a trusted title edit does not land a stranger's earlier body rewrite", async () => {
    w.gh.issues.get(42)!.body = hacked; // the stranger's rewrite, live on GitHub
    await onIssues(w.ctx('d1'), edit('stranger', hacked));
    await onIssues(w.ctx('d2'), edit('maintainer', null));
    const stored = await w.store.getChange(w.ctx('read').key, 42);
    expect(stored?.criteria.map((c) => c.text)).toEqual(change.criteria.map((c) => c.text));
  });

  it("a stranger's body edit is answered once, through the executor, and changes no criterion", async () => {
    w.gh.issues.get(42)!.body = hacked;
    await onIssues(w.ctx('d1'), edit('stranger', hacked));
    await onIssues(w.ctx('d1'), edit('stranger', hacked)); // the same delivery again
    expect(w.gh.applied().filter((line) => line.startsWith('comment #42 '))).toEqual(['comment #42 trust-edit:d1']);
    const stored = await w.store.getChange(w.ctx('read').key, 42);
    expect(stored?.criteria.map((c) => c.text)).toEqual(change.criteria.map((c) => c.text));
  });

  it('a trusted body edit sets the criteria from the body it wrote, not the live one', async () => {
    const mine = 'Please build it.\n\n## Acceptance criteria\n- [ ] The calendar shows weeks\n';
    w.gh.issues.get(42)!.body = hacked; // an untrusted edit landed after the maintainer's
    await onIssues(w.ctx('d1'), edit('maintainer', mine));
    const stored = await w.store.getChange(w.ctx('read').key, 42);
    expect(stored?.criteria.map((c) => c.text)).toEqual(['The calendar shows weeks']);
  });
});

describe('the selection label counts only from a trusted sender', () => {
  it('a stranger labelling a ready PR does not make it a candidate; a maintainer does', async () => {
    w.gh.addPull({
      number: 104,
      headSha: shaOf(104),
      author: 'agent-bot',
      draft: false,
      labels: [LABEL],
      checks: PENDING,
    });
    await prepareHead(104, shaOf(104));
    await onPullRequest(w.ctx('d1'), pullHook('labeled', 104, 'stranger', { label: { name: LABEL } }));
    await onPullRequest(w.ctx('d2'), pullHook('edited', 104, 'agent-bot'));
    expect(await stateOf(104)).toBeUndefined();
    await onPullRequest(w.ctx('d3'), pullHook('labeled', 104, 'maintainer', { label: { name: LABEL } }));
    expect(await inGroup(104)).toBe(true);
  });
});

describe('a stale payload never brings back a candidate that left its group', () => {
  async function withdrawn(pr: number): Promise<void> {
    w.gh.addPull({ number: pr, headSha: shaOf(pr), author: 'agent-bot', checks: PENDING });
    await prepareHead(pr, shaOf(pr));
    await onPullRequest(w.ctx(`o${pr}`), pullHook('opened', pr, 'agent-bot'));
    w.gh.pull(pr).state = 'closed';
    await onPullRequest(w.ctx(`c${pr}`), {
      ...pullHook('closed', pr, 'maintainer'),
      pull_request: { ...(pullHook('closed', pr, 'maintainer').pull_request as object), state: 'closed' },
    });
    expect(await stateOf(pr)).toBe('withdrawn');
  }

  it('a delayed edited or reopened delivery for a closed PR changes nothing', async () => {
    await withdrawn(105);
    await onPullRequest(w.ctx('d1'), pullHook('edited', 105, 'agent-bot'));
    await onPullRequest(w.ctx('d2'), pullHook('labeled', 105, 'maintainer', { label: { name: 'x' } }));
    await onPullRequest(w.ctx('d3'), pullHook('reopened', 105, 'maintainer')); // GitHub says it is closed
    expect(await stateOf(105)).toBe('withdrawn');
  });

  it('a reopened PR, open on GitHub, comes back', async () => {
    await withdrawn(106);
    w.gh.pull(106).state = 'open';
    await onPullRequest(w.ctx('d1'), pullHook('reopened', 106, 'maintainer'));
    expect(await inGroup(106)).toBe(true);
  });

  it('a promoted candidate is never recorded again', async () => {
    w.gh.addPull({ number: 107, headSha: shaOf(107), author: 'agent-bot' });
    await w.store.upsertCandidate({
      repo: w.ctx('s').key,
      pr: 107,
      change: 42,
      base: 'main',
      headSha: shaOf(107),
      author: 'agent-bot',
      state: 'promoted',
      reason: 'merged',
      headSeenAt: w.clock.now().toISOString(),
    });
    await onPullRequest(w.ctx('d1'), pullHook('reopened', 107, 'maintainer'));
    await onPullRequest(w.ctx('d2'), pullHook('synchronize', 107, 'agent-bot'));
    expect(await stateOf(107)).toBe('promoted');
  });
});

describe('explore records the adoption of an issue nobody trusted opened', () => {
  it('the maintainer who runs it adopts the issue, as track would', async () => {
    w.gh.permissions.set('maintainer', 'read'); // the fake's issues are opened by @maintainer
    w.gh.permissions.set('lead', 'write');
    w.gh.issues.set(43, { title: 'Dark mode', body: '## Acceptance criteria\n- [ ] A dark theme\n', state: 'open' });
    const t = {
      owner: w.gh.owner,
      repo: w.gh.repo,
      installationId: 7,
      issueNumber: 43,
      isPullRequest: false,
      user: 'lead',
      userIsBot: false,
      commentId: 1,
      commentBody: '/arbiter explore',
      source: 'comment' as const,
    };
    await explore(w.ctx('d1'), t, null);
    expect(await adoptedBy(w.ctx('read'), 43)).toBe('lead');
    expect((await w.store.getChange(w.ctx('read').key, 43))?.criteria.map((c) => c.text)).toEqual(['A dark theme']);
  });
});
