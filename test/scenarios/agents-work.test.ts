// Real agents at work (issue 30, items 3 and 4) against the real app: an agent still at work
// (a [WIP] title) holds the round and is never closed while it works, and GitHub Actions runs that
// wait for a maintainer's approval are waited for (the checks say what to approve), not failed.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { loadScenarioFile, parseScenario, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';

const SELECTION = 'Arbiter / selection';
const SLOW = { timeout: 300_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const run = (scenario: Scenario): Promise<Transcript> => playStory(scenario);
/** The story cut before time `at`: its events before then, played until `at`. */
const cutAt = (s: Scenario, at: number): Scenario => ({ ...s, events: s.events.filter((e) => e.at < at), until: at });

const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300).map((w) => w.summary);
const merges = (t: Transcript): string[] => applied(t).filter((s) => s.startsWith('merge '));
const closes = (t: Transcript, n: number): string[] =>
  applied(t).filter((s) => new RegExp(`^close #${n}(?!\\d)`).test(s));

describe("Actions runs that wait for a maintainer's approval", () => {
  it('are waited for past the sibling timeout, with what to approve and where on both checks', SLOW, async () => {
    const s = await load('agent-actions-approval');
    let dashboards: { body: string }[] = [];
    const t = await playStory(cutAt(s, 390), { inspect: (gh) => void (dashboards = gh.issuesOpenedByApp(s.repo)) });
    expect(merges(t)).toEqual([]);
    expect(closes(t, 22)).toEqual([]);
    expect(t.prs['22'].state).toBe('open');
    const own = t.prs['22'].checks[SELECTION];
    expect(own).toMatchObject({
      status: 'in_progress',
      title: 'Waiting for a maintainer to approve the GitHub Actions runs',
    });
    // The link is the pull request's own page on GitHub's host (its merge box holds the button).
    expect(own.summary).toMatch(
      /"Approve and run workflows" on the pull request \(https?:\/\/[^)]+\/acme\/todo\/pull\/22\)/,
    );
    // Not timed out: no gate check says "timed out", no acceptance ran without CI.
    expect(t.prs['22'].checks['Arbiter / gate']).toBeUndefined();
    expect(t.prs['22'].checks['Arbiter / acceptance']).toBeUndefined();
    // The sibling that settled first waits for it, and says why.
    expect(t.prs['21'].checks[SELECTION].status).toBe('in_progress');
    expect(t.prs['21'].checks[SELECTION].title).toMatch(
      /^Waiting on #22 \(GitHub Actions runs wait for a maintainer's approval/,
    );
    expect(t.prs['21'].state).toBe('open');
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]!.body).toContain("#22 (GitHub Actions runs wait for a maintainer's approval");
  });

  it('ship once a maintainer approved the runs and CI passed', SLOW, async () => {
    const t = await run(await load('agent-actions-approval'));
    expect(merges(t)).toEqual(['merge #22']);
    expect(t.prs['22'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Selected: shipped' });
    expect(t.prs['21']).toMatchObject({ state: 'closed', labels: ['arbiter:lost'] });
  });
  it('a check run that ran and concluded action_required is a failure, and the runner reports it', SLOW, async () => {
    const s = await load('agent-actions-approval');
    const ran = s.candidates.map((c) =>
      c.number === 22
        ? {
            ...c,
            checks: [
              {
                name: 'test',
                kind: 'check' as const,
                conclusion: 'action_required' as const,
                at: 5,
                never: false,
                rerunAfter: 1,
              },
            ],
          }
        : c,
    );
    const t = await run({ ...s, candidates: ran, events: [], until: 60 });
    expect(t.prs['22'].checks['Arbiter / gate']).toMatchObject({
      conclusion: 'failure',
      title: 'Not promotable: required check `test` failed',
    });
    expect(t.prs['22'].checks[SELECTION]?.title ?? '').not.toMatch(/approve/i);
  });
});

