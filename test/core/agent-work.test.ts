// What holds a candidate that is not CI running (issue 30, items 3 and 4): a work-in-progress
// title (composing) and GitHub Actions runs that wait for a maintainer's approval. Pure tables.
import { describe, expect, it } from 'vitest';
import {
  approvalWords,
  awaitsWorkflowApproval,
  isComposing,
  mention,
  stillWorking,
  workInProgressMarker,
  type SuiteSeen,
} from '../../src/core/agent-work.ts';
import { checkOutcome, computeGate, timeOutGate } from '../../src/core/gate.ts';
import { agentHold, composingTimedOut, planAgentHold, planHoldCleared } from '../../src/core/plan/agent-hold.ts';
import type { ObservedCheck } from '../../src/core/types.ts';

describe('the work-in-progress marker', () => {
  it.each([
    // Copilot's own titles while it works, and the common forms, in any case.
    ['[WIP] Add new memory node for GitHub Agent Test', '[WIP]'],
    ['[wip] search', '[wip]'],
    ['[ WIP ] search', '[ WIP ]'],
    ['  [WIP] leading space', '[WIP]'],
    ['WIP: export', 'WIP:'],
    ['wip: export', 'wip:'],
    ['WIP : spaced colon', 'WIP :'],
    ['Draft: search the todo list', 'Draft:'],
    ['DRAFT: upper case', 'DRAFT:'],
    // Not a marker: a title that is done, a marker later in the title, a word that starts alike.
    ['Search the todo list, ignoring case', null],
    ['Fix [WIP] handling in the parser', null],
    ['WIPE the cache on logout', null],
    ['Drafting docs for the search', null],
    ['Draft of the search', null],
    ['WIP export without a colon', null],
    ['', null],
  ])('%j → %j', (title, marker) => {
    expect(workInProgressMarker(title)).toBe(marker);
    expect(isComposing(title)).toBe(marker !== null);
  });

  it.each([
    ['Copilot', '@Copilot'],
    ['anthropic-code-agent[bot]', '@anthropic-code-agent'],
    ['octocat', '@octocat'],
  ])('mentions %s as %s', (login, at) => expect(mention(login)).toBe(at));

  it('says who is still working on which candidate', () => {
    expect(stillWorking('Copilot', 101)).toBe('@Copilot is still working on #101');
  });
});

const suite = (app: string | null, status: string | null, conclusion: string | null, runs: number): SuiteSeen => ({
  app,
  status,
  conclusion,
  runs,
});

describe("runs that wait for a maintainer's approval", () => {
  it.each([
    // GitHub's state for a bot's or a first-time contributor's push: Actions, action_required, no job run.
    [
      'Actions suite action_required with no run (REST casing)',
      [suite('github-actions', 'completed', 'action_required', 0)],
      true,
    ],
    ['the same in GraphQL casing', [suite('github-actions', 'COMPLETED', 'ACTION_REQUIRED', 0)], true],
    [
      'next to another app that passed',
      [suite('ci', 'completed', 'success', 2), suite('github-actions', 'completed', 'action_required', 0)],
      true,
    ],
    // A real conclusion: a run ran and asked for an action; that stays a failure of that check.
    [
      'Actions suite action_required that holds a run',
      [suite('github-actions', 'completed', 'action_required', 1)],
      false,
    ],
    // Another app's action_required is that app's verdict, not GitHub holding workflow runs.
    ['another app, no run', [suite('ci', 'completed', 'action_required', 0)], false],
    ['no app known', [suite(null, 'completed', 'action_required', 0)], false],
    // An Actions suite still queued (approved, or a push with no workflow) waits for nobody.
    ['Actions suite queued, no run', [suite('github-actions', 'queued', null, 0)], false],
    ['Actions suite that passed', [suite('github-actions', 'completed', 'success', 3)], false],
    ['no suites', [], false],
  ])('%s → %s', (_what, suites, expected) => expect(awaitsWorkflowApproval(suites)).toBe(expected));

  it('says what to approve, and where when the address is known', () => {
    expect(approvalWords('https://ghe.example.com/acme/todo/pull/22')).toBe(
      `GitHub Actions runs wait for a maintainer's approval: "Approve and run workflows" on the pull request (https://ghe.example.com/acme/todo/pull/22)`,
    );
    expect(approvalWords(null)).not.toContain('(');
  });
});

const run = (name: string, status: string, conclusion: string | null): ObservedCheck => ({
  name,
  kind: 'check',
  raw: conclusion ?? status,
  outcome: checkOutcome('check', status, conclusion),
  title: null,
  summary: null,
});
const gateOf = (observed: ObservedCheck[], configured: string[], awaiting: boolean) =>
  computeGate({
    configured,
    branchRequired: null,
    observed,
    scoreCheck: null,
    awaitingApproval: awaiting ? { url: 'https://github.com/acme/todo/pull/22' } : null,
  });

