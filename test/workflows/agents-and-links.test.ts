// Workflow tests for real agents' pull requests: an agent trusted by its built-in name in every
// login form, an unlisted bot told which config line would trust it, a link GitHub reports
// (sidebar, no keyword in the body) picked up at the PR's next event, and `/arbiter link #N`.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { onPullRequest } from '../../src/handlers/pull-request.ts';
import type { ChangeRow } from '../../src/store/types.ts';
import { OPEN_STATES } from '../../src/core/types.ts';
import { linkPull, pickUpLinkedPulls } from '../../src/workflows/link.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { configOf, makeWorld, seedGroup, shaOf, type World } from '../support/selection-world.ts';

let opened: OpenedBackend;
let run = 0;
let w: World;
let change: ChangeRow;

beforeAll(async () => {
  opened = await openBackend('postgres', 'wf-agents-links');
});
afterAll(async () => opened?.dispose());

beforeEach(async () => {
  const gh = new FakeGitHub({ repo: `agents-${run++}` });
  gh.permissions.set('maintainer', 'write');
  w = makeWorld({ store: opened.store, gh, config: configOf({ trust: { agents: ['copilot', 'claude'] } }) });
  change = await seedGroup(w, { siblings: [] });
  await prepare([101, 0], [104, 0], [105, 0], [105, 1], [107, 0], [110, 0], [111, 0]);
});

const PENDING = [{ name: 'test', conclusion: 'pending' }];

/** Each head's patch is stored, so recording it reads no diff. */
async function prepare(...heads: [number, number][]): Promise<void> {
  for (const [pr, v] of heads)
    await w.store.putPatch({
      repo: w.ctx('seed').key,
      pr,
      headSha: shaOf(pr, v),
      mergeBase: 'base0000',
      patch: '',
      truncated: false,
      files: [{ path: 'src/calendar.ts', status: 'modified', additions: 3, deletions: 0 }],
    });
}

function pullHook(action: string, pr: number, sender: string): Record<string, unknown> {
  const p = w.gh.pull(pr);
  return {
    action,
    sender: { login: sender },
    pull_request: { number: pr, body: p.body },
  };
}

const stateOf = async (pr: number): Promise<string | undefined> =>
  (await w.store.getCandidate(w.ctx('read').key, pr))?.state;
const inGroup = async (pr: number): Promise<boolean> => OPEN_STATES.has(((await stateOf(pr)) ?? 'none') as never);

const COPILOT_BODY = [
  "Thanks for assigning this issue to me. I'm starting to work on it.",
  '',
  '<details>',
  '<summary>Original prompt</summary>',
  '',
  '> Fixes #41 (quoted from the issue)',
  '</details>',
  '',
  '- Fixes acme/todo#42',
].join('\n');

describe('agents by identity', () => {
  it.each(['Copilot', 'copilot-swe-agent[bot]', 'anthropic-code-agent[bot]'])(
    '%s is a candidate with `trust.agents: [copilot, claude]`, without a permission read',
    async (author) => {
      w.gh.addPull({ number: 101, headSha: shaOf(101), author, body: 'Candidate-for: #42', checks: PENDING });
      await onPullRequest(w.ctx('d1'), pullHook('opened', 101, author));
      expect(await inGroup(101)).toBe(true);
      expect([...w.gh.reads, ...w.gh.lookups].some((r) => r.startsWith('permission'))).toBe(false);
    },
  );

  it('an unlisted bot gets "Not a candidate" naming the config line that would trust it', async () => {
    w.gh.addPull({ number: 102, headSha: shaOf(102), author: 'google-labs-jules[bot]', checks: PENDING });
    await onPullRequest(w.ctx('d1'), pullHook('opened', 102, 'google-labs-jules[bot]'));
    expect(await stateOf(102)).toBeUndefined();
    const check = w.gh.checkOn(102, 'Arbiter / selection');
    expect(check?.conclusion).toBe('neutral');
    expect(check?.title).toBe(
      'Not a candidate: @google-labs-jules[bot] is not a listed agent; add `trust.agents: [jules]` to trust it',
    );
    expect(check?.title).not.toContain('could not be read');

    w.gh.addPull({ number: 103, headSha: shaOf(103), author: 'stranger-agent[bot]', checks: PENDING });
    await onPullRequest(w.ctx('d2'), pullHook('opened', 103, 'stranger-agent[bot]'));
    expect(w.gh.checkOn(103, 'Arbiter / selection')?.title).toContain("`trust.agents: ['stranger-agent[bot]']`");
  });
});

