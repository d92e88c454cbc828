// Property test (fast-check, seeded): whatever the order in which webhooks arrive, and however
// often each is redelivered, no untrusted author's code is ever in a merge write. The authors of
// the linked PRs are drawn from a trusted agent, listed agents, strangers, a writer whose
// permission cannot be read, and a bot without write access; bots and strangers also approve.
//
// Checked against one mutation, applied in code by the last test of this file (it must make this
// property fail): an untrusted author is admitted (`candidateStanding`, the rule that decides
// whether a linked PR's author makes it a candidate, answers "counts" for everyone). It is applied
// through vitest's module mock below, which exists only in this test build: production code has no
// mutation branch, and with no mutation selected the mock calls the real rule.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseCriteria } from '../../src/core/criteria.ts';
import { onCheckEvent } from '../../src/handlers/checks.ts';
import { onIssues } from '../../src/handlers/issues.ts';
import { onPullRequest } from '../../src/handlers/pull-request.ts';
import { onReview } from '../../src/handlers/review.ts';
import type { ChangeRow } from '../../src/store/types.ts';
import { criteriaHash } from '../../src/workflows/evidence.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { acceptanceOf, configOf, CRITERIA_TEXT, makeWorld, shaOf } from '../support/selection-world.ts';

/** The mutation in force (null: the code as it is). */
const rig = vi.hoisted(() => ({ mutation: null as null | 'admit-untrusted-author' }));

vi.mock(import('../../src/core/trust.ts'), async (importOriginal) => {
  const real = await importOriginal();
  return {
    ...real,
    candidateStanding: (...args: Parameters<typeof real.candidateStanding>) =>
      rig.mutation === 'admit-untrusted-author'
        ? { counts: true as const, via: 'admitted by the mutation' }
        : real.candidateStanding(...args),
  };
});

const BODY = `Please build it.\n\n## Acceptance criteria\n${CRITERIA_TEXT.map((t) => `- [ ] ${t}`).join('\n')}\n`;

/** Authors and whether Arbiter may act for them (the oracle, written out rather than computed). */
const AUTHORS: Record<string, boolean> = {
  'agent-bot': true, // write access (the fake's default)
  'copilot-swe-agent[bot]': true, // listed in trust.agents
  stranger: false, // read
  'drive-by': false, // read
  'flaky-writer': false, // write, but the permission read always fails: never a yes
  'helper[bot]': false, // a bot with read
};
const NAMES = Object.keys(AUTHORS);

type Hook = { event: string; payload: Record<string, unknown> };

const pullPayload = (action: string, pr: number, author: string, sha: string): Hook => ({
  event: 'pull_request',
  payload: {
    action,
    sender: { login: author },
    pull_request: {
      number: pr,
      state: 'open',
      draft: true,
      merged: false,
      body: 'Candidate-for: #42',
      user: { login: author },
      base: { ref: 'main' },
      head: { sha },
      labels: [],
    },
  },
});
const checkPayload = (sha: string): Hook => ({
  event: 'check_run',
  payload: { action: 'completed', check_run: { name: 'test', head_sha: sha, app: { slug: 'ci' } } },
});
const reviewPayload = (pr: number, login: string, bot: boolean): Hook => ({
  event: 'pull_request_review',
  payload: {
    action: 'submitted',
    review: { state: 'approved', body: '', user: { login, type: bot ? 'Bot' : 'User' } },
    pull_request: { number: pr, labels: [{ name: 'arbiter:awaiting-approval' }] },
    sender: { login, type: bot ? 'Bot' : 'User' },
  },
});
const editPayload = (login: string): Hook => ({
  event: 'issues',
  payload: { action: 'edited', issue: { number: 42 }, sender: { login } },
});

const HANDLERS = {
  pull_request: onPullRequest,
  check_run: onCheckEvent,
  pull_request_review: onReview,
  issues: onIssues,
} as const;

const arbCase = fc.record({
  authors: fc.array(fc.constantFrom(...NAMES), { minLength: 2, maxLength: 4 }),
  /** Strangers' candidates meet every criterion; the trusted ones may miss one (so a stranger would outrank). */
  trustedMiss: fc.boolean(),
  order: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
  extra: fc.array(fc.nat({ max: 99 }), { maxLength: 8 }),
});

