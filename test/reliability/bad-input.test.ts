// Reliability item 6: bad input gets a clear answer, nothing is lost and nothing crashes. A
// malformed configuration, a Change with no criteria, and one story with 500 criteria, binary and
// non-UTF-8 files, a 1 MB comment, an unknown command and a command from a read-only user. (The
// forged webhook signature is in two-instances.test.ts, where a PostgreSQL store can be counted.)
import { describe, expect, it } from 'vitest';
import { renderConfigCheck } from '../../src/config/check-output.ts';
import { parseConfigText } from '../../src/config/parse.ts';
import { MAX_CRITERIA } from '../../src/core/criteria.ts';
import { verdictLine } from '../../sim/runner/index.ts';
import { ACCEPTANCE, applied, duplicateWrites, loadReliability, MERGE, play, SELECTION, SLOW } from './helpers.ts';

const CONFIG = 'Arbiter / config';
const GITHUB_TEXT_LIMIT = 65_535;

describe('a malformed .github/arbiter.yml', () => {
  it('the check names the bad line (fast)', async () => {
    const s = await loadReliability('malformed-config');
    const parsed = parseConfigText(s.config ?? '');
    if (parsed.ok) throw new Error('the malformed configuration parsed');
    const check = renderConfigCheck({ ok: false, errors: parsed.errors, text: s.config ?? '' });
    expect(check.conclusion).toBe('failure');
    expect(check.summary).toMatch(/acceptance\.maxFiles/);
    expect(check.annotations.map((a) => a.start_line)).toContain(4);
  });

  it('full app: a failing `Arbiter / config` check on the candidate, nothing else done', SLOW, async () => {
    const { t } = await play(await loadReliability('malformed-config'));
    const pr = t.prs['91'];
    expect(pr.checks[CONFIG]).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(pr.checks[CONFIG].title ?? '').toMatch(/^Invalid \.github\/arbiter\.yml/);
    // Nothing else: no other Arbiter check, no comment, no label, no closure, no merge.
    expect(Object.keys(pr.checks).filter((n) => n.startsWith('Arbiter /'))).toEqual([CONFIG]);
    expect(pr).toMatchObject({ state: 'open', merged: false, labels: [], comments: [] });
    expect(t.issues['9'].comments).toEqual([]);
    expect(
      applied(t)
        .map((w) => w.summary)
        .filter((s) => !s.includes(CONFIG)),
    ).toEqual([]);
    expect(applied(t).find((w) => w.summary.includes(CONFIG))?.summary).toMatch(/failure \(\+\d+ annotations?\)/);
  });
});

describe('a Change with no acceptance criteria', () => {
  it('neutral "no acceptance criteria", and the winner goes to a person', SLOW, async () => {
    const { t } = await play(await loadReliability('no-criteria'));
    const pr = t.prs['101'];
    expect(pr.checks[ACCEPTANCE]).toMatchObject({
      status: 'completed',
      conclusion: 'neutral',
      title: 'no acceptance criteria',
    });
    expect(pr).toMatchObject({ state: 'open', merged: false });
    expect(pr.labels).toContain('arbiter:awaiting-approval');
    expect(verdictLine(t)).toMatch(/^A person must decide: #101/);
    expect(applied(t).filter((w) => w.route === MERGE)).toEqual([]);
    expect(duplicateWrites(t)).toEqual([]);
  });
});

describe('hostile input in one story', () => {
  it('500 criteria, binary and non-UTF-8 files, a 1 MB comment, an unknown and a refused command', SLOW, async () => {
    const base = await loadReliability('hostile-input');
    const criteria = Array.from({ length: 500 }, (_, i) =>
      i === 0 ? '- [ ] A search box filters the todo list as you type' : `- [ ] Requirement number ${i + 1} holds`,
    );
    const hugeComment = `Thoughts on this:\n${'lorem ipsum dolor sit amet '.repeat(40_000)}`.slice(0, 1_048_576);
    const scenario = {
      ...base,
      change: { ...base.change, body: `## Acceptance criteria\n${criteria.join('\n')}\n` },
      events: [{ at: 3, comment: { on: 11, user: 'maintainer', body: hugeComment } }, ...base.events],
    };
    let webhookStatuses: number[] = [];
    const { t } = await play(scenario, { inspect: (gh) => (webhookStatuses = gh.sentWebhooks.map((w) => w.status)) });

    // Every webhook, the 1 MB comment's included, was answered (not refused, not lost).
    expect(webhookStatuses.length).toBeGreaterThan(5);
    expect(webhookStatuses.filter((s) => s < 200 || s >= 300)).toEqual([]);
    // 500 criteria: bounded to the first MAX_CRITERIA, judged and shown within GitHub's limits;
    // only AC1 can be met.
    expect(MAX_CRITERIA).toBeLessThan(500);
    for (const pr of ['111', '112']) {
      expect(t.prs[pr].checks[ACCEPTANCE], `#${pr}`).toMatchObject({ status: 'completed', conclusion: 'neutral' });
      expect(t.prs[pr].checks[ACCEPTANCE].title ?? '').toMatch(new RegExp(`^1 of ${MAX_CRITERIA} criteria met`));
    }
    for (const thread of [...Object.values(t.prs), ...Object.values(t.issues)])
      for (const c of thread.comments.filter((x) => x.user === 'arbiter[bot]'))
        expect(c.body.length).toBeLessThanOrEqual(GITHUB_TEXT_LIMIT);
    // Nobody meets the request: nothing ships.
    expect(applied(t).filter((w) => w.route === MERGE)).toEqual([]);
    expect(t.prs['111'].merged || t.prs['112'].merged).toBe(false);

    // The unknown command is answered with the help; the read-only user's cancel is refused.
    const replies111 = t.prs['111'].comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);
    expect(
      replies111.some((b) => b.includes('`frobnicate` is not an Arbiter command') && b.includes('/arbiter promote')),
    ).toBe(true);
    const replies11 = t.issues['11'].comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);
    expect(replies11.some((b) => b.includes('/arbiter cancel') && b.includes('@visitor'))).toBe(true);
    // The refused cancel changed nothing: both candidates are still open, the Change too.
    expect(t.prs['111'].state).toBe('open');
    expect(t.prs['112'].state).toBe('open');
    expect(t.issues['11'].state).toBe('open');
    expect(t.prs['111'].checks[SELECTION].status).toBe('completed');
    expect(duplicateWrites(t)).toEqual([]);
  });
});
