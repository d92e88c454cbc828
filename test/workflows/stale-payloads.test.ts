// Workflow tests for webhooks that come late and out of order (issue 13): a pull_request webhook
// says "look again", so the PR's state, draft flag, base and head come from GitHub, never from a
// payload older than what was delivered before it; and a check event for a head not yet recorded
// is kept and applied once that head is recorded.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { onCheckEvent } from '../../src/handlers/checks.ts';
import { onPullRequest } from '../../src/handlers/pull-request.ts';
import { OPEN_STATES } from '../../src/core/types.ts';
import type { ChangeRow } from '../../src/store/types.ts';
import { criteriaHash } from '../../src/workflows/evidence.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub, type FakeCheck } from '../support/fake-github.ts';
import { acceptanceOf, makeWorld, seedGroup, shaOf, type World } from '../support/selection-world.ts';

let opened: OpenedBackend;
let run = 0;
let w: World;
let change: ChangeRow;
let key: string;

const PENDING: FakeCheck[] = [{ name: 'test', conclusion: 'pending' }];
const PASSED: FakeCheck[] = [{ name: 'test', conclusion: 'success' }];

beforeAll(async () => {
  opened = await openBackend('postgres', 'wf-stale-payloads');
});
afterAll(async () => opened?.dispose());

beforeEach(async () => {
  const gh = new FakeGitHub({ repo: `stale-${run++}` });
  gh.permissions.set('maintainer', 'write');
  gh.permissions.set('agent-bot', 'write');
  w = makeWorld({ store: opened.store, gh });
  // #12 has settled (two of three criteria met); #13's CI is still running, so the round waits for it.
  change = await seedGroup(w, {
    siblings: [
      { pr: 12, acceptance: { AC3: 'not_met' } },
      { pr: 13, checks: PENDING, acceptance: null },
    ],
  });
  key = w.ctx('read').key;
});

