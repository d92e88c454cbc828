// Shipping a candidate set (issue 27), against the real app. What a maintainer expects (DESIGN.md
// section 6, "Composite candidate"): GitHub cannot merge across repositories at once, so a winning
// set's members merge one at a time in `composite.order` (default the `Parts:` order), each with its
// verified head; a refusal part-way stops the set, nothing else merges, nothing is reverted, and a
// person is told what merged and what did not. A Change whose only candidates are sets decides too.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { renderGfm } from '../support/gfm.ts';

const SELECTION = 'Arbiter / selection';
const MERGE = 'PUT';
// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));
const play = (s: Scenario): Promise<Transcript> => playStory(s);
/** Every merge Arbiter asked GitHub for, applied or refused, as `path status`. */
const mergeWrites = (t: Transcript): string[] =>
  t.writes.filter((w) => w.method === MERGE && w.path.endsWith('/merge')).map((w) => `${w.path} ${w.status}`);
/**
 * The members merged, in the order they merged. GitHub may refuse a merge for a moment (405 while
 * it computes mergeability, which a loaded machine makes likelier) and Arbiter tries again on its
 * clock: such a refusal is allowed only before the member's one merge, never after it.
 */
function mergedInOrder(t: Transcript): string[] {
  const merged: string[] = [];
  for (const w of mergeWrites(t)) {
    const [path, status] = w.split(' ');
    expect(merged, `${w} after that member merged`).not.toContain(path);
    if (status === '200') merged.push(path!);
  }
  return merged;
}
const comparisonOf = (t: Transcript): string =>
  renderGfm(t.issues['42']!.comments.map((c) => c.body).find((b) => b.includes('comparison of the candidates')) ?? '');
const link = (ref: string): string => {
  const [repo, n] = ref.split('#');
  return `<a href="[^"]*/${repo}/pull/${n}">${ref}</a>`;
};

