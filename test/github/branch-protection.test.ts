// Branch rules from both sources GitHub applies: rulesets and classic protection.
import { describe, expect, it } from 'vitest';
import { mergeBranchRules } from '../../src/github/branch-protection.ts';
import { computeGate } from '../../src/core/gate.ts';

const ruleset = [
  {
    type: 'required_status_checks',
    parameters: {
      strict_required_status_checks_policy: false,
      required_status_checks: [{ context: 'test', integration_id: 15368 }, { context: 'lint' }],
    },
  },
  { type: 'pull_request', parameters: { required_approving_review_count: 2 } },
];
const classic = {
  protected: true,
  protection: {
    enabled: true,
    required_status_checks: {
      enforcement_level: 'non_admins',
      contexts: ['e2e', 'lint'],
      checks: [
        { context: 'e2e', app_id: 42 },
        { context: 'lint', app_id: null },
      ],
      strict: true,
    },
  },
};

describe('mergeBranchRules', () => {
  it('requires the union of both sources, pins the app a rule names, and takes either strict policy', () => {
    expect(mergeBranchRules(ruleset, classic)).toEqual({
      required: ['test@15368', 'lint', 'e2e@42'],
      requiredReviews: 2,
      mergeQueue: false,
      strict: true,
    });
  });

  it('without classic protection (GitHub says protected: false) or rulesets: nothing required', () => {
    const off = {
      protected: false,
      protection: { enabled: false, required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] } },
    };
    expect(mergeBranchRules([], off)).toEqual({ required: null, requiredReviews: 0, mergeQueue: false, strict: false });
    expect(mergeBranchRules([], null).required).toBeNull();
  });

  it("a check pinned to an app counts only that app's run (by its id)", () => {
    const run = (appId: number) => ({
      name: 'test',
      kind: 'check' as const,
      raw: 'success',
      outcome: 'pass' as const,
      title: null,
      summary: null,
      app: 'some-app',
      appId,
    });
    const gate = (appId: number) =>
      computeGate({
        configured: [],
        branchRequired: ['test@15368'],
        observed: [run(appId)],
        scoreCheck: null,
        allowNoChecks: false,
        blockers: [],
      });
    expect(gate(15368).promotable).toBe(true);
    expect(gate(99).promotable).toBe(false);
  });
});
