// The pure planner of a winning set's ship (core/plan/set-ship.ts): the order, the check before the
// first merge, one merge at a time with `sha` = the verified head, and how a refusal, a moved head
// and shadow mode end it. Tables over the planner; no I/O.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import type { SetRecord } from '../../src/core/candidate-set.ts';
import type { SelectionPlan } from '../../src/core/plan-schema.ts';
import { planSetShip, shipOrder, type ShipMember, type SetShipView } from '../../src/core/plan/set-ship.ts';
import { planSetsOnly, planSetWin } from '../../src/core/plan/set-win.ts';

const api = { repo: 'acme/api', number: 7 };
const ui = { repo: 'acme/ui', number: 9 };
const set: SetRecord = {
  change: { repo: 'acme/app', number: 42 },
  name: 'good',
  first: api,
  parts: [api, ui],
  seen: [api, ui],
  state: 'candidate',
  reason: '',
  heads: { 'acme/api#7': 'a'.repeat(40), 'acme/ui#9': 'b'.repeat(40) },
  gate: { settled: true, promotable: true, reason: 'passed' },
};

const member = (ref: typeof api, over: Partial<ShipMember> = {}): ShipMember => {
  const verified = set.heads[`${ref.repo}#${ref.number}`]!;
  return {
    ref,
    verified,
    pull: { open: true, merged: false, headSha: verified, draft: false, status: 'CLEAN' },
    answer: null,
    method: 'squash',
    ...over,
  };
};
const merged = (ref: typeof api): ShipMember =>
  member(ref, {
    pull: { open: false, merged: true, headSha: set.heads[`${ref.repo}#${ref.number}`]!, draft: false, status: null },
  });

const comparison: Extract<Action, { kind: 'comment' }> = {
  kind: 'comment',
  key: 'k',
  issue: 42,
  marker: 'comparison:42@main',
  body: '**HEAD**\n\nLINE\n\n- #12: loses to set `good` (acme/api#7, acme/ui#9) once its members merged',
};
const view = (members: ShipMember[], over: Partial<SetShipView> = {}): SetShipView => ({
  change: { repo: 'acme/app', number: 42 },
  scope: 'main/r1',
  round: 1,
  set,
  members,
  decided: { comparison, headline: 'HEAD', line: 'LINE' },
  afterShip: [{ kind: 'close', key: 'close-12', pr: 12 }],
  web: null,
  comparisonUrl: null,
  shadow: false,
  ...over,
});

const kinds = (actions: Action[]): string[] => actions.map((a) => a.kind);
const comparisonBody = (actions: Action[]): string =>
  actions.find((a): a is Extract<Action, { kind: 'comment' }> => a.kind === 'comment')?.body ?? '';

describe('shipOrder', () => {
  it.each([
    { order: [], want: ['acme/api', 'acme/ui'] },
    { order: ['acme/ui', 'acme/api'], want: ['acme/ui', 'acme/api'] },
    { order: ['ACME/UI'], want: ['acme/ui', 'acme/api'] },
    { order: ['acme/other'], want: ['acme/api', 'acme/ui'] },
  ])('composite.order $order', ({ order, want }) => {
    expect(shipOrder([api, ui], order).map((r) => r.repo)).toEqual(want);
  });
});