describe('a winning candidate set ships', () => {
  it(
    'in composite.order (acme/ui first), each member once; then #12 and set broken close with their reasons',
    SLOW,
    async () => {
      const t = await play(await load('composite-set-wins'));
      expect(mergedInOrder(t)).toEqual(['/repos/acme/ui/pulls/9/merge', '/repos/acme/api/pulls/7/merge']);
      for (const key of ['acme/ui#9', 'acme/api#7']) {
        expect(t.prs[key]).toMatchObject({ state: 'closed', merged: true });
        expect(t.prs[key]!.checks[SELECTION]).toMatchObject({
          conclusion: 'success',
          title: 'Selected: merged (set good)',
        });
        expect(t.prs[key]!.comments.map((c) => c.body).join('\n')).toContain(
          'Merge order: acme/ui#9 (merged), then acme/api#7 (merged). Every member merged.',
        );
      }
      // The others close only after the last merge, labelled lost, with their reasons.
      const lastMerge = Math.max(...t.writes.filter((w) => w.path.endsWith('/merge')).map((w) => w.seq));
      const closes = t.writes.filter((w) => w.status < 300 && /^close /.test(w.summary));
      expect(closes.map((w) => w.path).sort()).toEqual([
        '/repos/acme/api/issues/8',
        '/repos/acme/app/issues/12',
        '/repos/acme/ui/issues/10',
      ]);
      for (const c of closes) expect(c.seq).toBeGreaterThan(lastMerge);
      expect(t.prs['12']).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
      expect(t.prs['12']!.checks[SELECTION]).toMatchObject({ conclusion: 'neutral', title: 'Lost to set good' });
      expect(t.prs['12']!.comments.at(-1)?.body.split('\n')[1]).toMatch(
        /^Lost to set good: this one is unpromotable \(required check `test` failed\), and set `good` \(acme\/api#7, acme\/ui#9\) passed every required check\./,
      );
      for (const key of ['acme/api#8', 'acme/ui#10']) {
        expect(t.prs[key]).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
        expect(t.prs[key]!.checks[SELECTION]).toMatchObject({
          conclusion: 'neutral',
          title: 'Lost to set good',
        });
        expect(t.prs[key]!.comments.at(-1)?.body).toContain(
          'this set is unpromotable (member acme/ui#10: required check `test` failed)',
        );
      }
      const html = comparisonOf(t);
      expect(html).toMatch(
        new RegExp(
          `<strong>Shipped set <code>good</code> \\(${link('acme/api#7')}, ${link('acme/ui#9')}\\): every member merged, in order \\(acme/ui#9, then acme/api#7\\)\\.</strong>`,
        ),
      );
      expect(html).toContain('Merge order: acme/ui#9 (merged), then acme/api#7 (merged).');
      expect(html).toContain(
        'lost to set `good` (acme/api#7, acme/ui#9): every member merged'.replace(/`good`/, '<code>good</code>'),
      );
      expect(t.dispatches).toEqual([]);
    },
  );

  it(
    "stops when the second member's merge is refused: a person is told what merged and what did not, and nothing else merges",
    SLOW,
    async () => {
      const t = await play(await load('composite-set-refused'));
      // acme/api#7 merged once; every merge of acme/ui#9 was refused (405, tried again on the app's clock); nothing else.
      const merges = mergeWrites(t);
      expect(merges[0]).toBe('/repos/acme/api/pulls/7/merge 200');
      expect(merges.slice(1).length).toBeGreaterThan(0);
      expect(new Set(merges.slice(1))).toEqual(new Set(['/repos/acme/ui/pulls/9/merge 405']));
      expect(t.writes.filter((w) => w.status < 300 && /^close /.test(w.summary))).toEqual([]);
      expect(t.prs['acme/api#7']).toMatchObject({ merged: true });
      expect(t.prs['acme/api#7']!.checks[SELECTION]).toMatchObject({
        conclusion: 'success',
        title: 'Merged; set good did not fully ship',
      });
      const refused = t.prs['acme/ui#9']!;
      expect(refused).toMatchObject({ state: 'open', merged: false, labels: ['arbiter:awaiting-approval'] });
      expect(refused.checks[SELECTION]).toMatchObject({
        conclusion: 'action_required',
        title: 'A person decides: set good did not fully ship',
      });
      // GitHub's whole message, in the refused member's check.
      expect(refused.checks[SELECTION]!.summary).toMatch(
        /GitHub's whole answer:\n\n> .*Repository rule violations found\s+Required status check "e2e" is expected\./,
      );
      expect(t.prs['12']).toMatchObject({ state: 'open', merged: false });
      const html = comparisonOf(t);
      expect(html).toMatch(
        new RegExp(
          `<strong>The set <code>good</code> \\(${link('acme/api#7')}, ${link('acme/ui#9')}\\) did not fully ship: ${link('acme/api#7')} merged; ${link('acme/ui#9')} did not\\. GitHub refused to merge ${link('acme/ui#9')} \\(405\\): .*Repository rule violations found.*Nothing is reverted and nothing else is merged`,
        ),
      );
      expect(html).toContain('Merge order: acme/api#7 (merged), then acme/ui#9 (refused).');
    },
  );
});

describe('a set ship under shadow mode, redelivery and restart', () => {
  it(
    'in shadow mode nothing merges or closes; the comparison and each member say what Arbiter would merge',
    SLOW,
    async () => {
      const s = await load('composite-set-wins');
      const shadow = (config: string | undefined): string => `mode: shadow\n${config ?? ''}`;
      const t = await play({
        ...s,
        config: shadow(s.config),
        repos: s.repos.map((r) => ({ ...r, config: shadow(r.config) })),
      });
      expect(mergeWrites(t)).toEqual([]);
      expect(t.writes.filter((w) => w.status < 300 && /^(close|label|ready) /.test(w.summary))).toEqual([]);
      for (const key of ['acme/ui#9', 'acme/api#7']) {
        expect(t.prs[key]).toMatchObject({ state: 'open', merged: false });
        expect(t.prs[key]!.checks[SELECTION]).toMatchObject({ title: 'Shadow: would merge (set good)' });
      }
      const html = comparisonOf(t);
      expect(html).toMatch(
        /<strong>Shadow mode: the best candidate is set <code>good<\/code> .*Arbiter would merge its members in order \(acme\/ui#9, then acme\/api#7\), each at its verified head\. Nothing was merged\.<\/strong>/,
      );
      expect(html).toContain('Merge order: acme/ui#9 (would merge), then acme/api#7 (would merge).');
    },
  );

  it(
    'every webhook twice and a kill right after the first merge: each member merges once, in order',
    SLOW,
    async () => {
      const s = await load('composite-set-wins');
      const t = await play({
        ...s,
        faults: {
          ...s.faults,
          redeliver: { copies: 2, seed: 3 },
          restart: [{ after: 'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', nth: 1 }],
        },
      });
      expect(t.restarts.length).toBe(1);
      expect(mergedInOrder(t)).toEqual(['/repos/acme/ui/pulls/9/merge', '/repos/acme/api/pulls/7/merge']);
      expect(t.prs['12']).toMatchObject({ state: 'closed', labels: ['arbiter:lost'] });
      expect(comparisonOf(t)).toContain('Merge order: acme/ui#9 (merged), then acme/api#7 (merged).');
    },
  );
});

describe('a Change whose only candidates are sets', () => {
  it(
    'decides: set good ships in the Parts: order, and every member of set broken closes with the reason',
    SLOW,
    async () => {
      const t = await play(await load('composite-sets-only'));
      expect(mergedInOrder(t)).toEqual(['/repos/acme/api/pulls/7/merge', '/repos/acme/ui/pulls/9/merge']);
      for (const key of ['acme/api#8', 'acme/ui#10']) {
        expect(t.prs[key]).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
        expect(t.prs[key]!.checks[SELECTION]).toMatchObject({ title: 'Lost to set good' });
      }
      const html = comparisonOf(t);
      expect(html).toContain('(candidate sets only)');
      expect(html).toMatch(
        /<strong>Shipped set <code>good<\/code> .*every member merged, in order \(acme\/api#7, then acme\/ui#9\)\.<\/strong>/,
      );
      expect(html).toMatch(
        /Candidate set <code>broken<\/code> .*: unpromotable \(member acme\/ui#10: required check <code>test<\/code> failed\)/,
      );
      // The decision is recorded once, with its planner's inputs, and replays to the same decision.
      expect(t.receipts?.filter((r) => r.kind === 'CANDIDATE_SELECTION')).toEqual([
        expect.objectContaining({ round: 1, replay: 'same' }),
      ]);
    },
  );
});

describe('a winning set under the default risk policy', () => {
  it(
    'a member changing a workflow holds the set: nothing merges, and the comparison and each member name the file with its repository',
    SLOW,
    async () => {
      const t = await play(await load('composite-set-risky'));
      expect(mergeWrites(t)).toEqual([]);
      const held =
        'The set is high risk (member acme/ui#9: high: changes <code>acme/ui: .github/workflows/x.yml</code>), which the policy does not ship without a person';
      const html = comparisonOf(t);
      expect(html).toContain('(candidate sets only)');
      expect(html).toContain(
        `${held}, so Arbiter does not merge it: a person merges its members in order (acme/api#7, then acme/ui#9) or cancels the Change.`,
      );
      for (const key of ['acme/api#7', 'acme/ui#9']) {
        expect(t.prs[key]).toMatchObject({ state: 'open', merged: false });
        const check = t.prs[key]!.checks[SELECTION]!;
        expect(check).toMatchObject({
          conclusion: 'action_required',
          title: 'Best candidate of acme/app#42: a person merges set ci (acme/api#7, then acme/ui#9)',
        });
        expect(renderGfm(check.summary ?? '')).toContain(`${held}, so Arbiter merged nothing`);
      }
      // A person decides: the receipt says so, and replays to the same decision.
      expect(t.receipts?.filter((r) => r.kind === 'CANDIDATE_SELECTION')).toEqual([
        expect.objectContaining({ round: 1, replay: 'same' }),
      ]);
    },
  );
});
