// A composite candidate's lines and standing (DESIGN.md section 6, "Composite candidate"): the
// body's `Candidate-for: owner/repo#N`, `Candidate-set:` and `Parts:` lines as links are read;
// the set composes until every listed member opened and names it, is no candidate while a
// member's author is untrusted in its own repository (that member's check says why), and is one
// candidate once every member stands. Pure.
import { describe, expect, it } from 'vitest';
import { namesSet, setHeadsKey, setLines } from '../../src/core/candidate-set.ts';
import { candidateSetActionKey, candidateSetKey } from '../../src/core/keys.ts';
import {
  headsOf,
  planCandidateSet,
  setGate,
  setWantsAcceptance,
  setStanding,
  type SetMemberView,
  type SetView,
} from '../../src/core/plan/candidate-set.ts';

const change = { repo: 'acme/app', number: 42 };
const api = { repo: 'acme/api', number: 7 };
const ui = { repo: 'acme/ui', number: 9 };
const firstBody = 'Candidate-for: acme/app#42\nCandidate-set: search\nParts: acme/api#7, acme/ui#9';
const laterBody = 'Candidate-for: acme/app#42\nCandidate-set: search';

const member = (ref: typeof api, over: Partial<SetMemberView> = {}, body = laterBody): SetMemberView => ({
  ref,
  pull: { open: true, merged: false, headSha: `sha-${ref.number}`, author: 'dev', lines: setLines(body, ref.repo) },
  standing: { counts: true, via: 'opened by a trusted account' },
  prefix: '/arbiter',
  ...over,
});

const view = (members: SetMemberView[], over: Partial<SetView> = {}): SetView => ({
  change,
  untracked: null,
  name: 'search',
  first: api,
  parts: [api, ui],
  seen: members.filter((m) => m.pull !== null).map((m) => m.ref),
  members,
  ...over,
});

describe('set lines', () => {
  it('reads the Change in full, the set, and the parts in order', () => {
    expect(setLines(firstBody, 'acme/api')).toEqual({ change, set: 'search', parts: [api, ui] });
    expect(setLines(laterBody, 'acme/ui')).toEqual({ change, set: 'search', parts: null });
  });

  it('a short #N names the member’s own repository; parts without an owner too', () => {
    expect(setLines('Candidate-for: #42\nCandidate-set: s\nParts: #7 acme/ui#9', 'acme/app')).toEqual({
      change,
      set: 's',
      parts: [{ repo: 'acme/app', number: 7 }, ui],
    });
  });

  it('never reads a set from quotes, code or comments, and needs both lines', () => {
    expect(setLines('> Candidate-for: acme/app#42\n> Candidate-set: s', 'acme/api')).toBeNull();
    expect(setLines('```\nCandidate-for: acme/app#42\nCandidate-set: s\n```', 'acme/api')).toBeNull();
    expect(setLines('<!-- Candidate-set: s -->\nCandidate-for: acme/app#42', 'acme/api')).toBeNull();
    expect(setLines('Candidate-for: acme/app#42', 'acme/api')).toBeNull();
    expect(namesSet('Candidate-set: s')).toBe(true);
    expect(namesSet('`Candidate-set: s`')).toBe(false);
  });

  it('a Parts line with a word that is no reference lists nothing', () => {
    expect(setLines(`${laterBody}\nParts: acme/api#7 and acme/ui#9`, 'acme/api')?.parts).toBeNull();
  });
});

