// `/arbiter link #N` as a pure decision: what to answer, or the link to record.
import { describe, expect, it } from 'vitest';
import { planLink, type LinkInput } from '../../src/core/plan/link.ts';

const base: LinkInput = {
  pr: 12,
  by: 'maintainer',
  prefix: '/arbiter',
  change: 42,
  isPullRequest: true,
  candidateFor: null,
  pull: { open: true, headSha: 'abc' },
  issue: { isPullRequest: false, open: true },
};

describe('planLink', () => {
  it.each<[string, Partial<LinkInput>, string]>([
    ['on an issue', { isPullRequest: false }, 'not_a_pull_request'],
    ['to itself', { change: 12 }, 'not_an_issue'],
    ['already a candidate of another Change', { candidateFor: 7 }, 'already_a_candidate'],
    ['a closed pull request', { pull: { open: false, headSha: 'abc' } }, 'not_open'],
    ['a pull request not found', { pull: null }, 'not_open'],
    ['no such issue', { issue: null }, 'not_an_issue'],
    ['to a pull request', { issue: { isPullRequest: true, open: true } }, 'not_an_issue'],
    ['to a closed issue', { issue: { isPullRequest: false, open: false } }, 'not_open'],
  ])('refuses %s', (_label, over, code) => {
    const plan = planLink({ ...base, ...over });
    expect(plan).toMatchObject({ kind: 'answer', reply: { ok: false, code } });
  });

  it('says so when it is already a candidate for that Change', () => {
    expect(planLink({ ...base, candidateFor: 42 })).toEqual({
      kind: 'answer',
      reply: { ok: true, message: '#12 is already a candidate for #42.' },
    });
  });

  it('links an open pull request to an open issue, with both replies ready', () => {
    const plan = planLink(base);
    expect(plan.kind).toBe('link');
    if (plan.kind !== 'link') return;
    expect(plan.change).toBe(42);
    expect(plan.replies.recorded.message).toContain("Linked #12 to #42 on @maintainer's word");
    expect(plan.replies.notRecorded.message).toContain('its `Arbiter / selection` check says why');
  });
});
