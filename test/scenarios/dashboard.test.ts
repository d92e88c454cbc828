// The dashboard issue against the real app (issue 16): two Changes, one shipped and one before a
// person, give exactly one "Arbiter dashboard" issue, listing the waiting one with its action;
// every webhook delivered three times gives no second one.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import type { GitHubEmulator } from '../../sim/github/index.ts';
import { renderTranscriptHtml } from '../../sim/runner/html.ts';
import { inList, structureOf, structureOfHtml } from '../support/gfm.ts';
import { withFaults } from '../reliability/helpers.ts';

const SLOW = { timeout: 400_000 };
const ISSUES = '/repos/{owner}/{repo}/issues';

const load = (): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL('../../fixtures/scenarios/dashboard-two-changes.yml', import.meta.url)));

async function play(
  s: Scenario,
): Promise<{ t: Transcript; dashboards: ReturnType<GitHubEmulator['issuesOpenedByApp']> }> {
  let dashboards: ReturnType<GitHubEmulator['issuesOpenedByApp']> = [];
  const t = await playStory(s, { inspect: (gh) => void (dashboards = gh.issuesOpenedByApp(s.repo)) });
  return { t, dashboards };
}

const opens = (t: Transcript) => t.writes.filter((w) => w.method === 'POST' && w.route === ISSUES && w.status < 300);

function expectOneDashboard(t: Transcript, dashboards: { title: string; body: string; state: string }[]): void {
  expect(t.prs['85']?.merged, '#85 shipped').toBe(true);
  expect(t.prs['95']?.labels).toContain('arbiter:awaiting-approval');
  expect(opens(t)).toHaveLength(1);
  expect(dashboards.map((d) => d.title)).toEqual(['Arbiter dashboard']);
  const { tables, visible } = structureOf(dashboards[0]!.body);
  expect(visible).not.toMatch(/<!--|-->|arbiter:dashboard/);
  expect(tables).toHaveLength(1);
  expect(inList(tables[0]!.ancestors)).toBe(false);
  // Only the Change before a person waits: #9, its candidate #95 and the command that ships it.
  expect(tables[0]!.rows.map((r) => [r[0], r[2]])).toEqual([['#9 Search the todo list', '#95']]);
  expect(tables[0]!.rows[0]![3]).toContain('/arbiter promote on #95');
  // The shipped one is among the decisions.
  expect(visible).toContain('#85 shipped');
}

describe('the dashboard issue', () => {
  it(
    'is one issue listing the waiting Change with its action, also when every webhook comes three times',
    SLOW,
    async () => {
      const calm = await play(await load());
      expectOneDashboard(calm.t, calm.dashboards);
      const again = await play(withFaults(await load(), { redeliver: { copies: 3, seed: 11 } }));
      expectOneDashboard(again.t, again.dashboards);
      const stable = (body: string) => body.replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://github');
      expect(stable(again.dashboards[0]!.body)).toBe(stable(calm.dashboards[0]!.body));

      // The `npm run simulate -- --html` page shows the dashboard issue, its table rendered.
      const [number] = Object.entries(calm.t.issues).find(([, i]) => i.title === 'Arbiter dashboard') ?? [];
      expect(number, 'the dashboard issue is in the transcript').toBeDefined();
      const page = renderTranscriptHtml(calm.t, 'dashboard-two-changes');
      const from = page.indexOf(`<section id="issue-${number}"`);
      expect(from).toBeGreaterThan(-1);
      const shown = structureOfHtml(page.slice(from, page.indexOf('</section>', from)));
      expect(shown.visible).toContain('Arbiter dashboard');
      expect(shown.tables.map((t) => t.rows.map((r) => r[0]))).toEqual([['#9 Search the todo list']]);
    },
  );
});
