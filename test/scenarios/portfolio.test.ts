// Portfolio search against the real app (issue 18): `/arbiter explore` on a fresh Change dispatches
// one agent per distinct approach, scripted agents open the PRs, the wide round ships nothing and
// sends the top k deep, the refinement ships; successive halving does not trust one noisy reading;
// a slot that never opens is dropped after the timeout; refusals answer with the reason.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readReceiptMarker } from '../../src/core/render/markers.ts';
import { loadScenarioFile, parseScenario, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';

// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 480_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = (s: Scenario): Promise<Transcript> => playStory(s);

const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);
const firstAt = (t: Transcript, summary: string): number =>
  applied(t).find((w) => w.summary === summary)?.at ?? Number.NaN;
const botComments = (t: Transcript, num: number): string[] =>
  (t.prs[String(num)] ?? t.issues[String(num)]).comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);

const Requested = z.strictObject({
  change: z.number(),
  slot: z.string(),
  approach: z.string(),
  phase: z.literal('wide'),
  base: z.string(),
  base_sha: z.string().regex(/^[0-9a-f]{40}$/),
  round: z.number(),
});
const Refine = z.strictObject({
  change: z.number(),
  slot: z.string().nullable(),
  approach: z.string().nullable(),
  phase: z.literal('deep'),
  pr: z.number(),
  head_sha: z.string(),
  score: z.number().nullable(),
  failed_checks: z.array(z.string()).max(10),
  unmet: z.array(z.object({ id: z.string(), text: z.string().max(200) })).max(10),
  round: z.number(),
});
const WideReceipt = z.object({
  kind: z.literal('PORTFOLIO_WIDE'),
  data: z.object({
    policy: z.string(),
    k: z.number(),
    readings: z.record(z.string(), z.array(z.number())),
    deep: z.array(z.number()),
    out: z.array(z.object({ pr: z.number(), reason: z.string() })),
    slots: z.array(z.object({ slot: z.string(), state: z.string(), pr: z.number().nullable(), reason: z.string() })),
  }),
});

const payloadsOf = <T extends z.ZodType>(t: Transcript, type: string, schema: T): z.output<T>[] =>
  t.dispatches
    .filter((d) => d.event_type === type)
    .map((d) => {
      expect(Object.keys(z.record(z.string(), z.unknown()).parse(d.client_payload)).length).toBeLessThanOrEqual(10);
      return schema.parse(d.client_payload);
    });

/** The PORTFOLIO_WIDE receipt of the wide round's comparison comment on the Change. */
function wideReceipt(t: Transcript, change: number): z.output<typeof WideReceipt> {
  const comment = botComments(t, change).find((b) => b.includes('Wide round'));
  expect(comment, 'the wide round comparison').toBeDefined();
  return WideReceipt.parse(readReceiptMarker(comment!));
}

