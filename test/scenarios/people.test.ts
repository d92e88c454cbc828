// People in the loop against the real app (issue 7): one repair for a winner with an unmet
// criterion, whose push ships in the next round; a gated winner that a read-only user cannot
// promote and a maintainer can. Plus the example repair workflow in examples/ parses and fits the payload.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { loadScenarioFile, verdictLine, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { expectRendersClean } from '../support/gfm.ts';
import { expectMergedOnPromoteViews } from '../support/current-views.ts';

const SELECTION = 'Arbiter / selection';
const AWAITING = 'arbiter:awaiting-approval';
// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };
const EXAMPLE = fileURLToPath(new URL('../../examples/agent-repair.yml', import.meta.url));

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = async (s: Scenario): Promise<Transcript> => expectRendersClean(await playStory(s));

const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);
const writesBetween = (t: Transcript, from: number, to: number): string[] =>
  applied(t)
    .filter((w) => w.at >= from && w.at < to)
    .map((w) => w.summary);
const botComments = (t: Transcript, num: number): string =>
  (t.prs[String(num)] ?? t.issues[String(num)]).comments
    .filter((c) => c.user === 'arbiter[bot]')
    .map((c) => c.body)
    .join('\n');

/** Closures, merges, labels and dispatches are each written once; no comment body appears twice in a thread. */
function expectNothingTwice(t: Transcript): void {
  const once = applied(t)
    .map((w) => w.summary)
    .filter((s) => /^(close|merge|label|dispatch) /.test(s));
  expect(
    once.filter((s, i) => once.indexOf(s) !== i),
    'repeated writes',
  ).toEqual([]);
  for (const [num, thread] of [...Object.entries(t.prs), ...Object.entries(t.issues)]) {
    const bodies = thread.comments.map((c) => `${c.user}\n${c.body}`);
    expect(
      bodies.filter((b, i) => bodies.indexOf(b) !== i),
      `repeated comment on #${num}`,
    ).toEqual([]);
  }
}

/** The `client_payload.<key>` names the example workflow reads. */
async function payloadKeysReadByExample(): Promise<string[]> {
  const text = await readFile(EXAMPLE, 'utf8');
  return [...new Set([...text.matchAll(/github\.event\.client_payload\.([a-z_]+)/g)].map((m) => m[1]))].sort();
}