describe('the gate of a head whose Actions runs wait for approval', () => {
  it('is waiting, not failed, and says what to approve', () => {
    const gate = gateOf([], ['test'], true);
    expect(gate).toMatchObject({ settled: false, promotable: false, awaitingApproval: { url: expect.any(String) } });
    expect(gate.reason).toContain(
      '"Approve and run workflows" on the pull request (https://github.com/acme/todo/pull/22)',
    );
  });

  it('does not settle on what passed so far: the held runs are CI too', () => {
    // Every check reported passed (another CI), but the Actions runs have not run.
    const gate = gateOf([run('lint', 'completed', 'success')], [], true);
    expect(gate.settled).toBe(false);
    expect(gateOf([run('lint', 'completed', 'success')], [], false).promotable).toBe(true);
  });

  it('a check that failed still fails: the wait does not hide it', () => {
    const gate = gateOf([run('test', 'completed', 'failure')], ['test'], true);
    expect(gate).toMatchObject({ settled: true, promotable: false, reason: 'required check `test` failed' });
    expect(gate.awaitingApproval).toBeUndefined();
  });

  it('a check run that concluded action_required is a failure', () => {
    expect(gateOf([run('test', 'completed', 'action_required')], ['test'], false)).toMatchObject({
      settled: true,
      promotable: false,
    });
  });

  it('is never timed out by the sweep', () => {
    const gate = gateOf([], ['test'], true);
    expect(timeOutGate(gate)).toBe(gate);
    expect(timeOutGate(gateOf([], ['test'], false))).toMatchObject({ settled: true, timedOut: true });
  });
});

describe('the hold on a candidate', () => {
  const waiting = gateOf([], ['test'], true);
  const passed = gateOf([run('test', 'completed', 'success')], ['test'], false);

  it.each([
    ['[WIP] Search', passed, 'composing', '@Copilot is still working on #101'],
    ['[WIP] Search', waiting, 'composing', '@Copilot is still working on #101'],
    ['Search', waiting, 'approval', waiting.reason],
    ['Search', passed, null, null],
  ] as const)('%j with %#', (title, gate, kind, words) => {
    const hold = agentHold({ pr: 101, author: 'Copilot', title, gate });
    expect(hold?.kind ?? null).toBe(kind);
    expect(hold?.words ?? null).toBe(words);
  });

  it('plans the selection check and the stored reason once per head, the reason only while verifying', () => {
    const hold = { kind: 'composing' as const, words: '@Copilot is still working on #101' };
    const input = { repo: 'acme/todo', change: 8, pr: 101, headSha: 'abc', hold };
    const actions = planAgentHold({ ...input, state: 'verifying' });
    expect(actions.map((a) => [a.kind, a.key])).toEqual([
      ['check-run', 'acme/todo#8/hold/101@abc/composing/selection'],
      ['set-state', 'acme/todo#8/hold/101@abc/composing/reason'],
    ]);
    expect(actions[0]).toMatchObject({ name: 'Arbiter / selection', status: 'in_progress', title: hold.words });
    expect(planAgentHold({ ...input, state: 'verified' }).map((a) => a.kind)).toEqual(['check-run']);
  });

  it.each([
    ['2026-01-01T00:00:00Z', '2026-01-01T00:14:59Z', false],
    ['2026-01-01T00:00:00Z', '2026-01-01T00:15:00Z', true],
  ])('a head seen at %s holds a 900 s round at %s: timed out %s', (seen, now, out) =>
    expect(composingTimedOut(seen, 900, now)).toBe(out),
  );

  it.each([
    ['@Copilot is still working on #101', 'verifying', true],
    [approvalWords('https://github.com/acme/todo/pull/101'), 'verifying', true],
    // Another reason (a new head's), someone else's phrase, or a settled candidate: left alone.
    ['new commits', 'verifying', false],
    ['@octocat is still working on #101', 'verifying', false],
    ['@Copilot is still working on #101', 'verified', false],
  ])('a hold that ended clears the stored reason %j (%s): %s', (reason, state, cleared) => {
    const actions = planHoldCleared({
      repo: 'acme/todo',
      change: 8,
      pr: 101,
      headSha: 'abc',
      author: 'Copilot',
      reason,
      state,
    });
    expect(actions).toEqual(
      cleared
        ? [{ kind: 'set-state', key: 'acme/todo#8/hold/101@abc/cleared', pr: 101, state: 'verifying', reason: '' }]
        : [],
    );
  });
});