describe('a set’s standing', () => {
  it('composes until the first member lists the parts', () => {
    const s = setStanding(view([member(ui)], { first: null, parts: null }));
    expect(s.state).toBe('composing');
  });

  it('composes while a listed member has not opened, naming it', () => {
    const s = setStanding(view([member(api, {}, firstBody), member(ui, { pull: null, standing: null })]));
    expect(s).toMatchObject({ state: 'composing', waitingFor: [ui] });
    expect(s.reason).toContain('acme/ui#9 has not opened');
  });

  it('composes while a member does not name the set (or names another Change)', () => {
    const other = 'Candidate-for: acme/app#43\nCandidate-set: search';
    const s = setStanding(view([member(api, {}, firstBody), member(ui, {}, other)]));
    expect(s).toMatchObject({ state: 'composing', waitingFor: [ui] });
  });

  it('is no candidate while a member’s author is untrusted in its own repository', () => {
    const untrusted = member(ui, {
      standing: { counts: false, reason: '@dev-b has no write access here (read access)', lookupFailed: false },
    });
    const s = setStanding(view([member(api, {}, firstBody), untrusted]));
    expect(s).toMatchObject({ state: 'not-candidate', blocker: ui });
    expect(s.reason).toBe('member acme/ui#9: @dev-b has no write access in acme/ui (read access)');
  });

  it('is no candidate when a member closed or the Change is not tracked', () => {
    const closed = member(ui);
    closed.pull = { ...closed.pull!, open: false };
    expect(setStanding(view([member(api, {}, firstBody), closed]))).toMatchObject({ state: 'not-candidate' });
    expect(setStanding(view([member(api, {}, firstBody), member(ui)], { untracked: 'x' }))).toMatchObject({
      state: 'not-candidate',
      blocker: null,
    });
  });

  it('is one candidate once every member is open, names it and is trusted', () => {
    expect(setStanding(view([member(api, {}, firstBody), member(ui)])).state).toBe('candidate');
  });
});

describe('a member whose agent is still at work (a work-in-progress title)', () => {
  // Every member's required `test` passed: only the title can hold the set.
  const passed = {
    gate: {
      required: [{ name: 'test', outcome: 'pass' as const, raw: null }],
      source: 'config' as const,
      settled: true,
      promotable: true,
      reason: '',
      passingChecks: 1,
      score: null,
      timedOut: false,
    },
  };
  const titled = (ref: typeof api, title: string, body = laterBody): SetMemberView => {
    const m = member(ref, passed, body);
    m.pull = { ...m.pull!, title, author: 'Copilot' };
    return m;
  };

  it.each(['[WIP] Search box', 'WIP: search box', 'Draft: search box', '  [ wip ] Search box'])(
    '“%s” holds the set composing, naming the agent and the member; the set is not judged',
    (title) => {
      const v = view([titled(api, 'Search API', firstBody), titled(ui, title)]);
      expect(setStanding(v)).toEqual({
        state: 'composing',
        reason: '@Copilot is still working on acme/ui#9',
        waitingFor: [ui],
        working: [ui],
      });
      // Every required check of every member passed, yet no model call on an interim head.
      expect(setWantsAcceptance(v)).toBe(false);
      expect(planCandidateSet(v).record).toMatchObject({ state: 'composing', working: ['acme/ui#9'] });
    },
  );

  it('a title that only starts with the letters is no marker: the set is a candidate and judged', () => {
    const v = view([titled(api, 'Search API', firstBody), titled(ui, 'WIPE the search cache')]);
    expect(setStanding(v).state).toBe('candidate');
    expect(setWantsAcceptance(v)).toBe(true);
    expect(planCandidateSet(v).record.working).toBeUndefined();
  });

  it('every member’s check says the set waits for the agent, and no acceptance or gate check is planned', () => {
    const plan = planCandidateSet(view([titled(api, 'Search API', firstBody), titled(ui, '[WIP] Search box')]));
    const checks = plan.byRepo.flatMap((r) => r.actions).filter((a) => a.kind === 'check-run');
    expect(checks.map((c) => c.kind === 'check-run' && [c.name, c.status, c.title])).toEqual([
      [
        'Arbiter / selection',
        'in_progress',
        'Composing: set search for acme/app#42 waits: @Copilot is still working on acme/ui#9',
      ],
      [
        'Arbiter / selection',
        'in_progress',
        'Composing: set search for acme/app#42 waits: @Copilot is still working on acme/ui#9',
      ],
    ]);
  });

  it('with a member still to open too, both are named and the record does not time the hold from the heads', () => {
    const v = view([titled(api, '[WIP] Search API', firstBody), member(ui, { pull: null, standing: null })]);
    expect(setStanding(v)).toMatchObject({
      state: 'composing',
      reason: 'acme/ui#9 has not opened; @Copilot is still working on acme/api#7',
      waitingFor: [ui, api],
      working: [api],
    });
    expect(planCandidateSet(v).record.working).toBeUndefined();
  });

  it('once the marker is gone the set stands as a candidate, with new check keys', () => {
    const composing = planCandidateSet(view([titled(api, 'Search API', firstBody), titled(ui, '[WIP] Search box')]));
    const ready = planCandidateSet(view([titled(api, 'Search API', firstBody), titled(ui, 'Search box')]));
    expect(ready.standing.state).toBe('candidate');
    const keysOf = (p: typeof ready) => p.byRepo.flatMap((r) => r.actions.map((a) => a.key));
    expect(keysOf(composing).filter((k) => keysOf(ready).includes(k))).toEqual([]);
  });
});

