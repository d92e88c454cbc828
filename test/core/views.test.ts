// Every view is current (issue 25): the views planner renders a decided round's comparison, gate
// comments and notes again for the state it reached, and the gate after a repair timeout is the
// same human gate as the first round's. Bodies are read as GitHub renders them (micromark + GFM).
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { planSelection, type SelectionInput } from '../../src/core/plan/selection.ts';
import { planRepairTimeout } from '../../src/core/plan/sweep.ts';
import { planRoundViews, type RoundEnd } from '../../src/core/plan/views.ts';
import { rankCandidates } from '../../src/core/rank.ts';
import { CandidateEvidence, type Criterion, type CriterionStatus } from '../../src/core/types.ts';
import { SELECTION_BUTTONS } from '../../src/core/buttons.ts';
import { diagnose } from '../../src/judge/diagnostics.ts';
import { renderGfm, structureOf } from '../support/gfm.ts';
import { configOf } from '../support/selection-world.ts';

const REPO_URL = 'https://github.com/acme/planner';
const CRITERIA: Criterion[] = [
  { id: 'AC1', text: 'The home page shows a calendar of the current month.', check: null },
  { id: 'AC2', text: 'Each day of the calendar holds a kanban list.', check: null },
];

function evidence(pr: number, statuses: CriterionStatus[]): CandidateEvidence {
  return CandidateEvidence.parse({
    pr,
    headSha: `sha-${pr}`,
    gate: {
      required: [{ name: 'test', outcome: 'pass', raw: 'success' }],
      source: 'config',
      settled: true,
      promotable: true,
      reason: 'every required check passed',
      passingChecks: 1,
      score: null,
    },
    acceptance: {
      status: 'fail',
      results: CRITERIA.map((c, i) => ({ id: c.id, status: statuses[i], citation: null, reason: '' })),
    },
    changedPaths: ['src/calendar.ts'],
    changedLines: 40,
    author: `agent-${pr}`,
  });
}

function input(repair: boolean): SelectionInput {
  const siblings = [evidence(13, ['met', 'not_met']), evidence(12, ['not_met', 'not_met'])];
  return {
    repo: 'acme/planner',
    change: { number: 42, title: 'Calendar view', criteria: CRITERIA },
    round: 1,
    base: 'main',
    siblings,
    ranking: rankCandidates(siblings),
    judge: null,
    diagnostics: diagnose({ evidence: siblings, judge: null }),
    config: configOf({ repair: { enabled: repair, timeout: 600 } }),
    repairAvailable: repair,
    reviewers: { users: ['maintainer'], teams: [] },
    branch: { requiredReviews: 0, mergeQueue: false },
    drafts: [],
    now: '2026-01-01T00:00:00.000Z',
    buttons: [...SELECTION_BUTTONS],
    display: { repoUrl: REPO_URL, titles: { '13': 'Calendar', '12': 'Kanban' }, earlier: [] },
  };
}

type Comment = Extract<Action, { kind: 'comment' }>;
type Check = Extract<Action, { kind: 'check-run' }>;
const comments = (actions: Action[]): Comment[] => actions.filter((a): a is Comment => a.kind === 'comment');
const selectionCheck = (actions: Action[], pr: number): Check => {
  const check = actions.find((a): a is Check => a.kind === 'check-run' && a.pr === pr);
  if (!check) throw new Error(`no selection check on #${pr}`);
  return check;
};

/** The shape of a rendered body: its block tags in order (headings, paragraphs, lists, items). */
const skeleton = (markdown: string): string[] =>
  [...renderGfm(markdown).matchAll(/<(h\d|p|ul|ol|li|table|details)\b/g)].map((m) => m[1]);

/** The headline of a comparison, as a reader sees it (the bold paragraph under the heading). */
const headlineOf = (actions: Action[]): string => {
  const body = comments(actions).find((c) => c.marker === 'comparison:42@main')?.body ?? '';
  return structureOf(/\*\*(.+)\*\*/.exec(body)?.[0] ?? '').visible.trim();
};

const repairPlan = planSelection(input(true));
const timeout = planRepairTimeout({
  repo: 'acme/planner',
  change: 42,
  round: 1,
  base: 'main',
  repairOf: { pr: 13, rejected: false },
  targets: [{ pr: 13, headSha: 'sha-13' }],
  reviewers: { users: ['maintainer'], teams: [] },
  timeout: 600,
  prefix: '/arbiter',
  decided: repairPlan,
  buttons: [...SELECTION_BUTTONS],
  now: '2026-01-01T00:11:00.000Z',
});

