// The tie-break judge against the real app (issue 6): two candidates with identical evidence; a
// valid verdict citing known evidence ids ships its pick, an invalid or missing verdict sends both
// to a person. Each story also carries what people do next (button promote, rejections, cancel).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadScenarioFile, verdictLine, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { expectRendersClean } from '../support/gfm.ts';
import { expectCancelledViews } from '../support/current-views.ts';

const SELECTION = 'Arbiter / selection';
const AWAITING = 'arbiter:awaiting-approval';
const CHANGE = 9;
const TIED = [91, 92] as const;
// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = async (s: Scenario): Promise<Transcript> => expectRendersClean(await playStory(s));

const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);
const summariesBefore = (t: Transcript, at: number): string[] =>
  applied(t)
    .filter((w) => w.at < at)
    .map((w) => w.summary);

/** What the last `Arbiter / selection` write on a PR before `at` set: "completed neutral", "in_progress"… */
function selectionBefore(t: Transcript, pr: number, at: number): string | null {
  const prefix = `check-run ${SELECTION} on #${pr}: `;
  const last = summariesBefore(t, at)
    .filter((s) => s.startsWith(prefix))
    .pop();
  return last === undefined ? null : last.slice(prefix.length).replace(/ \(.*\)$/, '');
}

const SelectionReceipt = z.object({
  kind: z.literal('CANDIDATE_SELECTION'),
  data: z.object({
    verdict: z.string(),
    winner: z.number().nullable(),
    beforePerson: z.array(z.number()),
    judge: z
      .object({ comparison: z.string(), winner: z.number().nullable(), evidence: z.array(z.string()) })
      .nullable(),
    diagnostics: z.object({ comparison: z.string(), submittedCandidates: z.number(), eligibleCandidates: z.number() }),
  }),
});

/** The CANDIDATE_SELECTION receipt in the hidden marker of the comparison comment on the Change. */
function selectionReceipt(t: Transcript): z.infer<typeof SelectionReceipt> {
  const json = t.issues[String(CHANGE)].comments
    .map((c) => /<!-- arbiter:receipt (\{[\s\S]*?\}) -->/.exec(c.body)?.[1])
    .find((m) => m !== undefined);
  expect(json, 'a receipt on the comparison comment').toBeDefined();
  const parsed = SelectionReceipt.safeParse(JSON.parse(json ?? 'null'));
  if (!parsed.success) throw new Error(`receipt: ${parsed.error.message}`);
  return parsed.data;
}

const botComments = (t: Transcript, num: number): string[] =>
  (t.prs[String(num)] ?? t.issues[String(num)]).comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);

/** Until `at`, neither tied candidate shipped or closed; both were labelled and shown as "a person must choose". */
function bothBeforeAPerson(t: Transcript, at: number, reason: string): void {
  const before = summariesBefore(t, at);
  for (const pr of TIED) {
    expect(
      before.filter((s) => s === `close #${pr}` || s === `merge #${pr}`),
      `#${pr} untouched before t=${at}`,
    ).toEqual([]);
    expect(before).toContain(`label #${pr} ${AWAITING}`);
    expect(selectionBefore(t, pr, at), `#${pr} selection`).toBe('completed action_required');
    // A tie has one gate comment, on the Change (issue 25); each tied PR has its check.
    expect(botComments(t, CHANGE).join('\n')).toContain(
      `#91, #92 are tied on every evidence key and the judge did not settle it (${reason})`,
    );
    // Nobody was chosen, so nobody "lost to" anyone (issue 14): each is before a person.
    expect(botComments(t, pr).join('\n')).not.toContain('Lost to');
    expect(t.prs[String(pr)].checks[SELECTION]?.title ?? '').not.toContain('Lost to');
  }
  expect(before.filter((s) => s.startsWith('label ') && s.endsWith('arbiter:lost'))).toEqual([]);
  const receipt = selectionReceipt(t);
  expect(receipt.data).toMatchObject({ verdict: 'human', winner: null, beforePerson: [...TIED] });
  expect(receipt.data.diagnostics).toMatchObject({ submittedCandidates: 2, eligibleCandidates: 2 });
}