describe('the plan of a set', () => {
  it('writes each member’s check in its own repository and records the set in the Change’s', () => {
    const untrusted = member(ui, {
      standing: { counts: false, reason: '@dev-b has no write access here (read access)', lookupFailed: false },
    });
    untrusted.pull = { ...untrusted.pull!, author: 'dev-b' };
    const plan = planCandidateSet(view([member(api, {}, firstBody), untrusted]));
    expect(plan.byRepo.map((r) => r.repo)).toEqual(['acme/app', 'acme/api', 'acme/ui']);
    expect(plan.byRepo[0]!.actions).toMatchObject([{ kind: 'record-set', record: { state: 'not-candidate' } }]);
    const [apiCheck] = plan.byRepo[1]!.actions;
    const [uiCheck] = plan.byRepo[2]!.actions;
    expect(apiCheck).toMatchObject({ kind: 'check-run', pr: 7, headSha: 'sha-7', conclusion: 'neutral' });
    expect(uiCheck).toMatchObject({ kind: 'check-run', pr: 9, headSha: 'sha-9', conclusion: 'neutral' });
    if (uiCheck?.kind !== 'check-run' || apiCheck?.kind !== 'check-run') throw new Error('checks expected');
    // The untrusted member's own check says why and how to admit it; the other names the member.
    expect(uiCheck.title).toMatch(/^Not a candidate: @dev-b has no write access here; a maintainer can admit it/);
    expect(apiCheck.title).toContain('member acme/ui#9: @dev-b has no write access in acme/ui');
    expect(plan.record).toMatchObject({ parts: [api, ui], heads: { 'acme/api#7': 'sha-7', 'acme/ui#9': 'sha-9' } });
  });

  it('a candidate set shows every member in progress, waiting for evidence, with the roster', () => {
    const plan = planCandidateSet(view([member(api, {}, firstBody), member(ui)]));
    const checks = plan.byRepo.flatMap((r) => r.actions).filter((a) => a.kind === 'check-run');
    expect(checks).toHaveLength(2);
    for (const c of checks) {
      if (c.kind !== 'check-run') continue;
      expect(c).toMatchObject({ status: 'in_progress', title: expect.stringContaining('Candidate for acme/app#42') });
      expect(c.summary).toContain('1. acme/api#7');
      expect(c.summary).toContain('2. acme/ui#9');
    }
  });

  it('keys change with the standing, so a set that becomes a candidate rewrites its checks', () => {
    const composing = planCandidateSet(view([member(api, {}, firstBody), member(ui, { pull: null, standing: null })]));
    const ready = planCandidateSet(view([member(api, {}, firstBody), member(ui)]));
    const keysOf = (p: typeof ready) => p.byRepo.flatMap((r) => r.actions.map((a) => a.key));
    expect(keysOf(composing).filter((k) => keysOf(ready).includes(k))).toEqual([]);
    for (const k of keysOf(ready)) expect(k.startsWith(`${candidateSetKey('acme/app', 42, 'search')}>`)).toBe(true);
    expect(candidateSetActionKey('acme/app', 42, 'search', 'x')).toBe('candidate-set:acme/app#42/search>x');
  });
});

describe('a set’s gate', () => {
  const gate = (promotable: boolean, settled = true) => ({
    required: [{ name: 'test', outcome: promotable ? ('pass' as const) : ('fail' as const), raw: null }],
    source: 'config' as const,
    settled,
    promotable: settled && promotable,
    reason: promotable ? '' : 'required check `test` failed',
    passingChecks: promotable ? 1 : 0,
    score: null,
    timedOut: false,
  });

  it('is promotable only when every member’s required checks passed, counting every member’s passing checks', () => {
    expect(setGate([member(api, { gate: gate(true) }), member(ui, { gate: gate(true) })])).toEqual({
      settled: true,
      promotable: true,
      reason: 'every required check of every member passed',
      passing: 2,
    });
  });

  it('a failed required check anywhere makes the set unpromotable, naming the member', () => {
    expect(setGate([member(api, { gate: gate(true, false) }), member(ui, { gate: gate(false) })])).toEqual({
      settled: true,
      promotable: false,
      reason: 'member acme/ui#9: required check `test` failed',
    });
  });

  it('waits while a member’s checks run, naming it', () => {
    expect(setGate([member(api, { gate: gate(true) }), member(ui, { gate: null })])).toMatchObject({
      settled: false,
      promotable: false,
      reason: 'waiting for the required checks of acme/ui#9',
    });
  });
});