describe('links the way GitHub reads them', () => {
  it("Copilot's body links through its last line, not through the quoted prompt", async () => {
    w.gh.addPull({ number: 104, headSha: shaOf(104), author: 'Copilot', body: COPILOT_BODY, checks: PENDING });
    // GitHub's closing list names #42 only: the quote inside <details> does not link.
    w.gh.pull(104).closing = [42];
    await onPullRequest(w.ctx('d1'), pullHook('opened', 104, 'Copilot'));
    expect((await w.store.getCandidate(w.ctx('read').key, 104))?.change).toBe(change.number);
  });

  it('a sidebar link (no keyword in the body) is picked up at the next event', async () => {
    w.gh.addPull({ number: 105, headSha: shaOf(105), author: 'Copilot', body: 'Work in progress', checks: PENDING });
    await onPullRequest(w.ctx('d1'), pullHook('opened', 105, 'Copilot'));
    expect(await stateOf(105)).toBeUndefined();
    w.gh.pull(105).closing = [42]; // linked in the Development sidebar: no webhook
    w.gh.push(105, shaOf(105, 1), PENDING);
    await onPullRequest(w.ctx('d2'), pullHook('synchronize', 105, 'Copilot'));
    expect(await inGroup(105)).toBe(true);
  });

  it('two issues in the closing list link none', async () => {
    w.gh.addPull({ number: 106, headSha: shaOf(106), author: 'Copilot', body: '', checks: PENDING });
    w.gh.pull(106).closing = [42, 43];
    await onPullRequest(w.ctx('d1'), pullHook('opened', 106, 'Copilot'));
    expect(await stateOf(106)).toBeUndefined();
  });

  it('`/arbiter link #N` links a pull request that names no issue at once', async () => {
    w.gh.addPull({ number: 107, headSha: shaOf(107), author: 'Copilot', body: 'Done.', checks: PENDING });
    await onPullRequest(w.ctx('d1'), pullHook('opened', 107, 'Copilot'));
    expect(await stateOf(107)).toBeUndefined();
    const reply = await linkPull(w.ctx('d2'), 107, true, 'maintainer', 42);
    expect(reply).toMatchObject({ ok: true });
    expect(reply.message).toContain('it is a candidate for #42');
    expect(await inGroup(107)).toBe(true);
    // Said again: nothing more to do.
    expect(await linkPull(w.ctx('d3'), 107, true, 'maintainer', 42)).toEqual({
      ok: true,
      message: '#107 is already a candidate for #42.',
    });
    // A candidate keeps its Change.
    expect(await linkPull(w.ctx('d4'), 107, true, 'maintainer', 43)).toMatchObject({
      ok: false,
      code: 'already_a_candidate',
    });
  });

  it('`/arbiter link` refuses an issue that is not open or not there', async () => {
    w.gh.addPull({ number: 108, headSha: shaOf(108), author: 'Copilot', body: 'Done.', checks: PENDING });
    expect(await linkPull(w.ctx('d1'), 108, true, 'maintainer', 999)).toMatchObject({
      ok: false,
      code: 'not_an_issue',
    });
    expect(await linkPull(w.ctx('d2'), 42, false, 'maintainer', 42)).toMatchObject({
      ok: false,
      code: 'not_a_pull_request',
    });
    expect(await stateOf(108)).toBeUndefined();
  });

  it("`/arbiter link` on an unlisted bot's PR records the link; its check names the config line", async () => {
    w.gh.addPull({ number: 109, headSha: shaOf(109), author: 'devin-ai-integration[bot]', body: '', checks: PENDING });
    const reply = await linkPull(w.ctx('d1'), 109, true, 'maintainer', 42);
    expect(reply.message).toContain('it is not a candidate');
    expect(w.gh.checkOn(109, 'Arbiter / selection')?.title).toContain('`trust.agents: [devin]`');
  });

  it('the sweep records a pull request linked in the sidebar, with no event of its own', async () => {
    w.gh.addPull({ number: 110, headSha: shaOf(110), author: 'Copilot', body: 'Done.', checks: PENDING });
    w.gh.addPull({ number: 111, headSha: shaOf(111), author: 'Copilot', body: 'Also done.', checks: PENDING });
    w.gh.pull(110).closing = [42];
    await pickUpLinkedPulls(w.ctx('sweep-1'), 42);
    expect(await inGroup(110)).toBe(true);
    expect(await stateOf(111)).toBeUndefined();
    // Recorded ones cost no second read of the pull request.
    const reads = w.gh.reads.length;
    await pickUpLinkedPulls(w.ctx('sweep-2'), 42);
    expect(w.gh.reads.slice(reads)).toEqual(['graphql ArbiterLinkedPulls #42']);
  });
});