describe('people in the loop', () => {
  it(
    'a winner with an unmet criterion gets exactly one repair; the pushed fix ships in the next round',
    SLOW,
    async () => {
      const scenario = await load('people-repair');
      const push = scenario.events.find((e) => e.push)!;
      const pushedChecksDone = Math.max(...push.push!.checks.map((c) => c.at ?? 0));
      const t = await play(scenario);

      // Round 1: the sibling that met fewer criteria loses; the winner gets the one repair, not a merge.
      const round1 = writesBetween(t, 0, push.at);
      expect(round1).toContain('close #82, label #82 arbiter:lost');
      expect(round1.filter((s) => s.startsWith('merge '))).toEqual([]);
      expect(round1.filter((s) => s === 'dispatch arbiter.repair')).toHaveLength(1);
      expect(t.dispatches).toHaveLength(1);
      const repair = t.dispatches[0];
      expect(repair.event_type).toBe('arbiter.repair');
      const payload = z.record(z.string(), z.unknown()).parse(repair.client_payload);
      expect(Object.keys(payload).length).toBeLessThanOrEqual(10);
      expect(payload).toMatchObject({ change: 7, candidate: 81, base: 'main', objective: 'meet AC2', round: 1 });
      expect(payload.criteria).toEqual([{ id: 'AC2', text: 'The search ignores upper and lower case' }]);
      expect(payload.head_sha).toMatch(/^[0-9a-f]{40}$/);
      expect(botComments(t, 7)).toContain('Arbiter requested one repair of #81 (objective: meet AC2).');
      // Every payload key the example repair workflow reads is one Arbiter sends.
      expect((await payloadKeysReadByExample()).filter((k) => !(k in payload))).toEqual([]);

      // Round 2: the pushed head meets both criteria and ships once its checks pass; no second repair.
      expect(t.prs['81']).toMatchObject({ state: 'closed', merged: true, draft: false });
      expect(t.prs['81'].checks[SELECTION]).toMatchObject({
        status: 'completed',
        conclusion: 'success',
        title: 'Selected: shipped',
      });
      expect(t.prs['81'].checks['Arbiter / acceptance']).toMatchObject({
        conclusion: 'success',
        title: '2 of 2 criteria met',
      });
      const merges = applied(t).filter((w) => w.summary.startsWith('merge '));
      expect(merges.map((w) => w.summary)).toEqual(['merge #81']);
      expect(merges[0].at).toBeGreaterThanOrEqual(pushedChecksDone);
      expect(botComments(t, 7)).toContain('comparison of the candidates for #7 (round 2)');
      // Once merged, the comparison says so (issue 25); round 1 is folded below it.
      expect(botComments(t, 7)).toMatch(/#81 merged as \[[0-9a-f]{7}\]\([^)]+\): met 2 of 2 criteria/);
      expect(botComments(t, 7)).toContain('Earlier rounds (1)');
      expect(t.prs['82']).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
      expect(verdictLine(t)).toMatch(/^Winner: #81 shipped/);
      expectNothingTwice(t);
    },
  );

  it(
    '/arbiter promote: refused with a reply for a read user (nothing changes), ships the gated winner for a write user',
    SLOW,
    async () => {
      const scenario = await load('people-promote');
      const [byVisitor, byMaintainer] = scenario.events.filter((e) => e.comment?.body === '/arbiter promote');
      expect([byVisitor.comment!.user, byMaintainer.comment!.user]).toEqual(['visitor', 'maintainer']);
      const t = await play(scenario);
      expectMergedOnPromoteViews(t);

      // Before anyone acts: the winner waits for a person, and says why.
      const gated = writesBetween(t, 0, byVisitor.at);
      expect(gated).toContain(`label #85 ${AWAITING}`);
      expect(gated).toContain('check-run Arbiter / selection on #85: completed action_required');
      expect(gated).toContain('close #86, label #86 arbiter:lost');
      expect(gated.filter((s) => s.startsWith('merge ') || s === 'close #85')).toEqual([]);
      expect(botComments(t, 85)).toContain(
        'Best candidate #85 meets 1 of 2 criteria (1 for a person). Approve to ship it or cancel the change.',
      );
      expect(botComments(t, 85)).toContain('AC2 (Typing in the search box feels instant on a phone)');

      // The read-only visitor: a reply and a confused reaction, nothing else.
      expect(writesBetween(t, byVisitor.at, byMaintainer.at)).toEqual([
        'comment on #85',
        'react confused to a comment on #85',
      ]);
      expect(botComments(t, 85)).toContain(
        '@visitor: `promote` needs write, maintain or admin access to this repository; you have read access.',
      );

      // The maintainer: marked ready, merged at the verified head, label removed, selection success.
      const promoted = writesBetween(t, byMaintainer.at, Number.POSITIVE_INFINITY);
      expect(promoted).toEqual(
        expect.arrayContaining([`unlabel #85 ${AWAITING}`, 'ready for review #85', 'merge #85']),
      );
      expect(t.prs['85']).toMatchObject({ state: 'closed', merged: true, draft: false });
      expect(t.prs['85'].labels).not.toContain(AWAITING);
      expect(t.prs['85'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Promoted by @maintainer' });
      expect(botComments(t, 85)).toMatch(/Promoted #85 at [0-9a-f]{7}: merged\./);
      expect(
        applied(t)
          .filter((w) => w.summary.startsWith('merge '))
          .map((w) => [w.summary, w.at]),
      ).toEqual([['merge #85', byMaintainer.at]]);
      expect(t.dispatches).toEqual([]);
      expectNothingTwice(t);
    },
  );
});

const Step = z.object({
  name: z.string().min(1),
  if: z.string().optional(),
  uses: z.string().optional(),
  run: z.string().optional(),
  with: z.record(z.string(), z.unknown()).optional(),
});
const Workflow = z.object({
  name: z.string(),
  on: z.object({ repository_dispatch: z.object({ types: z.array(z.string()) }) }),
  jobs: z.record(
    z.string(),
    z.object({ 'runs-on': z.string(), env: z.record(z.string(), z.string()), steps: z.array(Step).min(1) }),
  ),
});

describe('examples/agent-repair.yml', () => {
  it('is a workflow answering arbiter.repair: finds the branch, checks it out, runs a marked agent step, pushes', async () => {
    const parsed = Workflow.safeParse(parseYaml(await readFile(EXAMPLE, 'utf8')));
    if (!parsed.success) throw new Error(parsed.error.message);
    const wf = parsed.data;
    expect(wf.on.repository_dispatch.types).toEqual(['arbiter.repair']);
    const [job] = Object.values(wf.jobs);
    const names = job.steps.map((s) => s.name);
    const at = (pattern: RegExp) => names.findIndex((n) => pattern.test(n));
    const order = [at(/branch$/i), at(/^Check out/), at(/YOUR CODING AGENT/), at(/push/i)];
    expect(
      order.every((i) => i >= 0),
      names.join(' | '),
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(job.steps[order[0]].run).toContain('gh pr view "$CANDIDATE"');
    expect(job.steps[order[1]]).toMatchObject({
      uses: expect.stringMatching(/^actions\/checkout@/),
      with: { ref: '${{ steps.candidate.outputs.branch }}' },
    });
    expect(job.steps[order[3]].run).toContain('git push origin "HEAD:refs/heads/$BRANCH"');
    expect(job.steps[order[3]].run).not.toMatch(/--force|\s-f\s/);
    // Payload values reach scripts only through env (no `${{ github.event… }}` inside a run script).
    expect(job.steps.filter((s) => s.run?.includes('github.event')).map((s) => s.name)).toEqual([]);
    expect(job.env).toMatchObject({
      CANDIDATE: '${{ github.event.client_payload.candidate }}',
      OBJECTIVE: '${{ github.event.client_payload.objective }}',
    });
  });
});