describe('portfolio search', () => {
  it(
    'top-k: a read-only explore is refused; explore 3 dispatches three approaches, two go deep, one ships after its refine',
    SLOW,
    async () => {
      const scenario = await load('portfolio-top-k');
      const t = await play(scenario);

      const replies = botComments(t, 7);
      expect(replies.some((b) => b.includes('@visitor') && b.includes('needs write, maintain or admin access'))).toBe(
        true,
      );

      const requested = payloadsOf(t, 'arbiter.candidate.requested', Requested);
      expect(requested.map((p) => p.approach).sort()).toEqual([...scenario.agents.map((a) => a.approach)].sort());
      expect(new Set(requested.map((p) => p.slot)).size).toBe(3);
      expect(requested.every((p) => p.change === 7 && p.base === 'main' && p.round === 1)).toBe(true);

      const wide = wideReceipt(t, 7);
      expect(wide.data).toMatchObject({
        policy: 'top-k',
        k: 2,
        deep: [21, 22],
        readings: { 21: [0.8], 22: [0.95], 23: [0.7] },
      });
      expect(wide.data.out).toEqual([
        { pr: 23, reason: expect.stringMatching(/^Not in the top 2 of the wide round: #22 ranks above/) },
      ]);
      expect(t.prs['23']).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });

      const refines = payloadsOf(t, 'arbiter.candidate.refine', Refine);
      expect(refines.map((r) => r.pr).sort()).toEqual([21, 22]);
      expect(refines.find((r) => r.pr === 22)).toMatchObject({
        unmet: [{ id: 'AC2' }],
        failed_checks: [],
        score: 0.95,
        round: 2,
      });

      // Nothing ships from the wide round: the merge comes after the refinements were pushed.
      expect(t.prs['21'].merged).toBe(true);
      expect(t.prs['22']).toMatchObject({ state: 'closed', merged: false });
      expect(firstAt(t, 'merge #21')).toBeGreaterThan(firstAt(t, 'dispatch arbiter.candidate.refine'));
      expect(applied(t).filter((w) => w.summary.startsWith('merge '))).toHaveLength(1);
    },
  );

  it(
    'successive halving re-runs the scoring check and sends the best average deep, not the best first reading',
    SLOW,
    async () => {
      const halving = await load('portfolio-successive-halving');
      const t = await play(halving);
      const wide = wideReceipt(t, 7);
      expect(wide.data).toMatchObject({
        policy: 'successive-halving',
        deep: [32],
        readings: { 31: [0.91, 0.72, 0.7], 32: [0.85, 0.84, 0.83], 33: [0.8, 0.79] },
      });
      expect(botComments(t, 7).find((b) => b.includes('Wide round'))).toContain('0.91, 0.72, 0.70 → 0.78');
      expect(applied(t).filter((w) => w.summary.startsWith('rerequest check-run bench'))).toHaveLength(5);
      expect(t.prs['32'].merged).toBe(true);
      expect(t.prs['31'].merged).toBe(false);
    },
  );

  it('top-k on the same readings trusts the first one and sends #31 deep', SLOW, async () => {
    const halving = await load('portfolio-successive-halving');
    const topK = { ...halving, config: halving.config!.replace('policy: successive-halving', 'policy: top-k') };
    const u = await play(topK);
    expect(wideReceipt(u, 7).data).toMatchObject({
      policy: 'top-k',
      deep: [31],
      readings: { 31: [0.91], 32: [0.85], 33: [0.8] },
    });
    expect(applied(u).filter((w) => w.summary.startsWith('rerequest'))).toEqual([]);
    expect(u.prs['31'].merged).toBe(true);
    // The wide round is decided again from its receipt's inputs; its deep receipt is one of the actions it recorded.
    expect(u.receipts?.map((r) => `${r.kind}: ${r.replay}`)).toEqual(
      expect.arrayContaining(['PORTFOLIO_WIDE: same', 'PORTFOLIO_DEEP: part-of-plan', 'PROMOTION: same']),
    );
  });

  it('a slot that never opens is dropped after composeTimeout and the round is decided without it', SLOW, async () => {
    const t = await play(await load('portfolio-compose-timeout'));
    const replies = botComments(t, 7);
    // Refused in a sentence: no internal code in what people read.
    expect(replies.some((b) => b.includes('still composing') && !b.includes('`explore_running`'))).toBe(true);
    expect(botComments(t, 42).join('\n')).toContain('names no open slot');

    const wide = wideReceipt(t, 7);
    expect(wide.data.slots.map((s) => [s.slot, s.state, s.pr])).toEqual([
      ['7-1-1', 'open', 41],
      ['7-1-2', 'dropped', null],
      ['7-1-3', 'dropped', null],
    ]);
    expect(wide.data.slots[2].reason).toContain('portfolio.composeTimeout');
    expect(wide.data.deep).toEqual([41]);
    expect(firstAt(t, 'close #42')).toBeGreaterThanOrEqual(601);
    // The refinement never came either: after the timeout #41 competes as it is, and ships.
    expect(t.prs['41'].merged).toBe(true);
    expect(firstAt(t, 'merge #41')).toBeGreaterThanOrEqual(1300);
  });

  it('explore without approaches names portfolio.approaches and dispatches nothing', SLOW, async () => {
    const parsed = parseScenario({
      repo: 'acme/todo',
      config: 'gate: { required: [test] }\n',
      users: { maintainer: 'write' },
      change: {
        number: 7,
        title: 'Search the todo list',
        body: '## Acceptance criteria\n- [ ] A search box filters the list\n',
      },
      events: [{ at: 1, comment: { on: 7, user: 'maintainer', body: '/arbiter explore 3' } }],
    });
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const t = await play(parsed.scenario);
    expect(botComments(t, 7).join('\n')).toMatch(
      /@maintainer: Portfolio search needs distinct approaches.*`portfolio\.approaches`/s,
    );
    expect(botComments(t, 7).join('\n')).not.toContain('no_approaches');
    expect(t.dispatches).toEqual([]);
  });
  it(
    'slots answered by real agents: a PR with no Arbiter-slot line fills the slot whose approach names its author',
    SLOW,
    async () => {
      const search = (caseless: boolean) =>
        caseless
          ? 'export const filterTodos = (todos: string[], q: string): string[] =>\n  todos.filter((t) => t.toLowerCase().includes(q.toLowerCase()));\n'
          : 'export const filterTodos = (todos: string[], q: string): string[] =>\n  todos.filter((t) => t.includes(q));\n';
      const parsed = parseScenario({
        repo: 'acme/todo',
        config: [
          'gate: { required: [test] }',
          // GitHub answers the permission API with 404 for a bot: the agents are trusted by name.
          'trust: { agents: [copilot, claude] }',
          'portfolio:',
          '  approaches:',
          '    - { approach: Filter in the browser, agent: Copilot }',
          "    - { approach: Filter on the server, agent: 'anthropic-code-agent[bot]' }",
          '  k: 1',
          '  composeTimeout: 300',
          '',
        ].join('\n'),
        users: { maintainer: 'write' },
        change: {
          number: 7,
          title: 'Search the todo list',
          body: '## Acceptance criteria\n- [ ] Typing filters the todo list\n- [ ] The search ignores upper and lower case\n',
        },
        // Neither agent can write the trailer: assigned the issue, it opens its own PR.
        agents: [
          {
            approach: 'Filter in the browser',
            number: 51,
            branch: 'copilot/filter-in-the-browser',
            author: 'Copilot',
            trailer: false,
            files: { 'src/search.ts': search(true) },
            checks: [{ name: 'test', conclusion: 'success', at: 2 }],
            model: {
              small: {
                AC1: {
                  status: 'met',
                  path: 'src/search.ts',
                  quote: 'todos.filter((t) => t.toLowerCase().includes(q.toLowerCase()));',
                },
                AC2: {
                  status: 'met',
                  path: 'src/search.ts',
                  quote: 'todos.filter((t) => t.toLowerCase().includes(q.toLowerCase()));',
                },
              },
            },
          },
          {
            approach: 'Filter on the server',
            number: 52,
            branch: 'claude/filter-on-the-server',
            author: 'anthropic-code-agent[bot]',
            trailer: false,
            files: { 'src/search.ts': search(false) },
            checks: [{ name: 'test', conclusion: 'success', at: 2 }],
            model: {
              small: {
                AC1: { status: 'met', path: 'src/search.ts', quote: 'todos.filter((t) => t.includes(q));' },
                AC2: { status: 'not_met' },
              },
            },
          },
        ],
        events: [{ at: 1, comment: { on: 7, user: 'maintainer', body: '/arbiter explore 2' } }],
        until: 800,
      });
      if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
      const t = await play(parsed.scenario);
      // Each dispatch names the agent that takes its slot, for the assignment workflow.
      expect(
        payloadsOf(t, 'arbiter.candidate.requested', Requested.extend({ agent: z.string() })).map((p) => [
          p.slot,
          p.agent,
        ]),
      ).toEqual([
        ['7-1-1', 'Copilot'],
        ['7-1-2', 'anthropic-code-agent[bot]'],
      ]);
      const wide = wideReceipt(t, 7);
      expect(wide.data.slots.map((s) => [s.slot, s.state, s.pr])).toEqual([
        ['7-1-1', 'open', 51],
        ['7-1-2', 'open', 52],
      ]);
      expect(wide.data.deep).toEqual([51]);
      expect(botComments(t, 51).join('\n')).not.toContain('names no open slot');
      expect(t.prs['51'].merged).toBe(true);
    },
  );
});
