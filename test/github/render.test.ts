// Every body the selection plan writes, rendered as GitHub renders it (micromark + GFM): the
// matrix is a table outside any list, the legend is not a row, hidden markers show nothing,
// and every body fits GitHub's 65,535 characters even with 12 candidates × 200 criteria.
import { forMode } from '../../src/core/shadow.ts';
import { describe, expect, it } from 'vitest';
import { configOf } from '../support/selection-world.ts';
import { inList, structureOf } from '../support/gfm.ts';
import { planSelection, type SelectionInput } from '../../src/core/plan/selection.ts';
import { rankCandidates } from '../../src/core/rank.ts';
import { CandidateEvidence, type Criterion, type CriterionStatus, type GateEvidence } from '../../src/core/types.ts';
import { gateTitle, renderGateTable } from '../../src/core/render/check-text.ts';
import { repoUrlFrom } from '../../src/workflows/context.ts';
import { diagnose } from '../../src/judge/diagnostics.ts';
import { SELECTION_BUTTONS } from '../../src/commands/buttons.ts';
import { BODY_LIMIT, LEGEND } from '../../src/core/render/markdown.ts';

const REPO_URL = 'https://github.com/acme/planner';

function criteria(
  n: number,
  words = 'The home page shows a calendar of the current month, with every day as a column',
): Criterion[] {
  return Array.from({ length: n }, (_, i) => ({ id: `AC${i + 1}`, text: `${words} (${i + 1}).`, check: null }));
}

function evidence(
  pr: number,
  statuses: CriterionStatus[],
  crit: Criterion[],
  gate: 'pass' | 'fail' = 'pass',
): CandidateEvidence {
  const results = crit.map((c, i) => ({ id: c.id, status: statuses[i] ?? 'met', citation: null, reason: '' }));
  return CandidateEvidence.parse({
    pr,
    headSha: `sha-${pr}`,
    gate: {
      required: [{ name: 'test', outcome: gate, raw: gate === 'pass' ? 'success' : 'failure' }],
      source: 'config',
      settled: true,
      promotable: gate === 'pass',
      reason: gate === 'pass' ? 'every required check passed' : 'required check `test` failed',
      passingChecks: gate === 'pass' ? 2 : 1,
      score: null,
    },
    acceptance:
      crit.length === 0
        ? { status: 'none', results: [] }
        : { status: results.every((r) => r.status === 'met') ? 'pass' : 'fail', results },
    changedPaths: ['src/calendar.ts'],
    changedLines: 40,
    author: `agent-${pr}`,
  });
}

function input(siblings: CandidateEvidence[], crit: Criterion[], over: Partial<SelectionInput> = {}): SelectionInput {
  const ranking = rankCandidates(siblings);
  return {
    repo: 'acme/planner',
    change: { number: 42, title: 'Calendar view', criteria: crit },
    round: 2,
    base: 'main',
    siblings,
    ranking,
    judge: null,
    diagnostics: diagnose({ evidence: siblings, judge: null }),
    config: configOf({ repair: { enabled: false } }),
    repairAvailable: false,
    reviewers: { users: ['maintainer'], teams: [] },
    branch: { requiredReviews: 0, mergeQueue: false },
    drafts: [],
    now: '2026-01-01T00:00:00.000Z',
    buttons: [...SELECTION_BUTTONS],
    display: {
      repoUrl: REPO_URL,
      titles: Object.fromEntries(
        siblings.map((e) => [e.pr, `Add the calendar view | take ${e.pr} with a long tail of words`]),
      ),
      earlier: [{ round: 1, summary: '#13 is the best candidate; a repair is requested: meet AC3.' }],
    },
    ...over,
  };
}

/** Every markdown body of a plan: comments, check-run summaries and texts. */
function bodies(plan: ReturnType<typeof planSelection>): { where: string; body: string }[] {
  return plan.actions.flatMap((a) => {
    if (a.kind === 'comment') return [{ where: `comment #${a.issue} ${a.marker}`, body: a.body }];
    if (a.kind === 'check-run')
      return [
        { where: `check #${a.pr} summary`, body: a.summary },
        ...(a.text ? [{ where: `check #${a.pr} text`, body: a.text }] : []),
      ];
    return [];
  });
}

const comparisonOf = (plan: ReturnType<typeof planSelection>): string => {
  const c = plan.actions.find((a) => a.kind === 'comment' && a.marker.startsWith('comparison:42'));
  if (!c || c.kind !== 'comment') throw new Error('no comparison comment');
  return c.body;
};

