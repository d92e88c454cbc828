// What a trusted person's word records, as pure plans: the ledger facts (the first stands) and the
// events, each keyed so a later word logs again and the same word does not.
import { describe, expect, it } from 'vitest';
import { digest } from '../../src/core/digest.ts';
import {
  planAdmission,
  planAdoption,
  planHeadConfig,
  planLinkRecord,
  planSelectionLabel,
} from '../../src/core/plan/trust.ts';

const REPO = 'acme/todo';
const NOW = '2026-01-01T00:00:05.000Z';
const LATER = '2026-01-01T00:01:00.000Z';
const eventDigest = (event: string, data: Record<string, unknown>): string => digest({ event, data });
const keysOf = (actions: { key: string }[]): string[] => actions.map((a) => a.key);

describe('planAdoption', () => {
  it('records who adopted the issue and how, and logs it', () => {
    expect(planAdoption({ repo: REPO, issue: 7, by: 'maintainer', via: 'command' }, NOW)).toEqual([
      { kind: 'record', key: 'trust:adopted:acme/todo#7', value: { by: 'maintainer', via: 'command' } },
      {
        kind: 'event',
        key: `trust:adopted:acme/todo#7/event/${eventDigest('change.adopted', { issue: 7, by: 'maintainer', via: 'command' })}/${NOW}`,
        event: 'change.adopted',
        data: { issue: 7, by: 'maintainer', via: 'command' },
        at: NOW,
      },
    ]);
  });

  it('keeps the first adoption (same record key) but logs another word at once, or a later one', () => {
    const first = planAdoption({ repo: REPO, issue: 7, by: 'maintainer', via: 'label' }, NOW);
    const other = planAdoption({ repo: REPO, issue: 7, by: 'owner', via: 'command' }, NOW);
    const via = planAdoption({ repo: REPO, issue: 7, by: 'maintainer', via: 'command' }, NOW);
    const later = planAdoption({ repo: REPO, issue: 7, by: 'maintainer', via: 'label' }, LATER);
    expect(new Set([first, other, via, later].map((p) => p[0]!.key)).size).toBe(1);
    expect(new Set([first, other, via, later].map((p) => p[1]!.key)).size).toBe(4);
    // The same word at the same time plans the same keys: the executor applies it once.
    expect(keysOf(planAdoption({ repo: REPO, issue: 7, by: 'maintainer', via: 'label' }, NOW))).toEqual(keysOf(first));
  });
});

describe('planAdmission', () => {
  it('records that the PR was admitted, and this head for this Change, and logs it', () => {
    const plan = planAdmission({ repo: REPO, pr: 21, by: 'maintainer', headSha: 'abc', change: 7 }, NOW);
    expect(plan).toEqual([
      { kind: 'record', key: 'trust:admitted:acme/todo#21', value: { by: 'maintainer' } },
      { kind: 'record', key: 'trust:admitted:acme/todo#21@abc>7', value: { by: 'maintainer' } },
      {
        kind: 'event',
        key: `trust:admitted:acme/todo#21@abc>7/event/${eventDigest('candidate.admitted', { pr: 21, by: 'maintainer', headSha: 'abc', change: 7 })}/${NOW}`,
        event: 'candidate.admitted',
        data: { pr: 21, by: 'maintainer', headSha: 'abc', change: 7 },
        at: NOW,
      },
    ]);
  });

  it('admits each head on its own: a new head is a new record and a new event, the PR record the same', () => {
    const a = planAdmission({ repo: REPO, pr: 21, by: 'maintainer', headSha: 'abc', change: 7 }, NOW);
    const b = planAdmission({ repo: REPO, pr: 21, by: 'maintainer', headSha: 'def', change: 7 }, NOW);
    expect(b[0]!.key).toBe(a[0]!.key);
    expect(b[1]!.key).not.toBe(a[1]!.key);
    expect(b[2]!.key).not.toBe(a[2]!.key);
  });
});

describe('planLinkRecord', () => {
  it('records the PR link (the first stands) and logs each', () => {
    const plan = planLinkRecord({ repo: REPO, pr: 21, change: 7, by: 'maintainer' }, NOW);
    expect(plan).toEqual([
      { kind: 'record', key: 'trust:linked:acme/todo#21', value: { change: 7, by: 'maintainer' } },
      {
        kind: 'event',
        key: `trust:linked:acme/todo#21/event/${eventDigest('candidate.linked', { pr: 21, change: 7, by: 'maintainer' })}/${NOW}`,
        event: 'candidate.linked',
        data: { pr: 21, change: 7, by: 'maintainer' },
        at: NOW,
      },
    ]);
    const later = planLinkRecord({ repo: REPO, pr: 21, change: 8, by: 'maintainer' }, LATER);
    expect(later[0]!.key).toBe(plan[0]!.key);
    expect(later[1]!.key).not.toBe(plan[1]!.key);
  });
});

describe('planSelectionLabel and planHeadConfig', () => {
  it('record the label adder and the head config verdict under their own keys', () => {
    expect(planSelectionLabel({ repo: REPO, pr: 21, by: 'maintainer' })).toEqual([
      { kind: 'record', key: 'trust:selection-label:acme/todo#21', value: { by: 'maintainer' } },
    ]);
    expect(planHeadConfig({ repo: REPO, headSha: 'abc', error: 'bad' })).toEqual([
      { kind: 'record', key: 'head-config:acme/todo@abc', value: { error: 'bad' } },
    ]);
    expect(planHeadConfig({ repo: REPO, headSha: 'abc', error: null })[0]).toMatchObject({ value: { error: null } });
  });
});
