// A winning candidate set under the risk policy (core/plan/set-risk.ts, set-rank.ts setHeldWhy): each
// member's changes at its judged head, by the Change's policy and its own repository's, the stricter
// holding; the set's risk is the highest of its members'. Tables over the pure planner, then the
// round's plan under the default policy: a set changing a workflow goes to a person who is told which
// member and file held it, a set of ordinary files ships.
import { describe, expect, it } from 'vitest';
import { SELECTION_BUTTONS } from '../../src/core/buttons.ts';
import type { MemberChanges, SetRecord } from '../../src/core/candidate-set.ts';
import { planSelection, type SelectionInput } from '../../src/core/plan/selection.ts';
import { setHeldWhy, type RankedSet } from '../../src/core/plan/set-rank.ts';
import { assessSetRisk } from '../../src/core/plan/set-risk.ts';
import { rankCandidates } from '../../src/core/rank.ts';
import type { RiskPolicy } from '../../src/core/types.ts';
import { diagnose } from '../../src/judge/diagnostics.ts';
import { renderGfm } from '../support/gfm.ts';
import { configOf } from '../support/selection-world.ts';
import { judgedSet } from '../support/set-records.ts';

const DEFAULT = configOf().policy;
const HEADS = { 'acme/api#7': 'a'.repeat(40), 'acme/ui#9': 'b'.repeat(40) };
const changed = (member: keyof typeof HEADS, paths: string[], over: Partial<MemberChanges> = {}): MemberChanges => ({
  member,
  headSha: HEADS[member],
  changedPaths: paths,
  changedLines: 12,
  labels: [],
  policy: { autoShip: [...DEFAULT.autoShip], rules: DEFAULT.rules.map((r) => ({ ...r })) },
  ...over,
});
const ORDINARY = [changed('acme/api#7', ['src/search.ts']), changed('acme/ui#9', ['src/box.ts'])];

function record(changes: MemberChanges[] | undefined): SetRecord {
  return judgedSet({
    heads: HEADS,
    criteria: [{ id: 'AC1', text: 'Criterion 1', check: null }],
    statuses: ['met'],
    changes,
  });
}

describe('a set’s risk (assessSetRisk)', () => {
  it('a set of ordinary files under the default policy is low risk and may ship', () => {
    expect(assessSetRisk(record(ORDINARY), DEFAULT)).toEqual({ risk: 'low', reasons: [], held: null });
  });

  it('a member changing a workflow under the default policy holds the set, naming the member and the file with its repository', () => {
    const risky = [ORDINARY[0]!, changed('acme/ui#9', ['src/box.ts', '.github/workflows/x.yml'])];
    const r = assessSetRisk(record(risky), DEFAULT);
    expect(r.risk).toBe('high');
    expect(r.reasons).toEqual(['member acme/ui#9: high: changes `acme/ui: .github/workflows/x.yml`']);
    expect(r.held).toBe(
      'the set is high risk (member acme/ui#9: high: changes `acme/ui: .github/workflows/x.yml`), which the policy does not ship without a person',
    );
  });

  it('the set’s risk is the highest of its members’: a medium and a high member make a high set', () => {
    const r = assessSetRisk(
      record([changed('acme/api#7', ['src/a.ts'], { changedLines: 900 }), changed('acme/ui#9', ['CODEOWNERS'])]),
      DEFAULT,
    );
    expect(r.risk).toBe('high');
    expect(r.reasons).toEqual([
      'member acme/api#7: medium: 900 changed lines (over 400)',
      'member acme/ui#9: high: changes `acme/ui: CODEOWNERS`',
    ]);
  });

  it('a member’s own repository’s policy holds it where the Change’s would ship it (the stricter of the two)', () => {
    const own: RiskPolicy = { autoShip: ['low'], rules: [{ risk: 'medium', labels: ['security'] }] };
    const r = assessSetRisk(
      record([ORDINARY[0]!, changed('acme/ui#9', ['src/box.ts'], { labels: ['security'], policy: own })]),
      DEFAULT,
    );
    expect(r.risk).toBe('medium');
    expect(r.held).toBe(
      'acme/ui#9 is medium risk (member acme/ui#9, by the policy of acme/ui: medium: label `security`), which the policy of acme/ui does not ship without a person',
    );
    // The same member under a policy of its own that ships medium: the Change's default ships it too.
    expect(assessSetRisk(record([ORDINARY[0]!, changed('acme/ui#9', ['src/box.ts'])]), DEFAULT).held).toBeNull();
  });

  it('a member in the Change’s own repository is assessed once, by the Change’s policy', () => {
    const here = {
      ...record(undefined),
      parts: [{ repo: 'acme/app', number: 3 }],
      heads: { 'acme/app#3': 'c'.repeat(40) },
    };
    const lenient: RiskPolicy = { autoShip: ['low', 'medium', 'high'], rules: [] };
    const r = assessSetRisk(
      {
        ...here,
        changes: [
          {
            ...changed('acme/api#7', ['.github/arbiter.yml'], { policy: lenient }),
            member: 'acme/app#3',
            headSha: 'c'.repeat(40),
          },
        ],
      },
      DEFAULT,
    );
    expect(r.reasons).toEqual(['member acme/app#3: high: changes `acme/app: .github/arbiter.yml`']);
  });

  it('a member whose changes were not read at its verified head holds the set: the policy cannot clear what it did not see', () => {
    const moved = [ORDINARY[0]!, { ...ORDINARY[1]!, headSha: 'd'.repeat(40) }];
    expect(assessSetRisk(record(moved), DEFAULT).held).toBe(
      'the changes of acme/ui#9 at its verified head were not read, so the risk policy could not be applied to it',
    );
    expect(assessSetRisk(record(undefined), DEFAULT).held).toMatch(
      /^the changes of acme\/api#7, acme\/ui#9 at their verified head/,
    );
  });

  it('no risk shipped without a person (`autoShip: []`) holds even a low-risk set', () => {
    expect(assessSetRisk(record(ORDINARY), { ...DEFAULT, autoShip: [] }).held).toBe(
      'the set is low risk, which the policy does not ship without a person',
    );
  });
});

