// Reliability item 2 at the full-app level: two Arbiter processes on one PostgreSQL receive every
// webhook at the same moment, including the settling webhooks of a whole group. Each group must get
// exactly one claim and one selection: one merge, each loser closed once, one comparison comment.
// (The 200 workflow-level trials are in test/workflows/claim-concurrency.test.ts.) Also: a forged
// webhook signature is refused with 400 and nothing is recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelScripts } from '../../sim/anthropic/index.ts';
import { PG_URL } from './helpers.ts';
import { TwoApps } from './two-apps.ts';

const REPO = 'acme/todo';
const TRIALS = 4;
const SLOW = { timeout: 900_000 };

const INPUT = '<input id="search" type="search" placeholder="Search todos" oninput="window.filterTodos(this.value)">';
const FILTER = 'return todos.filter((todo) => todo.toLocaleLowerCase().includes(wanted));';

/** Group g: Change 10g; #10g+1 meets AC1, #10g+2 meets both (the winner), #10g+3 meets AC2. */
const group = (g: number) => ({ change: 10 * g, partial: 10 * g + 1, winner: 10 * g + 2, other: 10 * g + 3 });

function files(g: number, kind: 'partial' | 'winner' | 'other'): Record<string, string> {
  const page = `<!doctype html>\n<html lang="en">\n  <body>\n    ${INPUT}\n    <ul id="todos"></ul>\n  </body>\n</html>\n<!-- group ${g} ${kind} -->\n`;
  const search = `// Filters todos by a query (group ${g}, ${kind}).\nexport function filterTodos(todos: string[], query: string): string[] {\n  const wanted = query.toLocaleLowerCase();\n  ${FILTER}\n}\n`;
  if (kind === 'partial')
    return {
      'public/index.html': page,
      'src/search.ts': `// group ${g}\nexport const filterTodos = (t: string[], q: string) => t.filter((x) => x.includes(q));\n`,
    };
  if (kind === 'other') return { 'src/search.ts': search };
  return { 'public/index.html': page, 'src/search.ts': search };
}

function scripts(): ModelScripts {
  const met1 = { status: 'met' as const, path: 'public/index.html', quote: INPUT };
  const met2 = { status: 'met' as const, path: 'src/search.ts', quote: FILTER };
  const no = { status: 'not_met' as const, reason: 'missing' };
  const candidates: ModelScripts['candidates'] = {};
  for (let g = 1; g <= TRIALS; g++) {
    const n = group(g);
    candidates[n.partial] = { small: { AC1: met1, AC2: no } };
    candidates[n.winner] = { small: { AC1: met1, AC2: met2 } };
    candidates[n.other] = { small: { AC1: no, AC2: met2 } };
  }
  return { candidates };
}

let h: TwoApps;

beforeAll(async () => {
  h = await TwoApps.start(PG_URL, scripts());
  h.emulator.createRepo({
    owner: 'acme',
    name: 'todo',
    files: {
      'src/app.ts': "export const todos = ['Buy milk'];\n",
      // GitHub gives a bot no permission (404): the agent is trusted by `trust.agents`.
      '.github/arbiter.yml': "gate:\n  required: [test]\ntrust:\n  agents: ['agent[bot]']\n",
    },
    users: { 'agent[bot]': { permission: 'write', bot: true } },
  });
}, SLOW.timeout);

afterAll(async () => {
  await h?.stop();
}, 60_000);

const appliedOn = (pr: number, re: RegExp) =>
  h.emulator.writes.filter(
    (w) => w.status < 300 && re.test(w.summary) && w.summary.includes(`#${pr}`) && !w.summary.includes(`#${pr}0`),
  );

describe('two Arbiter processes on one PostgreSQL, every webhook delivered to both at once', () => {
  for (let g = 1; g <= TRIALS; g++) {
    it(`trial ${g}: one claim, one merge, each loser closed once`, SLOW, async () => {
      const n = group(g);
      const body =
        '## Acceptance criteria\n- [ ] A search box filters the todo list as you type\n- [ ] The search ignores upper and lower case\n';
      await h.emulator.openIssue(REPO, { number: n.change, title: `Search (trial ${g})`, body, user: 'requester' });
      const kinds = [
        ['partial', n.partial],
        ['winner', n.winner],
        ['other', n.other],
      ] as const;
      const heads: Record<number, string> = {};
      for (const [kind, pr] of kinds) {
        const branch = `agent/t${g}-${kind}`;
        heads[pr] = h.emulator.commit(REPO, branch, {
          files: files(g, kind),
          message: `${kind} ${g}`,
          author: 'agent',
          from: 'main',
        });
        await h.emulator.openPullRequest(REPO, {
          number: pr,
          head: branch,
          base: 'main',
          title: `${kind} ${g}`,
          body: `Candidate-for: #${n.change}`,
          user: 'agent[bot]',
          draft: true,
        });
        await h.emulator.startCheck(REPO, heads[pr], 'test');
      }
      await h.settle();
      // The settling webhooks of the whole group are held, then sent to both apps together.
      for (const [, pr] of kinds) await h.emulator.completeCheck(REPO, heads[pr], 'test', 'success');
      await h.settle();

      const state = h.emulator.state(REPO);
      expect(state.prs[n.winner]).toMatchObject({ state: 'closed', merged: true });
      for (const loser of [n.partial, n.other]) {
        expect(state.prs[loser]).toMatchObject({ state: 'closed', merged: false });
        expect(appliedOn(loser, /^close /), `closures of #${loser}`).toHaveLength(1);
        expect(state.prs[loser].labels).toEqual(['arbiter:lost']);
        expect(state.prs[loser].comments.filter((c) => c.user === 'arbiter[bot]')).toHaveLength(1);
      }
      expect(appliedOn(n.winner, /^merge /), 'merges').toHaveLength(1);
      expect(appliedOn(n.winner, /^ready for review /), 'ready for review').toHaveLength(1);
      expect(
        state.issues[n.change].comments.filter((c) => c.user === 'arbiter[bot]'),
        'comparison comments',
      ).toHaveLength(1);
      const rounds = await h.query<{ number: number; selection: string | null }>(
        'SELECT number, selection FROM rounds WHERE change = $1 ORDER BY number',
        [n.change],
      );
      expect(rounds).toHaveLength(1);
      expect(rounds[0].selection).not.toBeNull();
      expect(h.emulator.violations).toEqual([]);
    });
  }

  it('both apps answered every delivery (one records it, the other sees a duplicate)', () => {
    expect(h.answers.length).toBeGreaterThan(TRIALS * 6);
    expect(h.answers.filter(([a, b]) => a >= 300 || b >= 300)).toEqual([]);
  });

  it('a forged signature is refused with 400 by both apps and nothing is recorded', SLOW, async () => {
    const before = await h.query<{ n: string }>('SELECT count(*) AS n FROM deliveries');
    const writes = h.emulator.writes.length;
    const forged = {
      event: 'issue_comment',
      id: 'forged-delivery-1',
      body: JSON.stringify({
        action: 'created',
        issue: { number: 10 },
        comment: { body: '/arbiter promote', user: { login: 'mallory' } },
        repository: { full_name: REPO },
        installation: { id: 1 },
      }),
    };
    for (const app of h.apps) expect(await h.post(app, forged, 'not-the-secret')).toBe(400);
    await h.settle();
    const after = await h.query<{ n: string }>('SELECT count(*) AS n FROM deliveries');
    expect(after[0].n).toBe(before[0].n);
    expect(await h.query('SELECT id FROM deliveries WHERE id = $1', [forged.id])).toEqual([]);
    expect(h.emulator.writes.length).toBe(writes);
  });
});