/** A head the workflows can evaluate without fetching a patch or asking a model: every criterion met. */
async function prepareHead(pr: number, sha: string): Promise<void> {
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

/** The pull_request webhook as GitHub sent it at this moment (the PR as it is now in the fake). */
function pullHook(action: string, pr: number, sender: string): Record<string, unknown> {
  const p = w.gh.pull(pr);
  return {
    action,
    sender: { login: sender },
    pull_request: {
      number: pr,
      state: p.merged ? 'closed' : p.state,
      draft: p.draft,
      merged: p.merged,
      body: p.body,
      user: { login: p.author },
      base: { ref: p.baseRef },
      head: { sha: p.headSha, ref: p.headRef },
      labels: p.labels.map((name) => ({ name })),
    },
  };
}

/** GitHub lists the open pull requests whose head is the check's commit (same repository). */
const checkHook = (sha: string, pulls: number[] = [13]): Record<string, unknown> => ({
  action: 'completed',
  check_run: {
    name: 'test',
    head_sha: sha,
    app: { slug: 'github-actions' },
    pull_requests: pulls.map((number) => ({ number })),
  },
});

const stateOf = async (pr: number): Promise<string | undefined> => (await w.store.getCandidate(key, pr))?.state;
const headOf = async (pr: number): Promise<string | undefined> => (await w.store.getCandidate(key, pr))?.headSha;

/** #13's CI passes and its check_run webhook arrives: the last sibling settles and decides the round. */
async function settle13(): Promise<void> {
  await prepareHead(13, shaOf(13));
  w.gh.pull(13).checks = PASSED;
  await onCheckEvent(w.ctx('ci13'), checkHook(shaOf(13)));
}

async function decision(): Promise<unknown> {
  return (await w.store.currentRound(key, 42, 'main', w.clock.now().toISOString())).decision;
}

describe('a stale pull_request payload never reopens, re-records or closes a candidate', () => {
  it('closed before synchronize: the closed PR does not come back, and the round does not wait for it', async () => {
    w.gh.push(12, shaOf(12, 1), PASSED);
    await prepareHead(12, shaOf(12, 1));
    const synchronize = pullHook('synchronize', 12, 'agent-bot'); // sent while the PR was open
    w.gh.pull(12).state = 'closed';
    await onPullRequest(w.ctx('d-closed'), pullHook('closed', 12, 'maintainer'));
    await onPullRequest(w.ctx('d-sync'), synchronize);
    expect(await stateOf(12)).toBe('withdrawn');
    expect(await headOf(12)).toBe(shaOf(12));
    expect(w.gh.checkOn(12, 'Arbiter / selection', shaOf(12, 1))).toBeUndefined();
    await settle13();
    expect(await decision()).not.toBeNull();
    expect(w.gh.writes).toContain(`merge #13 sha=${shaOf(13)}`);
  });

  it('closed before opened: a PR closed by the time its opened webhook arrives is never recorded', async () => {
    w.gh.addPull({ number: 14, headSha: shaOf(14), author: 'agent-bot', checks: PASSED });
    await prepareHead(14, shaOf(14));
    const openedHook = pullHook('opened', 14, 'agent-bot'); // draft and open when it was sent
    w.gh.pull(14).state = 'closed';
    await onPullRequest(w.ctx('d-closed'), pullHook('closed', 14, 'agent-bot'));
    await onPullRequest(w.ctx('d-opened'), openedHook);
    expect(await stateOf(14)).toBeUndefined();
    await settle13();
    expect(await decision()).not.toBeNull();
    expect(w.gh.writes.filter((l) => l.startsWith('merge'))).toEqual([`merge #13 sha=${shaOf(13)}`]);
  });

  it('an older synchronize after a newer one records only the newest head', async () => {
    w.gh.push(13, shaOf(13, 1), PENDING);
    await prepareHead(13, shaOf(13, 1));
    const older = pullHook('synchronize', 13, 'agent-bot');
    w.gh.push(13, shaOf(13, 2), PENDING);
    await prepareHead(13, shaOf(13, 2));
    await onPullRequest(w.ctx('d-newer'), pullHook('synchronize', 13, 'agent-bot'));
    await onPullRequest(w.ctx('d-older'), older);
    expect(await headOf(13)).toBe(shaOf(13, 2));
    expect(w.gh.checkOn(13, 'Arbiter / selection', shaOf(13, 1))).toBeUndefined();
    expect(w.gh.checkOn(13, 'Arbiter / selection', shaOf(13, 2))?.status).toBe('in_progress');
  });

  it('a closed webhook that arrives after the PR was reopened leaves the candidate in its group', async () => {
    w.gh.pull(13).state = 'closed';
    const closed = pullHook('closed', 13, 'maintainer');
    w.gh.pull(13).state = 'open'; // reopened before the closed webhook was processed
    await onPullRequest(w.ctx('d-closed'), closed);
    expect(OPEN_STATES.has((await stateOf(13)) as never)).toBe(true);
    await settle13();
    expect(await decision()).not.toBeNull();
  });

  it('a PR marked ready before its opened webhook is processed is not recorded from the draft payload', async () => {
    w.gh.addPull({ number: 15, headSha: shaOf(15), author: 'agent-bot', checks: PASSED });
    await prepareHead(15, shaOf(15));
    const openedHook = pullHook('opened', 15, 'agent-bot');
    w.gh.pull(15).draft = false; // a candidate must be a draft when Arbiter first records it
    await onPullRequest(w.ctx('d-opened'), openedHook);
    expect(await stateOf(15)).toBeUndefined();
  });
});

describe('a check event for a head not yet recorded is kept, and applied once the head is recorded', () => {
  const kept = async (sha: string): Promise<number> => {
    const res = await opened.store.db.query('SELECT events FROM kept_check_events WHERE repo = $1 AND head_sha = $2', [
      key,
      sha,
    ]);
    return res.rows.length === 0 ? 0 : Number(res.rows[0]!['events']);
  };

  it("a new head's passing check, delivered before its synchronize, settles the candidate when the head is recorded", async () => {
    w.gh.push(13, shaOf(13, 1), PASSED);
    await prepareHead(13, shaOf(13, 1));
    await onCheckEvent(w.ctx('ci'), checkHook(shaOf(13, 1)));
    await onCheckEvent(w.ctx('ci-copy'), checkHook(shaOf(13, 1)));
    expect(await kept(shaOf(13, 1))).toBe(2);
    expect(await headOf(13)).toBe(shaOf(13));
    await onPullRequest(w.ctx('d-sync'), pullHook('synchronize', 13, 'agent-bot'));
    expect(await kept(shaOf(13, 1))).toBe(0);
    expect(await headOf(13)).toBe(shaOf(13, 1));
    expect(await decision()).not.toBeNull();
    expect(w.gh.writes).toContain(`merge #13 sha=${shaOf(13, 1)}`);
  });

  it('a check GitHub ties to no pull request (CI on the default branch) is not kept', async () => {
    await onCheckEvent(w.ctx('ci-main'), checkHook('d'.repeat(40), []));
    expect(await kept('d'.repeat(40))).toBe(0);
  });

  it('events kept for a head nobody records are dropped after a day by the sweep', async () => {
    await opened.store.keepCheckEvent(
      key,
      'f'.repeat(40),
      new Date(w.clock.now().getTime() - 25 * 3_600_000).toISOString(),
    );
    await opened.store.keepCheckEvent(key, 'e'.repeat(40), w.clock.now().toISOString());
    expect(
      await opened.store.pruneKeptCheckEvents(new Date(w.clock.now().getTime() - 24 * 3_600_000).toISOString()),
    ).toBe(1);
    expect(await kept('f'.repeat(40))).toBe(0);
    expect(await kept('e'.repeat(40))).toBe(1);
  });
});
