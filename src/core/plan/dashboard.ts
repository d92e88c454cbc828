// The dashboard issue's write, planned (pure): the body rendered from what the store knows, then
// the issue opened (none was found, and this run holds the window's opening) or its body replaced
// when it says something else. workflows/dashboard.ts reads the store and the issue, takes the
// run's and the opening's claims, and applies this through the executor.
import type { Action } from '../actions.ts';
import { dashboardEditKey, dashboardOpenedKey } from '../keys.ts';
import { DASHBOARD_TITLE, renderDashboard, type DashboardView } from '../render/dashboard.ts';
import { digest } from '../digest.ts';

export interface DashboardWriteView {
  repo: string;
  /** What the store knows, as the dashboard shows it. */
  dashboard: DashboardView;
  /** Arbiter's dashboard issue as found; null: none, and this run holds the window's opening. */
  issue: { number: number; body: string | null } | null;
  /** The minute this run holds (one run a minute), and the window of the opening (one opener a window). */
  minute: number;
  window: number;
}

export type DashboardWrite = 'created' | 'edited' | 'unchanged';

/**
 * Opens the issue, or replaces its body with the rendered one; an issue that says it already is
 * left alone. A person may close or retitle it: only its body is Arbiter's. The opening is keyed by
 * the window (its one opener, and that opener's retry, open it once); an edit by the minute and the
 * body's digest.
 */
export function planDashboardWrite(view: DashboardWriteView): { actions: Action[]; result: DashboardWrite } {
  const body = renderDashboard(view.dashboard);
  const write = { kind: 'dashboard-issue' as const, title: DASHBOARD_TITLE, body };
  if (view.issue === null)
    return { actions: [{ ...write, key: dashboardOpenedKey(view.repo, view.window), issue: null }], result: 'created' };
  if (view.issue.body === body) return { actions: [], result: 'unchanged' };
  const key = dashboardEditKey(view.repo, view.minute, digest(body));
  return { actions: [{ ...write, key, issue: view.issue.number }], result: 'edited' };
}
