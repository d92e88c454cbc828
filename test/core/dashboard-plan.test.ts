// The dashboard issue's write, as a pure plan: opened when none was found, its body replaced when it
// says something else, nothing when it says the same; kept in shadow mode (the issue is Arbiter's own).
import { describe, expect, it } from 'vitest';
import { digest } from '../../src/core/digest.ts';
import { forMode } from '../../src/core/shadow.ts';
import { planDashboardWrite, type DashboardWriteView } from '../../src/core/plan/dashboard.ts';
import { DASHBOARD_TITLE, renderDashboard, type DashboardView } from '../../src/core/render/dashboard.ts';

const dashboard: DashboardView = {
  repoUrl: 'https://github.com/acme/todo',
  prefix: '/arbiter',
  config: { mode: 'live' },
  waiting: [{ change: 9, title: 'Search', winner: 95, candidates: [95], why: 'A person must decide.' }],
  rounds: [],
  decisions: [],
};
const body = renderDashboard(dashboard);
const view = (issue: DashboardWriteView['issue']): DashboardWriteView => ({
  repo: 'acme/todo',
  dashboard,
  issue,
  minute: 29_000_001,
  window: 2_900_000,
});

describe('planDashboardWrite', () => {
  it('opens the issue when none was found, keyed by the window of its one opener', () => {
    expect(planDashboardWrite(view(null))).toEqual({
      actions: [
        {
          kind: 'dashboard-issue',
          key: 'dashboard-open:acme/todo@2900000/open',
          issue: null,
          title: DASHBOARD_TITLE,
          body,
        },
      ],
      result: 'created',
    });
  });

  it('replaces a body that says something else, keyed by the minute and the new body', () => {
    expect(planDashboardWrite(view({ number: 3, body: 'old' }))).toEqual({
      actions: [
        {
          kind: 'dashboard-issue',
          key: `dashboard-run:acme/todo@29000001/edit/${digest(body)}`,
          issue: 3,
          title: DASHBOARD_TITLE,
          body,
        },
      ],
      result: 'edited',
    });
  });

  it('writes nothing when the issue says it already', () => {
    expect(planDashboardWrite(view({ number: 3, body }))).toEqual({ actions: [], result: 'unchanged' });
  });

  it('writes its issue in shadow mode too', () => {
    const { actions } = planDashboardWrite(view({ number: 3, body: null }));
    expect(actions).toHaveLength(1);
    expect(forMode(actions, { mode: 'shadow' })).toEqual(actions);
  });
});