describe('planSetShip', () => {
  it('merges the first member with sha = its verified head, and nothing else', () => {
    const plan = planSetShip(view([member(api), member(ui)]));
    expect(plan).toMatchObject({ kind: 'merge', member: api });
    expect(plan.actions).toEqual([
      expect.objectContaining({ kind: 'merge', pr: 7, sha: 'a'.repeat(40), method: 'squash' }),
    ]);
  });

  it('marks a draft ready right before its merge', () => {
    const draft = member(api, {
      pull: { open: true, merged: false, headSha: 'a'.repeat(40), draft: true, status: 'DRAFT' },
    });
    expect(kinds(planSetShip(view([draft, member(ui)])).actions)).toEqual(['mark-ready', 'merge']);
  });

  it('merges the next member once the one ahead merged (read from GitHub or from its recorded answer)', () => {
    for (const first of [merged(api), member(api, { answer: { ok: true } })]) {
      const plan = planSetShip(view([first, member(ui)]));
      expect(plan).toMatchObject({ kind: 'merge', member: ui });
      expect(plan.actions).toEqual([expect.objectContaining({ kind: 'merge', pr: 9, sha: 'b'.repeat(40) })]);
    }
  });

  it.each([
    {
      why: 'BLOCKED',
      pull: { status: 'BLOCKED' },
      words: /acme\/ui#9 cannot merge now \(GitHub reports mergeStateStatus BLOCKED\)/,
    },
    { why: 'DIRTY', pull: { status: 'DIRTY' }, words: /mergeStateStatus DIRTY/ },
    {
      why: 'a moved head',
      pull: { headSha: 'c'.repeat(40) },
      words: /acme\/ui#9's head moved since it was verified \(bbbbbbb, now ccccccc\)/,
    },
    { why: 'a closed member', pull: { open: false }, words: /acme\/ui#9 is closed/ },
  ])('before the first merge, every member must be mergeable now: $why stops it, nothing merges', ({ pull, words }) => {
    const second = member(ui, { pull: { ...member(ui).pull!, ...pull } });
    const plan = planSetShip(view([member(api), second]));
    expect(plan).toMatchObject({ kind: 'end', end: 'person' });
    expect(kinds(plan.actions)).not.toContain('merge');
    expect(comparisonBody(plan.actions)).toMatch(words);
    expect(comparisonBody(plan.actions)).toMatch(
      /^\*\*The set `good` .* did not fully ship: nothing merged; acme\/api#7, acme\/ui#9 did not\./,
    );
  });

  it("a refused merge stops the set: a person is told what merged and what did not, with GitHub's words; nothing else merges", () => {
    const refused = member(ui, {
      answer: { ok: false, status: 405, message: 'Required status check "e2e" is expected.' },
    });
    const plan = planSetShip(view([merged(api), refused]));
    expect(plan).toMatchObject({ kind: 'end', end: 'person' });
    expect(kinds(plan.actions)).not.toContain('merge');
    expect(kinds(plan.actions)).not.toContain('close');
    const body = comparisonBody(plan.actions);
    expect(body).toContain(
      'acme/api#7 merged; acme/ui#9 did not. GitHub refused to merge acme/ui#9 (405): "Required status check "e2e" is expected."',
    );
    expect(body).toContain('Merge order: acme/api#7 (merged), then acme/ui#9 (refused).');
    expect(body).toContain('- #12: open: set `good` (acme/api#7, acme/ui#9) did not fully ship, and a person decides');
    const inUi = plan.actions.find((a) => a.kind === 'in-repo' && a.repo === 'acme/ui');
    expect(inUi?.kind === 'in-repo' && inUi.actions.map((a) => a.kind)).toEqual(['check-run', 'comment', 'label']);
    expect(plan.actions).toContainEqual(expect.objectContaining({ kind: 'set-change-state', state: 'human' }));
  });

  it("keeps GitHub's words as written, `$` patterns included", () => {
    const refused = member(ui, { answer: { ok: false, status: 422, message: 'costs $& and $1 more' } });
    expect(comparisonBody(planSetShip(view([merged(api), refused])).actions)).toContain(
      '(422): "costs $& and $1 more"',
    );
  });

  it('every member merged: the others close (afterShip) and the Change is shipped', () => {
    const plan = planSetShip(view([merged(api), merged(ui)]));
    expect(plan).toMatchObject({ kind: 'end', end: 'merged' });
    expect(plan.actions).toContainEqual(expect.objectContaining({ kind: 'close', key: 'close-12' }));
    expect(plan.actions).toContainEqual(expect.objectContaining({ kind: 'set-change-state', state: 'shipped' }));
    const body = comparisonBody(plan.actions);
    expect(body).toMatch(
      /^\*\*Shipped set `good` .*every member merged, in order \(acme\/api#7, then acme\/ui#9\)\.\*\*/,
    );
    expect(body).toContain('- #12: lost to set `good` (acme/api#7, acme/ui#9): every member merged');
  });

  it('shadow mode (the executor kept the merge back): the words say "would merge", nothing closes, no state changes', () => {
    const plan = planSetShip(view([member(api), member(ui)], { shadow: true }));
    expect(plan).toMatchObject({ kind: 'end', end: 'shadow' });
    expect(kinds(plan.actions)).toEqual(['comment', 'in-repo', 'in-repo']);
    expect(comparisonBody(plan.actions)).toContain(
      'Arbiter would merge its members in order (acme/api#7, then acme/ui#9)',
    );
    expect(comparisonBody(plan.actions)).toContain(
      'Merge order: acme/api#7 (would merge), then acme/ui#9 (would merge).',
    );
  });

  it('each end writes under keys of its own, so a redelivered plan repeats nothing and a later end is not skipped', () => {
    const person = planSetShip(
      view([merged(api), member(ui, { answer: { ok: false, status: 409, message: 'Head branch was modified' } })]),
    );
    const done = planSetShip(view([merged(api), merged(ui)]));
    const keys = (p: typeof person): string[] => p.actions.map((a) => a.key);
    expect(keys(person)).toEqual(
      keys(
        planSetShip(
          view([merged(api), member(ui, { answer: { ok: false, status: 409, message: 'Head branch was modified' } })]),
        ),
      ),
    );
    expect(keys(person).filter((k) => keys(done).includes(k))).toEqual([]);
  });
});

describe('planSetWin: the round hands its decision to the set', () => {
  const human: SelectionPlan = {
    verdict: { kind: 'human', winner: null, before: [], losers: [12], why: 'The best candidate is set `good`.' },
    actions: [
      {
        kind: 'comment',
        key: 'cmp',
        issue: 42,
        marker: 'comparison:42@main',
        body: '### Arbiter: comparison\n\n**Shadow mode: a person would decide. The best candidate is set `good`.**\n\n- [#12](http://x/acme/app/pull/12): loses to set `good` (acme/api#7, acme/ui#9) once its members merged: this one is unpromotable',
      },
      {
        kind: 'check-run',
        key: 'c',
        pr: 12,
        headSha: 'c'.repeat(40),
        name: 'Arbiter / selection',
        status: 'completed',
        conclusion: 'neutral',
        title: 'Lost',
        summary: 'Lost',
      },
      { kind: 'close', key: 'x', pr: 12, relabel: { add: ['arbiter:lost'], remove: [] } },
      { kind: 'set-state', key: 's', pr: 12, state: 'rejected', reason: 'x' },
    ],
    receipt: {} as SelectionPlan['receipt'],
  };
  const plan = planSetWin(human, {
    change: { repo: 'acme/app', number: 42 },
    base: 'main',
    round: 1,
    set,
    order: ['acme/ui'],
    web: null,
    headline: 'The best candidate is set `good`: Arbiter merges its members in order.',
    singles: [{ pr: 12, headSha: 'c'.repeat(40), why: 'this one is unpromotable (required check `test` failed)' }],
    setLosers: [{ kind: 'close', key: 'set-loser', pr: 8 }],
  });

  it("holds #12's closure back (it closes once the set merged), keeps the comparison (the set's words lead, in shadow mode too) and marks the set decided", () => {
    expect(kinds(plan.actions)).toEqual(['comment', 'check-run', 'record']);
    const body = comparisonBody(plan.actions);
    expect(body).toContain('**The best candidate is set `good`: Arbiter merges its members in order.**');
    expect(body).not.toContain('Shadow mode: a person would decide');
    expect(body).toContain(
      '- [#12](http://x/acme/app/pull/12): loses to set `good` (acme/api#7, acme/ui#9) once its members merged',
    );
  });

  it('records the ship (order from composite.order) and closes #12 and the losing sets only after it', () => {
    expect(plan.shipSet).toMatchObject({
      name: 'good',
      order: [ui, api],
      line: 'Merge order: acme/ui#9 (to merge), then acme/api#7 (to merge).',
    });
    expect(plan.afterShip?.map((a) => `${a.kind}${'pr' in a ? ` #${a.pr}` : ''}`)).toEqual([
      'check-run #12',
      'comment',
      'close #12',
      'set-state #12',
      'close #8',
    ]);
  });
});

describe('planSetsOnly: a Change whose only candidates are sets', () => {
  it('the best set ships, in the Parts: order by default', () => {
    const d = planSetsOnly({
      change: set.change,
      compared: [set],
      winner: set,
      notes: ['NOTE'],
      order: [],
      web: null,
      setLosers: [],
    });
    expect(d.ship).toMatchObject({ name: 'good', order: [api, ui] });
    expect(d.comparison.body).toContain('(candidate sets only)');
    expect(kinds(d.actions)).toEqual(['comment', 'record']);
  });

  it('with no promotable set, a person decides and nothing ships', () => {
    const d = planSetsOnly({
      change: set.change,
      compared: [set],
      winner: null,
      notes: [],
      order: [],
      web: null,
      setLosers: [],
    });
    expect(d.ship).toBeNull();
    expect(d.comparison.body).toContain('**No candidate is promotable');
    expect(d.actions).toContainEqual(expect.objectContaining({ kind: 'set-change-state', state: 'human' }));
  });
});