describe('the tie-break judge', () => {
  it(
    "a valid verdict citing known evidence ids ships its pick; the other closes with the judge's reason",
    SLOW,
    async () => {
      const scenario = await load('judge-prefers');
      const cited = scenario.judge?.evidence ?? [];
      expect(cited.length).toBeGreaterThan(0);
      const t = await play(scenario);
      expect(t.prs['92']).toMatchObject({ state: 'closed', merged: true });
      expect(t.prs['92'].checks[SELECTION]).toMatchObject({ conclusion: 'success' });
      expect(verdictLine(t)).toMatch(/^Winner: #92 shipped/);
      expect(t.prs['91']).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
      expect(t.prs['91'].checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Lost to #92' });
      // The judge's own reason, quoted; the evidence ids it cited are in the receipt, not in what people read.
      const reason = `Lost to #92: same evidence, and the model judge preferred #92: “${(scenario.judge?.reason ?? '').replace(/\.$/, '')}”.`;
      expect(botComments(t, 91).join('\n')).toContain(reason);
      expect(botComments(t, CHANGE).join('\n')).toContain(reason);
      const receipt = selectionReceipt(t);
      expect(receipt.data.judge).toMatchObject({ comparison: 'judged', winner: 92, evidence: cited });
      expect(receipt.data.diagnostics.comparison).toBe('judged');
      expect(applied(t).filter((w) => w.summary.startsWith('merge '))).toHaveLength(1);
      expect(t.dispatches).toEqual([]);
    },
  );

  it(
    'a verdict citing an evidence id that does not exist: both before a person; a click on Promote ships one',
    SLOW,
    async () => {
      const scenario = await load('judge-invalid-citation');
      const click = scenario.events.find((e) => e.click)!;
      const visitor = scenario.events.find((e) => e.comment)!;
      const t = await play(scenario);
      bothBeforeAPerson(t, click.at, 'the model judge gave an answer Arbiter could not verify');
      expect(selectionReceipt(t).data.judge).toMatchObject({ comparison: 'invalid', winner: null });
      // The read-only visitor's promote is refused with a reply and changes nothing.
      const between = applied(t)
        .filter((w) => w.at >= visitor.at && w.at < click.at)
        .map((w) => w.summary);
      expect(between).toEqual(['comment on #92', 'react confused to a comment on #92']);
      expect(botComments(t, 92).join('\n')).toContain(
        '@visitor: `promote` needs write, maintain or admin access to this repository; you have read access.',
      );
      // The maintainer's click ships #92 and closes #91 as superseded.
      expect(t.prs['92']).toMatchObject({ state: 'closed', merged: true });
      expect(t.prs['92'].labels).not.toContain(AWAITING);
      expect(t.prs['92'].checks[SELECTION]).toMatchObject({ conclusion: 'success', title: 'Promoted by @maintainer' });
      expect(botComments(t, 92).join('\n')).toMatch(/Promoted #92 at [0-9a-f]{7}: merged\./);
      expect(t.prs['91']).toMatchObject({ state: 'closed', merged: false });
      expect(t.prs['91'].checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Superseded: #92 shipped.' });
      expect(
        applied(t)
          .filter((w) => w.summary.startsWith('merge '))
          .map((w) => [w.summary, w.at]),
      ).toEqual([['merge #92', click.at]]);
      expect(t.dispatches).toEqual([]);
    },
  );

  it(
    'the judge unavailable: both before a person; two rejections at once start one repair; cancel closes both',
    SLOW,
    async () => {
      const scenario = await load('judge-unavailable');
      expect(scenario.judge).toBeUndefined();
      const rejections = scenario.events.filter((e) => e.comment?.body.startsWith('/arbiter reject'));
      expect(rejections.map((e) => e.at)).toEqual([rejections[0].at, rejections[0].at]);
      const cancel = scenario.events.find((e) => e.comment?.body === '/arbiter cancel')!;
      const t = await play(scenario);
      bothBeforeAPerson(t, rejections[0].at, 'the model judge could not be reached');
      expectCancelledViews(t);
      expect(selectionReceipt(t).data.judge).toMatchObject({ comparison: 'unavailable', winner: null });
      // Exactly one repair, for the rejected candidate, with its reason and at most 10 payload keys.
      expect(t.dispatches).toHaveLength(1);
      const repair = t.dispatches[0];
      expect(repair.event_type).toBe('arbiter.repair');
      const payload = z.record(z.string(), z.unknown()).parse(repair.client_payload);
      expect(Object.keys(payload).length).toBeLessThanOrEqual(10);
      expect(payload).toMatchObject({ change: CHANGE, candidate: 91, objective: 'too slow' });
      // The repair note on the Change follows the round: once cancelled, the repair is no longer awaited (issue 25).
      expect(botComments(t, CHANGE).join('\n')).toContain(
        'Arbiter asked for one repair of #91. It is no longer awaited: Cancelled by @maintainer.',
      );
      // The second rejection neither dispatches again nor closes the candidate the repair will fix.
      const beforeCancel = summariesBefore(t, cancel.at);
      expect(beforeCancel.filter((s) => s.startsWith('close '))).toEqual([]);
      expect(botComments(t, 91).join('\n')).toContain('A repair of #91 is already requested');
      // Cancel closes every open candidate; nothing merged.
      for (const pr of TIED) {
        expect(t.prs[String(pr)]).toMatchObject({ state: 'closed', merged: false });
        expect(t.prs[String(pr)].checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Change cancelled' });
        expect(botComments(t, pr).join('\n')).toContain(
          `Cancelled by @maintainer. The change #${CHANGE} will not ship.`,
        );
      }
      expect(botComments(t, CHANGE).join('\n')).toContain(`Cancelled #${CHANGE}: closed #91, #92.`);
      expect(applied(t).filter((w) => w.summary.startsWith('merge '))).toEqual([]);
      expect(
        applied(t)
          .filter((w) => w.summary.startsWith('close '))
          .map((w) => [w.summary, w.at])
          .sort(),
      ).toEqual([
        ['close #91', cancel.at],
        ['close #92', cancel.at],
      ]);
    },
  );
});