describe('whether a winning set ships by itself (setHeldWhy)', () => {
  const ranked = (met: number, changes = ORDINARY): RankedSet => ({
    record: record(changes),
    summary: { pr: 0, rank: 1, promotable: true, met, gaps: 0, score: null, passing: 2 },
  });
  const rules = { required: true, policy: DEFAULT };
  it.each([
    ['every criterion met, ordinary files, default policy: ships', ranked(1), 1, null],
    ['a criterion not met: a person', ranked(0), 1, 'not every criterion was met'],
    ['no criteria with acceptance required: a person', ranked(0), 0, 'not every criterion was met'],
    ['a workflow changed: a person', ranked(1, [changed('acme/api#7', ['.github/workflows/ci.yml'])]), 1, /high risk/],
  ])('%s', (_name, set, criteria, held) => {
    const why = setHeldWhy(set, criteria, rules);
    if (held instanceof RegExp) expect(why).toMatch(held);
    else expect(why).toBe(held);
  });
});

describe('a round whose best candidate is a set, under the default policy', () => {
  function round(changes: MemberChanges[]): SelectionInput {
    return {
      repo: 'acme/app',
      change: { number: 42, title: 'Search', criteria: [{ id: 'AC1', text: 'Search answers queries', check: null }] },
      round: 1,
      base: 'main',
      siblings: [],
      ranking: rankCandidates([]),
      judge: null,
      diagnostics: diagnose({ evidence: [], judge: null }),
      config: configOf({ repair: { enabled: false } }),
      repairAvailable: false,
      reviewers: { users: [], teams: [] },
      branch: { requiredReviews: 0, mergeQueue: false },
      drafts: [],
      now: '2026-03-02T10:00:00.000Z',
      buttons: [...SELECTION_BUTTONS],
      display: { repoUrl: 'https://github.com/acme/app' },
      sets: { records: [record(changes)], web: 'https://github.com' },
    };
  }
  const comparisonOf = (input: SelectionInput): string => {
    const c = planSelection(input).actions.find((a) => a.kind === 'comment' && a.marker.startsWith('comparison:'));
    return renderGfm(c?.kind === 'comment' ? c.body : '');
  };

  it('a member changing .github/workflows/x.yml: nothing ships, and a person is told which member and file held it', () => {
    const input = round([ORDINARY[0]!, changed('acme/ui#9', ['.github/workflows/x.yml'])]);
    const plan = planSelection(input);
    expect(plan.shipSet).toBeUndefined();
    expect(plan.actions.some((a) => a.kind === 'merge')).toBe(false);
    expect(plan.receipt.data.verdict).toBe('human');
    expect(comparisonOf(input)).toContain(
      'The set is high risk (member acme/ui#9: high: changes <code>acme/ui: .github/workflows/x.yml</code>), which the policy does not ship without a person, so Arbiter does not merge it: a person merges its members in order (acme/api#7, then acme/ui#9) or cancels the Change.',
    );
    // Each member's check asks for that person, with the same words.
    const checks = plan.actions.flatMap((a) => (a.kind === 'in-repo' ? a.actions : []));
    const ui = checks.find((a) => a.kind === 'check-run' && a.pr === 9);
    expect(ui).toMatchObject({ conclusion: 'action_required' });
    expect(ui?.kind === 'check-run' ? renderGfm(ui.summary) : '').toContain(
      'The set is high risk (member acme/ui#9: high: changes <code>acme/ui: .github/workflows/x.yml</code>)',
    );
  });

  it('a set of ordinary files ships: its members merge in order', () => {
    const plan = planSelection(round(ORDINARY));
    expect(plan.shipSet?.order.map((r) => `${r.repo}#${r.number}`)).toEqual(['acme/api#7', 'acme/ui#9']);
    // Nobody is asked: the receipt says ship, and there is no person's gate (HUMAN_GATE receipt).
    expect(plan.receipt.data.verdict).toBe('ship');
    expect(plan.actions.filter((a) => a.kind === 'receipt').map((a) => a.kind === 'receipt' && a.receipt.kind)).toEqual(
      ['CANDIDATE_SELECTION'],
    );
  });
});