describe('a set’s acceptance on its members', () => {
  const members = [member(api, {}, firstBody), member(ui)];
  const heads = headsOf(view(members));
  const judged = (key: string) => ({
    heads: key,
    evidence: {
      status: 'pass' as const,
      results: [{ id: 'AC1', status: 'met' as const, citation: null, reason: '', source: 'small' as const }],
      truncated: false,
      modelCalls: { small: 1, large: 0 },
    },
    shown: { conclusion: 'success' as const, title: '1 of 1 criterion met', summary: '| table |', text: '' },
  });
  const acceptanceChecks = (plan: ReturnType<typeof planCandidateSet>) =>
    plan.byRepo.flatMap((r) =>
      r.actions.flatMap((a) =>
        a.kind === 'check-run' && a.name === 'Arbiter / acceptance' ? [{ repo: r.repo, a }] : [],
      ),
    );

  it('each member’s head gets the set’s evidence, saying it was judged as part of the set; the record keeps it', () => {
    const plan = planCandidateSet({ ...view(members), acceptance: judged(setHeadsKey(heads)) });
    const checks = acceptanceChecks(plan);
    expect(
      checks.map(({ repo, a }) => [repo, a.kind === 'check-run' && a.pr, a.kind === 'check-run' && a.title]),
    ).toEqual([
      ['acme/api', 7, 'Set search: 1 of 1 criterion met'],
      ['acme/ui', 9, 'Set search: 1 of 1 criterion met'],
    ]);
    const ui9 = checks[1]!.a;
    expect(ui9.kind === 'check-run' && ui9.summary).toMatch(
      /^Judged as part of the set `search`, one candidate of acme\/app#42: .* \(acme\/api#7, acme\/ui#9 \(this pull request\)\)/,
    );
    expect(plan.record.acceptance?.heads).toBe(setHeadsKey(heads));
  });

  it('evidence judged on other heads is neither shown nor kept (a member pushed since)', () => {
    const plan = planCandidateSet({ ...view(members), acceptance: judged('acme/api#7@old') });
    expect(acceptanceChecks(plan)).toEqual([]);
    expect(plan.record.acceptance).toBeUndefined();
  });

  it('is wanted only for a candidate whose every member’s required checks passed', () => {
    const passed = { gate: { settled: true, promotable: true, reason: '', passingChecks: 1 } as SetMemberView['gate'] };
    expect(setWantsAcceptance(view([member(api, passed, firstBody), member(ui, passed)]))).toBe(true);
    expect(setWantsAcceptance(view([member(api, passed, firstBody), member(ui)]))).toBe(false);
    expect(setWantsAcceptance(view([member(api, passed, firstBody), member(ui, { pull: null, standing: null })]))).toBe(
      false,
    );
  });
});

describe('each member’s changes in the set’s record, for the risk policy', () => {
  const members = [member(api, {}, firstBody), member(ui)];
  const changes = (headSha: string, labels: string[] = []) => ({
    member: 'acme/ui#9',
    headSha,
    changedPaths: ['.github/workflows/ci.yml'],
    changedLines: 4,
    labels,
    policy: { autoShip: ['low' as const], rules: [] },
  });
  const recordAction = (plan: ReturnType<typeof planCandidateSet>) =>
    plan.byRepo[0]!.actions.find((a) => a.kind === 'record-set')!;

  it('keeps the changes read at a member’s head now, and drops those of a head it left', () => {
    expect(planCandidateSet({ ...view(members), changes: [changes('sha-9')] }).record.changes).toEqual([
      changes('sha-9'),
    ]);
    expect(planCandidateSet({ ...view(members), changes: [changes('old')] }).record.changes).toBeUndefined();
  });

  it('writes the record again when a member’s labels change on the same head', () => {
    const before = recordAction(planCandidateSet({ ...view(members), changes: [changes('sha-9')] }));
    const after = recordAction(planCandidateSet({ ...view(members), changes: [changes('sha-9', ['security'])] }));
    expect(after.key).not.toBe(before.key);
  });
});