describe('the gate after a repair timeout', () => {
  const first = planSelection(input(false));
  it('has the same parts as the first-round gate: criteria by why, the mention, the commands, the Promote button, one conclusion', () => {
    expect(repairPlan.verdict.kind).toBe('repair');
    expect(first.verdict.kind).toBe('human');
    const firstGate = comments(first.actions).find((c) => c.marker === 'gate:13');
    const timeoutGate = comments(timeout.actions).find((c) => c.marker === 'gate:13');
    if (!firstGate || !timeoutGate) throw new Error('a gate comment is missing');
    expect(skeleton(timeoutGate.body)).toEqual(skeleton(firstGate.body));
    for (const body of [firstGate.body, timeoutGate.body]) {
      const { visible } = structureOf(body);
      expect(visible).toContain('@maintainer: your decision is needed.');
      expect(visible).toContain('Not met (the change does not do this): AC2');
      expect(visible).toContain('comment /arbiter promote on #13');
      expect(visible).toContain('press Promote on its Arbiter / selection check run');
      expect(visible).toContain('comment /arbiter cancel on #42');
    }
    expect(structureOf(timeoutGate.body).visible).toContain(
      'The requested repair of #13 did not arrive within 10 minutes.',
    );
    const [a, b] = [selectionCheck(first.actions, 13), selectionCheck(timeout.actions, 13)];
    expect(b.conclusion).toBe('action_required');
    expect(b.conclusion).toBe(a.conclusion);
    expect(b.buttons?.map((x) => x.identifier)).toEqual(a.buttons?.map((x) => x.identifier));
    expect(b.buttons?.map((x) => x.identifier)).toContain('promote');
    expect(b.detailsUrl).toBe(`${REPO_URL}/issues/42`);
    expect(skeleton(b.summary)).toEqual(skeleton(a.summary));
  });

  it('is posted once: one gate comment on the candidate; the Change hears it in its comparison and repair note', () => {
    const written = comments(timeout.actions).map((c) => `#${c.issue} ${c.marker}`);
    expect(written).toEqual(['#13 gate:13', '#42 comparison:42@main', '#42 repair:42']);
    expect(headlineOf(timeout.actions)).toMatch(/^#13 waits for a person: the requested repair of #13 did not arrive/);
    expect(headlineOf(timeout.actions)).not.toMatch(/requested:|is requested|awaiting/);
    const note = comments(timeout.actions).find((c) => c.marker === 'repair:42')?.body ?? '';
    expect(structureOf(note).visible).toContain('Nothing arrived in time, so #13 waits for a person');
  });
});

describe('the comparison follows the round', () => {
  const gated = planSelection(input(false));
  const views = (end: RoundEnd): Action[] => planRoundViews({ decided: gated, end, prefix: '/arbiter' });

  it('says "merged" with the merge commit, settles the gate comment and tells the winner', () => {
    const actions = views({ kind: 'merged', pr: 13, mergeCommit: 'abcdef0123456789', by: 'maintainer' });
    const headline = headlineOf(actions);
    expect(headline).toMatch(/^#13 merged as abcdef0, promoted by @maintainer/);
    expect(headline).not.toMatch(/awaiting|requested|ships/);
    const body = comments(actions).find((c) => c.marker === 'comparison:42@main')!.body;
    expect(body).toContain(`[abcdef0](${REPO_URL}/commit/abcdef0123456789)`);
    expect(structureOf(body).visible).not.toContain('awaiting a person');
    const gate = comments(actions).find((c) => c.marker === 'gate:13')?.body ?? '';
    expect(structureOf(gate).visible).toContain("#13 was merged on @maintainer's word.");
    // The ask is folded below, after the new first lines.
    expect(gate.indexOf('<details>')).toBeGreaterThan(gate.indexOf('was merged'));
    expect(comments(actions).find((c) => c.marker === 'winner:13')?.issue).toBe(13);
  });

  it('leaves a round decided in shadow mode as it was written: a merge a person made is not its to tell', () => {
    const shadow = planSelection({ ...input(false), config: configOf({ mode: 'shadow', repair: { enabled: false } }) });
    const merged = { kind: 'merged' as const, pr: 13, mergeCommit: 'abcdef0123456789', by: 'maintainer' };
    expect(planRoundViews({ decided: shadow, end: merged, prefix: '/arbiter' })).toEqual([]);
    // The same round decided live is told it.
    expect(views(merged).length).toBeGreaterThan(0);
  });

  it('says who promoted it while GitHub has yet to merge it (auto-merge or the merge queue)', () => {
    const actions = views({ kind: 'promoted', pr: 13, by: 'maintainer' });
    expect(headlineOf(actions)).toMatch(/^#13 was promoted by @maintainer: GitHub merges it once/);
    const body = comments(actions).find((c) => c.marker === 'comparison:42@main')!.body;
    expect(structureOf(body).visible).not.toMatch(/awaiting|requested/);
    expect(structureOf(body).visible).toContain('#13: promoted by @maintainer: waits for GitHub to merge it');
  });

  it('says "cancelled" with who did it, and no candidate awaits a person', () => {
    const actions = views({ kind: 'cancelled', how: 'Cancelled by @maintainer.' });
    expect(headlineOf(actions)).toMatch(/^Cancelled by @maintainer\. Every open candidate was closed/);
    const body = comments(actions).find((c) => c.marker === 'comparison:42@main')!.body;
    expect(structureOf(body).visible).not.toMatch(/awaiting|requested/);
  });

  it('plans the same writes for the same state, so a repeat writes nothing and mentions nobody again', () => {
    const end: RoundEnd = { kind: 'merged', pr: 13, mergeCommit: 'abcdef0123456789', by: null };
    expect(views(end)).toEqual(views(end));
    const keys = views(end).map((a) => a.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.every((k) => k.startsWith('view:acme/planner#42@main/r1/merged@abcdef0123456789/'))).toBe(true);
  });
});

describe('selection checks', () => {
  it('link the comparison, and only the chosen candidate folds the receipt', () => {
    const plan = planSelection(input(false));
    const checks = plan.actions.filter((a): a is Check => a.kind === 'check-run');
    expect(checks.map((c) => c.pr).sort()).toEqual([12, 13]);
    for (const c of checks) expect(c.detailsUrl).toBe(`${REPO_URL}/issues/42`);
    expect(selectionCheck(plan.actions, 13).text).toContain('<details>');
    expect(selectionCheck(plan.actions, 12).text).toBeUndefined();
  });
});
