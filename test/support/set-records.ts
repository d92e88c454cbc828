// A candidate set's record as the store keeps it once the set was judged (core/candidate-set.ts):
// members acme/api#7 and acme/ui#9 of acme/app#42 by default, its gate passed in every member, and
// one model call's verdict per criterion. The set tables of test/core build theirs from here.
import { setHeadsKey, type MemberChanges, type SetRecord } from '../../src/core/candidate-set.ts';
import type { Criterion, CriterionStatus } from '../../src/core/types.ts';

export const API7 = { repo: 'acme/api', number: 7 };
export const UI9 = { repo: 'acme/ui', number: 9 };

export interface JudgedSet {
  name?: string;
  /** The head of each member, by `owner/repo#n`. */
  heads: Record<string, string>;
  criteria: readonly Criterion[];
  /** One status per criterion, in order. */
  statuses: readonly CriterionStatus[];
  /** Each member's changes at its head, read for the risk policy; absent when not read. */
  changes?: MemberChanges[];
  change?: SetRecord['change'];
}

export function judgedSet(s: JudgedSet): SetRecord {
  return {
    change: s.change ?? { repo: 'acme/app', number: 42 },
    name: s.name ?? 'good',
    first: API7,
    parts: [API7, UI9],
    seen: [],
    state: 'candidate',
    reason: '',
    heads: s.heads,
    gate: { settled: true, promotable: true, reason: 'every required check of every member passed', passing: 2 },
    acceptance: {
      heads: setHeadsKey(s.heads),
      evidence: {
        status: s.statuses.every((v) => v === 'met') ? 'pass' : 'fail',
        results: s.criteria.map((c, i) => ({
          id: c.id,
          status: s.statuses[i]!,
          citation: null,
          reason: '',
          source: 'small',
        })),
        truncated: false,
        modelCalls: { small: 1, large: 0 },
      },
    },
    ...(s.changes ? { changes: s.changes } : {}),
  };
}

/** Each member changing the same ordinary file at its head, under the policy given. */
export const ordinaryChanges = (heads: Record<string, string>, policy: MemberChanges['policy']): MemberChanges[] =>
  Object.entries(heads).map(([member, headSha]) => ({
    member,
    headSha,
    changedPaths: ['src/search.ts'],
    changedLines: 10,
    labels: [],
    policy,
  }));
