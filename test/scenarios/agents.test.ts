// Real coding agents' pull requests against the real app (issue 30): one story per agent in the
// shape of its real PRs (author login, draft or not, title, body and its link form, later edits),
// each shown working with its one config line, and an unlisted bot told which line would trust it.
// The expected end of each story was written down before it was first played.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import type { GitHubEmulator } from '../../sim/github/index.ts';
import { expectRendersClean, structureOf } from '../support/gfm.ts';

const SELECTION = 'Arbiter / selection';
// Each run boots the real app (on PostgreSQL: test/support/play.ts) and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 300_000 };

const load = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));

/** Plays a story; every request and webhook must have matched GitHub's contracts. */
async function play(name: string): Promise<Transcript> {
  let violations: string[] = ['not inspected'];
  const t = await playStory(await load(name), {
    inspect: (emulator: GitHubEmulator) => {
      violations = [...emulator.violations];
      return Promise.resolve();
    },
  });
  expect(violations).toEqual([]);
  return expectRendersClean(t);
}

const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);
const merges = (t: Transcript): string[] =>
  applied(t)
    .map((w) => w.summary)
    .filter((s) => s.startsWith('merge '));
const writesOn = (t: Transcript, n: number): string[] =>
  applied(t)
    .map((w) => w.summary)
    .filter((s) => new RegExp(`#${n}(?!\\d)`).test(s));
const botReplies = (t: Transcript, n: number): string[] =>
  (t.prs[String(n)] ?? t.issues[String(n)]).comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body);

describe('agents', () => {
  it(
    "Copilot's draft (login `Copilot`, a quoted prompt in <details>, then `- Fixes acme/todo#42`) ships with trust.agents [copilot]",
    SLOW,
    async () => {
      const t = await play('agent-copilot');
      expect(merges(t)).toEqual(['merge #101']);
      expect(t.prs['101'].checks[SELECTION]).toMatchObject({ status: 'completed', conclusion: 'success' });
      // The merge closed #42 (GitHub's closing list); the #41 quoted in the prompt stays open.
      expect(t.issues['42'].state).toBe('closed');
      expect(t.issues['41'].state).toBe('open');
    },
  );

  it("Jules's draft (`google-labs-jules[bot]`, `Fixes #42.`) ships with trust.agents [jules]", SLOW, async () => {
    const t = await play('agent-jules');
    expect(merges(t)).toEqual(['merge #301']);
    expect(t.prs['301'].checks[SELECTION]).toMatchObject({ status: 'completed', conclusion: 'success' });
  });

  it(
    "Devin's ready pull request names no issue: not a candidate until `/arbiter link #42`, then it ships",
    SLOW,
    async () => {
      const t = await play('agent-devin');
      expect(merges(t)).toEqual(['merge #401']);
      // Nothing was written on #401 before the maintainer's link at t=4.
      expect(applied(t).filter((w) => w.at < 4 && /#401(?!\d)/.test(w.summary))).toEqual([]);
      expect(botReplies(t, 401).join('\n')).toContain('Linked #401 to #42 on @maintainer');
    },
  );

  it(
    "Cursor's drafts: a sidebar link counts at the PR's next event, `/arbiter link` at once; the better one ships",
    SLOW,
    async () => {
      const t = await play('agent-cursor');
      expect(merges(t)).toEqual(['merge #201']);
      // The sidebar link (t=3) sent no webhook: #201 was recorded by its push at t=5, not before.
      expect(applied(t).filter((w) => w.at < 5 && /#201(?!\d)/.test(w.summary))).toEqual([]);
      // `/arbiter link #42` recorded #202 at once (t=4), before the sidebar-linked sibling.
      expect(applied(t).some((w) => w.at === 4 && w.summary === `check-run ${SELECTION} on #202: in_progress`)).toBe(
        true,
      );
      expect(t.prs['202']).toMatchObject({ state: 'closed', merged: false });
      expect(t.prs['202'].checks[SELECTION].title).toContain('Lost to #201');
    },
  );

  it('an unlisted bot is not a candidate: its check names the config line that would trust it', SLOW, async () => {
    const t = await play('agent-unlisted-bot');
    expect(merges(t)).toEqual(['merge #22']);
    expect(t.prs['20']).toMatchObject({ state: 'open', merged: false, labels: [] });
    expect(t.prs['20'].checks[SELECTION]).toMatchObject({ status: 'completed', conclusion: 'neutral' });
    expect(t.prs['20'].checks[SELECTION].title).toBe(
      'Not a candidate: @sweep-ai[bot] is not a listed agent; add `trust.agents: [sweep]` to trust it',
    );
    expect(t.prs['21'].checks[SELECTION].title).toBe(
      "Not a candidate: @acme-helper[bot] is not a listed agent; add `trust.agents: ['acme-helper[bot]']` to trust it",
    );
    for (const n of [20, 21]) {
      expect(t.prs[String(n)].checks[SELECTION].title).not.toContain('could not be read');
      // One neutral check, nothing else: never compared, never closed.
      expect(writesOn(t, n)).toEqual([`check-run ${SELECTION} on #${n}: completed neutral`]);
    }
    // The comparison on the Change names both, with the config line and the admission that would count them.
    const comparison = botReplies(t, 42).find((b) => b.includes('comparison of the candidates for #42'))!;
    const visible = structureOf(comparison).visible;
    expect(visible).toContain('2 more pull requests link this Change but are not candidates:');
    expect(visible).toContain(
      '#20 by @sweep-ai[bot] was not compared: @sweep-ai[bot] is not a listed agent (GitHub gives this account no permission here); add trust.agents: [sweep] to .github/arbiter.yml to trust it, or a maintainer admits it with /arbiter admit on #20.',
    );
    expect(visible).toMatch(
      /#21 by @acme-helper\[bot\] was not compared: .* or a maintainer admits it with \/arbiter admit on #21\./,
    );
  });
  it(
    "Codex's draft through Agent HQ (`openai-code-agent[bot]`, `Closes #42`) ships with trust.agents [codex]",
    SLOW,
    async () => {
      const t = await play('agent-codex');
      expect(merges(t)).toEqual(['merge #501']);
      expect(t.prs['501'].checks[SELECTION]).toMatchObject({ status: 'completed', conclusion: 'success' });
    },
  );

  it(
    'OpenHands\'s draft (`openhands-ai[bot]`, "This pull request fixes #42.") ships with trust.agents [openhands]; the #41 it quotes stays open',
    SLOW,
    async () => {
      const t = await play('agent-openhands');
      expect(merges(t)).toEqual(['merge #601']);
      expect(t.issues['42'].state).toBe('closed');
      expect(t.issues['41'].state).toBe('open');
    },
  );

  it(
    "SWE-agent's pull request, opened as the token's user (write) and naming #42 twice, ships with no config line",
    SLOW,
    async () => {
      const t = await play('agent-swe-agent');
      expect(merges(t)).toEqual(['merge #701']);
    },
  );
});