describe('an agent still at work (a [WIP] title)', () => {
  it(
    'holds the round: no acceptance check on its interim heads, never closed, and everyone says who works',
    SLOW,
    async () => {
      const s = await load('agent-copilot-wip');
      let dashboards: { title: string; body: string }[] = [];
      const t = await playStory(cutAt(s, 220), { inspect: (gh) => void (dashboards = gh.issuesOpenedByApp(s.repo)) });
      expect(merges(t)).toEqual([]);
      expect(closes(t, 101)).toEqual([]);
      expect(closes(t, 21)).toEqual([]);
      expect(t.prs['101']).toMatchObject({ state: 'open', merged: false });
      // Three heads, CI passed on each, and not one acceptance check: no model call while it works.
      expect(t.prs['101'].checks['Arbiter / gate']).toMatchObject({ conclusion: 'success' });
      expect(t.prs['101'].checks['Arbiter / acceptance']).toBeUndefined();
      expect(t.prs['101'].checks[SELECTION]).toMatchObject({
        status: 'in_progress',
        title: '@Copilot is still working on #101',
      });
      // #21 settled at 5 s and waits for it (the sibling timeout is 900 s).
      expect(t.prs['21'].checks[SELECTION]).toMatchObject({
        status: 'in_progress',
        title: 'Waiting: @Copilot is still working on #101',
      });
      expect(dashboards).toHaveLength(1);
      expect(dashboards[0]!.body).toContain('@Copilot is still working on #101');
    },
  );

  it('is verified once the title drops the marker, and ships over the sibling that finished first', SLOW, async () => {
    const t = await run(await load('agent-copilot-wip'));
    expect(merges(t)).toEqual(['merge #101']);
    expect(t.prs['101'].checks['Arbiter / acceptance']).toMatchObject({ conclusion: 'success' });
    expect(t.prs['101'].reviewers).toEqual(['requester']);
    expect(t.prs['21']).toMatchObject({ state: 'closed', labels: ['arbiter:lost'] });
  });
  it(
    'holds the round only for selection.siblingTimeout: the round goes on without it, and it is still never closed',
    SLOW,
    async () => {
      // The same story, but the sibling timeout is 100 s and Copilot's real work comes at 400 s.
      const file = fileURLToPath(new URL('../../fixtures/scenarios/agent-copilot-wip.yml', import.meta.url));
      const raw = z.record(z.string(), z.unknown()).parse(parseYaml(readFileSync(file, 'utf8')));
      const Event = z.looseObject({ at: z.number(), push: z.looseObject({}).optional() });
      const events = z
        .array(Event)
        .parse(raw.events)
        .map((e) =>
          e.at === 200
            ? { ...e, at: 400, push: { ...e.push, checks: [{ name: 'test', conclusion: 'success', at: 410 }] } }
            : e.at >= 229
              ? { ...e, at: e.at + 200 }
              : e,
        );
      const parsed = parseScenario({
        ...raw,
        config: z.string().parse(raw.config).replace('siblingTimeout: 900', 'siblingTimeout: 100'),
        // A moment on the clock after the timeout (the sweep runs then).
        events: [...events, { at: 300, comment: { on: 8, user: 'requester', body: 'Any news?' } }],
        until: 600,
      });
      if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
      const t = await run(parsed.scenario);
      const at = (summary: string): number => t.writes.find((w) => w.status < 300 && w.summary === summary)?.at ?? NaN;
      // Round 1 was decided without #101 after its hold ran out: #21 alone goes to a person.
      expect(at('label #21 arbiter:awaiting-approval')).toBeGreaterThanOrEqual(160);
      expect(at('label #21 arbiter:awaiting-approval')).toBeLessThan(400);
      // #101 was never closed; once done it was compared in the next round, and shipped.
      expect(closes(t, 101)).toEqual([]);
      expect(merges(t)).toEqual(['merge #101']);
      expect(at('merge #101')).toBeGreaterThanOrEqual(430);
    },
  );
});