function expectCleanBodies(plan: ReturnType<typeof planSelection>): void {
  for (const { where, body } of bodies(plan)) {
    expect(body.length, where).toBeLessThanOrEqual(BODY_LIMIT);
    const { visible } = structureOf(body);
    expect(visible, where).not.toMatch(/arbiter:|<!--|-->/);
  }
}

describe('the comparison comment renders as GitHub shows it', () => {
  it("the showcase's comparison (a loser, so a list before the table) has its matrix as a table outside any list", () => {
    const crit = criteria(3, 'A criterion');
    const plan = planSelection(
      input([evidence(12, ['met', 'not_met', 'not_met'], crit), evidence(13, ['met', 'met', 'met'], crit)], crit),
    );
    const body = comparisonOf(plan);
    const { tables, visible } = structureOf(body);
    expect(tables).toHaveLength(1);
    expect(inList(tables[0].ancestors)).toBe(false);
    // Columns name each PR with its shortened title and author; the legend is not a row.
    expect(tables[0].headers).toEqual([
      'Criterion',
      '#13 Add the calendar view | tak… by @agent-13',
      '#12 Add the calendar view | tak… by @agent-12',
    ]);
    expect(tables[0].rows.map((r) => r[0])).toEqual([
      'AC1 A criterion (1).',
      'AC2 A criterion (2).',
      'AC3 A criterion (3).',
      'Required checks',
      'Rank',
    ]);
    expect(tables[0].rows.flat().join(' ')).not.toContain('not met ·');
    expect(visible).toContain(LEGEND);
    // One outcome per candidate, the loser's naming the criteria that decided.
    expect(visible).toContain(
      '#12: Lost to #13, which also meets AC2 (A criterion (2)) and AC3. #13 met 3 of 3 criteria, this one 1 of 3.',
    );
    expect(visible.match(/Lost to #13/g)).toHaveLength(1);
    // PRs and checks are linked; full criteria and earlier rounds are folded below.
    expect(body).toContain(`[#12](${REPO_URL}/pull/12)`);
    expect(body).toContain(`(${REPO_URL}/pull/13/checks)`);
    expect(body).toMatch(/<details>\n<summary>The 3 criteria in full<\/summary>\n\n- \*\*AC1\*\*/);
    expect(body).toMatch(/<summary>Earlier rounds \(1\)<\/summary>\n\n- \*\*Round 1\*\*: #13 is the best/);
    expectCleanBodies(plan);
    expect(body).toMatchSnapshot();
  });

  it('with no loser the legend is a paragraph, not a table row', () => {
    const crit = criteria(2, 'A criterion');
    const plan = planSelection(input([evidence(13, ['met', 'met'], crit)], crit));
    const { tables, visible } = structureOf(comparisonOf(plan));
    expect(tables).toHaveLength(1);
    expect(tables[0].rows.map((r) => r[0])).toEqual([
      'AC1 A criterion (1).',
      'AC2 A criterion (2).',
      'Required checks',
      'Rank',
    ]);
    expect(visible).toContain(LEGEND);
  });

  it('a six-candidate, eight-criterion comparison keeps its table outside any list', () => {
    const crit = criteria(8);
    const rows: CriterionStatus[][] = [
      ['met', 'met', 'met', 'met', 'met', 'met', 'met', 'met'],
      ['met', 'not_met', 'met', 'met', 'met', 'met', 'met', 'met'],
      ['met', 'met', 'unclear', 'met', 'gap', 'met', 'met', 'met'],
      ['not_met', 'not_met', 'not_met', 'met', 'met', 'met', 'met', 'met'],
      ['uncheckable', 'met', 'met', 'met', 'met', 'met', 'met', 'met'],
      ['met', 'met', 'met', 'met', 'met', 'met', 'met', 'met'],
    ];
    const siblings = rows.map((s, i) => evidence(60 + i, s, crit, i === 5 ? 'fail' : 'pass'));
    const plan = planSelection(input(siblings, crit));
    const { tables } = structureOf(comparisonOf(plan));
    expect(tables).toHaveLength(1);
    expect(inList(tables[0].ancestors)).toBe(false);
    expect(tables[0].headers).toHaveLength(7);
    expect(tables[0].rows).toHaveLength(8 + 2);
    expectCleanBodies(plan);
    expect(comparisonOf(plan)).toMatchSnapshot();
  });

  it('with 12 candidates × 200 long criteria every body stays under 65,535 characters and still renders', () => {
    const crit = criteria(200, 'x'.repeat(400));
    const siblings = Array.from({ length: 12 }, (_, i) =>
      evidence(
        100 + i,
        crit.map((_, j) => ((i + j) % 7 === 0 ? 'not_met' : 'met')),
        crit,
      ),
    );
    const plan = planSelection(
      input(siblings, crit, {
        display: {
          repoUrl: REPO_URL,
          earlier: Array.from({ length: 30 }, (_, r) => ({ round: r + 1, summary: 'y'.repeat(2000) })),
        },
      }),
    );
    expectCleanBodies(plan);
    const { tables } = structureOf(comparisonOf(plan));
    expect(tables).toHaveLength(1);
    expect(inList(tables[0].ancestors)).toBe(false);
  });
});

describe('the human gate says what to do', () => {
  it('names the PR, separates not met, unclear, for a person and not judged, mentions and lists the actions', () => {
    const crit = criteria(5, 'A criterion');
    const plan = planSelection(
      input(
        [
          evidence(13, ['met', 'not_met', 'unclear', 'uncheckable', 'gap'], crit),
          evidence(12, ['not_met', 'not_met', 'not_met', 'not_met', 'not_met'], crit),
        ],
        crit,
      ),
    );
    expect(plan.verdict.kind).toBe('human');
    const gate = plan.actions.find((a) => a.kind === 'comment' && a.marker === 'gate:13');
    if (!gate || gate.kind !== 'comment') throw new Error('no gate comment');
    const { visible, tables } = structureOf(gate.body);
    expect(tables).toEqual([]);
    expect(structureOf(gate.body).lists).toBe(3); // the criteria, the ways to ship, the other ways
    expect(visible).toContain(
      '#13 (Add the calendar view | take 13 with a long tail of words) by @agent-13 is the best candidate for #42',
    );
    expect(visible).toContain('@maintainer: your decision is needed.');
    expect(visible).toContain('Not met (the change does not do this): AC2 (A criterion (2))');
    expect(visible).toContain('Unclear (the evidence does not settle it either way): AC3');
    expect(visible).toContain('For a person (cannot be checked from the code; a person or a check has to look): AC4');
    expect(visible).toContain('Not judged (the model failed or its budget ran out; nothing was decided): AC5');
    expect(visible).toContain('approve #13 in a review');
    expect(visible).toContain('comment /arbiter promote on #13');
    expect(visible).toContain('press Promote on its Arbiter / selection check run');
    expect(visible).toContain('to stop the Change, comment /arbiter cancel on #42');
    expect(visible).toContain('to ship a candidate that lost (#12), reopen it and comment /arbiter promote on it.');
    const run = plan.actions.find((a) => a.kind === 'check-run' && a.pr === 13);
    expect(run).toMatchObject({
      conclusion: 'action_required',
      detailsUrl: `${REPO_URL}/issues/42`,
      buttons: SELECTION_BUTTONS,
    });
    expect(plan.actions.filter((a) => a.kind === 'request-review')).toEqual([
      expect.objectContaining({ pr: 13, reviewers: ['maintainer'] }),
    ]);
    expectCleanBodies(plan);
    expect(gate.body).toMatchSnapshot();
  });

  it('the selection text has ranking columns named for people and the receipt folded', () => {
    const crit = criteria(3, 'A criterion');
    const plan = planSelection(
      input([evidence(12, ['met', 'gap', 'not_met'], crit), evidence(13, ['met', 'met', 'met'], crit)], crit),
    );
    // A ship verdict writes the winner's check once, after its merge.
    const run = (plan.afterShip ?? []).find((a) => a.kind === 'check-run' && a.pr === 13);
    if (!run || run.kind !== 'check-run') throw new Error('no run');
    const { tables, visible } = structureOf(run.text ?? '');
    expect(tables[0].headers).toEqual([
      'Rank',
      'Candidate',
      'Required checks',
      'Criteria met',
      'Not judged',
      'Passing checks',
    ]);
    expect(run.text).toMatch(/<details>\n<summary>Decision receipt \(JSON\)<\/summary>\n\n```json\n/);
    expect(visible).toContain('"kind": "CANDIDATE_SELECTION"');
  });
});

describe('the gate check run in plain words', () => {
  const gate = (over: Partial<GateEvidence>): GateEvidence => ({
    required: [{ name: 'test', outcome: 'pending', raw: 'in_progress', kind: 'check' }],
    source: 'config',
    settled: false,
    promotable: false,
    reason: 'waiting on `test`',
    passingChecks: 0,
    score: null,
    timedOut: false,
    ...over,
  });

  it('says what it waits for once, and renders its table', () => {
    expect(gateTitle(gate({}))).toBe('Waiting on `test`');
    const { tables, visible } = structureOf(renderGateTable(gate({})));
    expect(tables[0].headers).toEqual(['Check', 'Result']);
    expect(tables[0].rows).toEqual([['test', '⏳ in_progress']]);
    expect(visible).toContain('Required checks (named in gate.required):');
    expect(visible).not.toContain('pass on this head');
  });

  it('reads the same whatever number of other checks pass, so a settled gate is written once', () => {
    const settled = { settled: true, promotable: true, reason: 'every required check passed', score: 7 };
    const once = renderGateTable(gate({ ...settled, passingChecks: 3 }));
    expect(renderGateTable(gate({ ...settled, passingChecks: 15 }))).toBe(once);
    expect(structureOf(once).visible).toContain('Score: 7.');
  });
});

describe('the human gate in shadow mode', () => {
  it('mentions nobody, since no review is requested', () => {
    const crit = criteria(2, 'A criterion');
    const plan = planSelection(
      input([evidence(13, ['met', 'not_met'], crit)], crit, {
        config: configOf({ mode: 'shadow', repair: { enabled: false } }),
      }),
    );
    const gate = plan.actions.find((a) => a.kind === 'comment' && a.marker === 'gate:13');
    if (!gate || gate.kind !== 'comment') throw new Error('no gate comment');
    expect(gate.body).not.toContain('@maintainer');
    // Shadow mode is one filter, applied by the executor to every plan.
    expect(forMode(plan.actions, { mode: 'shadow' }).filter((a) => a.kind === 'request-review')).toEqual([]);
  });

  it('never says "Approve to ship it": the headline, the gate and its check say a person would decide', () => {
    const crit = criteria(2, 'A criterion');
    const plan = planSelection(
      input([evidence(13, ['met', 'not_met'], crit)], crit, {
        config: configOf({ mode: 'shadow', repair: { enabled: false } }),
      }),
    );
    expect(plan.verdict.kind).toBe('human');
    const shown = forMode(plan.actions, { mode: 'shadow' });
    const texts = shown.flatMap((a) =>
      a.kind === 'comment'
        ? [structureOf(a.body).visible]
        : a.kind === 'check-run'
          ? [a.title ?? '', a.summary ?? '']
          : [],
    );
    expect(texts.join('\n')).not.toMatch(/Approve to ship|awaiting approval/);
    expect(structureOf(comparisonOf(plan)).visible).toContain(
      'Shadow mode: a person would decide. Best candidate #13 meets 1 of 2 criteria',
    );
    const run = shown.find((a) => a.kind === 'check-run' && a.pr === 13);
    expect(run?.kind === 'check-run' && run.title).toBe('Shadow: a person would decide');
  });
});

describe('links point at the repository on its own host', () => {
  it('github.com for the public API, the Enterprise host for /api/v3', () => {
    expect(repoUrlFrom('https://api.github.com', 'acme/planner')).toBe('https://github.com/acme/planner');
    expect(repoUrlFrom('https://ghe.example.com/api/v3/', 'acme/planner')).toBe('https://ghe.example.com/acme/planner');
    expect(repoUrlFrom(undefined, 'acme/planner')).toBe('https://github.com/acme/planner');
  });
});

describe('column headers', () => {
  it("keep an app's login as GitHub writes it", () => {
    const crit = criteria(1, 'A criterion');
    const bot = { ...evidence(13, ['met'], crit), author: 'copilot-swe-agent[bot]' };
    const { tables } = structureOf(comparisonOf(planSelection(input([bot], crit))));
    expect(tables[0].headers[1]).toBe('#13 Add the calendar view | tak… by @copilot-swe-agent[bot]');
  });
});

describe('a repair says what to fix', () => {
  it('a criterion judged by a check names the check that did not pass', () => {
    const crit: Criterion[] = [
      { id: 'AC1', text: 'The calendar shows the month.', check: null },
      { id: 'AC2', text: 'The end-to-end suite passes', check: 'e2e' },
    ];
    const plan = planSelection(
      input([evidence(13, ['met', 'not_met'], crit)], crit, {
        config: configOf({ repair: { enabled: true } }),
        repairAvailable: true,
      }),
    );
    expect(plan.verdict.kind).toBe('repair');
    const note = plan.actions.find((a) => a.kind === 'comment' && a.key.endsWith('repair-note'));
    if (!note || note.kind !== 'comment') throw new Error('no repair note');
    expect(structureOf(note.body).visible).toContain('AC2 is judged by the check e2e, which did not pass on #13.');
    const run = plan.actions.find((a) => a.kind === 'check-run' && a.pr === 13);
    if (!run || run.kind !== 'check-run') throw new Error('no selection check');
    expect(structureOf(run.summary).visible).toContain('AC2 The end-to-end suite passes (its check e2e did not pass)');
  });
});