describe('trust property', () => {
  let opened: OpenedBackend;
  let run = 0;
  beforeAll(async () => {
    opened = await openBackend('postgres', 'wf-trust');
  });
  afterAll(async () => opened?.dispose());

  const property = (endOnFailure = false) =>
    fc.assert(
      fc.asyncProperty(arbCase, async (c) => {
        const gh = new FakeGitHub({ repo: `todo-${run++}` });
        gh.permissions.set('flaky-writer', 'write');
        gh.failingPermissions.add('flaky-writer');
        gh.permissions.set('helper[bot]', 'read');
        const config = configOf({ trust: { agents: ['copilot-swe-agent[bot]'] } });
        const w = makeWorld({ store: opened.store, gh, config });
        const key = `${gh.owner}/${gh.repo}`;
        gh.issues.set(42, { title: 'Calendar', body: BODY, state: 'open' });
        const change = {
          repo: key,
          number: 42,
          installationId: 7,
          title: 'Calendar',
          body: BODY,
          criteria: parseCriteria(BODY),
          state: 'open',
          updatedAt: '',
        } satisfies ChangeRow;
        const hooks: Hook[] = [editPayload('stranger'), editPayload('helper[bot]')];
        const byPr = new Map<number, string>();
        for (const [i, author] of c.authors.entries()) {
          const pr = 100 + i;
          const sha = shaOf(pr);
          byPr.set(pr, author);
          gh.addPull({ number: pr, headSha: sha, author, checks: [{ name: 'test', conclusion: 'success' }] });
          await opened.store.putPatch({
            repo: key,
            pr,
            headSha: sha,
            mergeBase: 'base0000',
            patch: '',
            truncated: false,
            files: [{ path: 'src/calendar.ts', status: 'modified', additions: 10, deletions: 0 }],
          });
          const statuses = AUTHORS[author] && c.trustedMiss ? { AC3: 'not_met' as const } : {};
          await opened.store.putEvidence(key, pr, sha, 'acceptance', {
            ...acceptanceOf(change, statuses),
            criteriaHash: criteriaHash(change),
          });
          hooks.push(pullPayload('opened', pr, author, sha), pullPayload('edited', pr, author, sha), checkPayload(sha));
          hooks.push(
            reviewPayload(pr, 'helper[bot]', true),
            reviewPayload(pr, 'stranger', false),
            reviewPayload(pr, 'renovate[bot]', true),
          );
        }
        // A random order (a permutation drawn from `order`), then redeliveries of random hooks.
        const order = hooks
          .map((h, i) => ({ h, k: c.order[i % c.order.length]! * 1000 + i }))
          .sort((a, b) => a.k - b.k)
          .map((x) => x.h);
        for (const e of c.extra) order.splice(e % (order.length + 1), 0, order[e % order.length]!);
        for (const [i, hook] of order.entries()) {
          await HANDLERS[hook.event as keyof typeof HANDLERS](w.ctx(`delivery:${run}-${i}`), hook.payload);
        }
        const merged = gh.writes.flatMap((line) => /^merge #(\d+)/.exec(line)?.[1] ?? []).map(Number);
        for (const pr of merged) expect(AUTHORS[byPr.get(pr)!], `merged #${pr} by ${byPr.get(pr)}`).toBe(true);
        // An untrusted PR is never a sibling: never closed, labelled or commented on by Arbiter.
        for (const [pr, author] of byPr) {
          if (AUTHORS[author]) continue;
          expect(
            gh.writes.filter((line) => new RegExp(`#${pr}\\b`).test(line) && !line.startsWith('check ')),
            `#${pr}`,
          ).toEqual([]);
        }
      }),
      { numRuns: 25, seed: 11, endOnFailure, includeErrorInReport: endOnFailure },
    );

  it('whatever the order of webhooks, no untrusted author’s code is ever in a merge write', async () => {
    rig.mutation = null;
    await property();
  }, 240_000);

  it('fails when an untrusted author is admitted (mutation)', async () => {
    rig.mutation = 'admit-untrusted-author';
    try {
      await expect(property(true)).rejects.toThrow(/merged #\d+ by (stranger|drive-by|flaky-writer|helper\[bot\])/);
    } finally {
      rig.mutation = null;
    }
  }, 240_000);
});
