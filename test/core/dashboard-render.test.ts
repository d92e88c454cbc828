// The dashboard issue's body, rendered as GitHub would (GFM): the waiting list is a table with
// the reason, the candidate and the action; markers show nothing; any number of Changes fits.
import { describe, expect, it } from 'vitest';
import {
  DASHBOARD_MARKER,
  describeDecision,
  renderDashboard,
  type DashboardView,
} from '../../src/core/render/dashboard.ts';
import { BODY_LIMIT } from '../../src/core/render/markdown.ts';
import { hasMarker } from '../../src/core/render/markers.ts';
import { inList, structureOf } from '../support/gfm.ts';

const URL = 'https://github.com/acme/todo';

const view = (over: Partial<DashboardView> = {}): DashboardView => ({
  repoUrl: URL,
  prefix: '/arbiter',
  config: { mode: 'live' },
  waiting: [
    {
      change: 43,
      title: 'Dark mode | toggle',
      winner: 21,
      candidates: [21],
      why: 'Best candidate #21 meets 1 of 2 criteria (not met: AC2).',
    },
  ],
  rounds: [{ change: 44, title: 'Export to CSV', base: 'main', round: 1, waitingOn: ['#30 (CI running)'] }],
  decisions: [
    {
      change: 42,
      round: 1,
      at: '2026-03-02T09:01:00.000Z',
      what: describeDecision(
        { kind: 'PROMOTION', data: { candidate: 12, headSha: 'b'.repeat(40), by: 'arbiter', method: 'squash' } },
        { mode: 'live' },
      ),
    },
    {
      change: 43,
      round: 1,
      at: '2026-03-02T09:02:00.000Z',
      what: describeDecision(
        {
          kind: 'HUMAN_GATE',
          data: { candidates: [21], winner: 21, why: 'Best candidate #21 meets 1 of 2 criteria.' },
        },
        { mode: 'live' },
      ),
    },
  ],
  ...over,
});

describe('renderDashboard', () => {
  it('lists what waits for a person as a table: Change, reason, candidate and action', () => {
    const body = renderDashboard(view());
    expect(hasMarker(body, DASHBOARD_MARKER)).toBe(true);
    const { tables, visible } = structureOf(body);
    expect(tables).toHaveLength(1);
    const [table] = tables;
    expect(inList(table!.ancestors)).toBe(false);
    expect(table!.headers).toEqual(['Change', 'Reason', 'Candidate', 'Action']);
    expect(table!.rows).toHaveLength(1);
    const [change, reason, candidate, action] = table!.rows[0]!;
    // The pipe in the title stays inside its cell.
    expect(change).toBe('#43 Dark mode | toggle');
    expect(reason).toContain('meets 1 of 2 criteria');
    expect(candidate).toBe('#21');
    expect(action).toContain('/arbiter promote on #21');
    expect(action).toContain('/arbiter cancel on #43');
    expect(visible).toContain('round 1 on main: waits for #30 (CI running)');
    expect(visible).toContain('#12 shipped');
    expect(visible).not.toMatch(/<!--|-->|arbiter:dashboard/);
    expect(body).toContain(`[#21](${URL}/pull/21)`);
    expect(body).toContain(`[#43](${URL}/issues/43)`);
  });

  it('shows an invalid config first: its lines as a list, and what Arbiter does until it is fixed', () => {
    const problems =
      'gate.required (line 3): Expected array, received string\nselection.siblingTimeout (line 5): Number must be greater than or equal to 60';
    const body = renderDashboard(view({ configProblems: problems }));
    const { visible, lists } = structureOf(body);
    expect(visible).toContain('.github/arbiter.yml does not validate');
    expect(visible).toContain('gate.required (line 3): Expected array, received string');
    expect(visible).toContain('selection.siblingTimeout (line 5)');
    expect(visible).toContain("Arbiter acts on no Change until the default branch's .github/arbiter.yml is fixed");
    // Above what waits for a person, and one more top-level list than without it.
    expect(visible.indexOf('does not validate')).toBeLessThan(visible.indexOf('What waits for a person'));
    expect(lists).toBe(structureOf(renderDashboard(view())).lists + 1);
    // A valid config shows nothing of it.
    expect(structureOf(renderDashboard(view({ configProblems: '' }))).visible).not.toContain('does not validate');
  });

  it('says so when nothing waits, and says "would" in shadow mode', () => {
    const none = structureOf(renderDashboard(view({ waiting: [], rounds: [], decisions: [] })));
    expect(none.tables).toEqual([]);
    expect(none.visible).toContain('Nothing waits for a person.');
    expect(none.visible).toContain('No round is open.');
    const shadow = structureOf(renderDashboard(view({ config: { mode: 'shadow' } })));
    expect(shadow.visible).toContain('What would wait for a person');
    expect(shadow.visible).toContain('Shadow mode');
    expect(describeDecision({ kind: 'HUMAN_GATE', data: { candidates: [21], why: 'x' } }, { mode: 'shadow' })).toBe(
      '#21 would wait for a person: x',
    );
  });

  it('asks a person to choose when several candidates are tied', () => {
    const { tables } = structureOf(
      renderDashboard(
        view({
          waiting: [
            { change: 43, title: 'T', winner: null, candidates: [21, 22], why: 'The judge could not settle the tie.' },
          ],
        }),
      ),
    );
    expect(tables[0]!.rows[0]![2]).toBe('#21, #22');
    expect(tables[0]!.rows[0]![3]).toContain('choose one of #21, #22 and comment /arbiter promote on it');
  });

  it('stays under GitHub limit with a thousand Changes, saying how many are not shown', () => {
    const long = 'criterion text that goes on '.repeat(40);
    const waiting = Array.from({ length: 1000 }, (_, i) => ({
      change: 1000 + i,
      title: `Change ${i} ${long}`,
      winner: 5000 + i,
      candidates: [5000 + i],
      why: long,
    }));
    const rounds = Array.from({ length: 1000 }, (_, i) => ({
      change: 9000 + i,
      title: `Round ${i} ${long}`,
      base: 'main',
      round: 2,
      waitingOn: [`#${i} (${long})`],
    }));
    const decisions = Array.from({ length: 20 }, (_, i) => ({
      change: i,
      round: 1,
      at: '2026-03-02T09:00:00.000Z',
      what: long,
    }));
    const body = renderDashboard(view({ waiting, rounds, decisions }));
    expect(body.length).toBeLessThanOrEqual(BODY_LIMIT);
    const { tables, visible } = structureOf(body);
    expect(tables[0]!.rows.length).toBeGreaterThan(10);
    expect(visible).toMatch(/\d+ more entries are not shown/);
    expect(visible).not.toMatch(/<!--|-->/);
  });
});
