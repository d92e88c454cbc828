// Shared by the reliability suite: loading its scenarios, playing them, and the comparisons every
// fault test makes (duplicate writes, final state, the list of writes an undisturbed run makes).
import { fileURLToPath } from 'node:url';
import { loadScenarioFile, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { expectRendersClean } from '../support/gfm.ts';
import { playStory, type StoryOptions } from '../support/play.ts';
import { TEST_DATABASE_URL } from '../store/backends.ts';

export const SELECTION = 'Arbiter / selection';
export const ACCEPTANCE = 'Arbiter / acceptance';
export const MERGE = '/repos/{owner}/{repo}/pulls/{pull_number}/merge';
/** The PostgreSQL the test set-up brought (the machine's, or an embedded one). */
export const PG_URL = TEST_DATABASE_URL;

/** Each run boots the real app and plays a whole story: minutes on a busy machine. */
export const SLOW = { timeout: 600_000 };

export const loadReliability = (name: string): Promise<Scenario> =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/reliability/${name}.yml`, import.meta.url)));

/** Plays the story (on PostgreSQL unless `store: 'pglite'`), keeping its readable lines. */
export async function play(
  s: Scenario,
  opts: Omit<StoryOptions, 'log'> = {},
): Promise<{ t: Transcript; lines: string[] }> {
  const lines: string[] = [];
  const t = expectRendersClean(await playStory(s, { ...opts, log: (l) => lines.push(l) }));
  return { t, lines };
}

/** The scenario with these faults instead of its own. */
export function withFaults(s: Scenario, faults: Partial<Scenario['faults']>): Scenario {
  return { ...s, faults: { github: [], model: [], restart: [], redeliver: null, deliveries: [], ...faults } };
}

export const applied = (t: Transcript) => t.writes.filter((w) => w.status < 300);

const HIDDEN = /<!--[\s\S]*?-->/g;
const visible = (body: string) => body.replace(HIDDEN, '').trim();

/**
 * Every write that must happen at most once and happened twice: closures, merges, labels and
 * ready-for-review among the applied writes, repository dispatches, and a comment body repeated
 * in one thread.
 */
export function duplicateWrites(t: Transcript): string[] {
  const once = applied(t)
    .map((w) => w.summary)
    .filter((s) => /^(close|merge|label|ready for review) /.test(s));
  const repeated = once.filter((s, i) => once.indexOf(s) !== i);
  const dispatches = t.dispatches.map((d) => JSON.stringify(d));
  repeated.push(...dispatches.filter((d, i) => dispatches.indexOf(d) !== i).map((d) => `dispatch ${d}`));
  for (const [num, thread] of [...Object.entries(t.prs), ...Object.entries(t.issues)]) {
    const bodies = thread.comments.map((c) => `${c.user}: ${visible(c.body)}`);
    repeated.push(
      ...bodies.filter((b, i) => bodies.indexOf(b) !== i).map((b) => `comment on #${num}: ${b.slice(0, 80)}`),
    );
  }
  const merges = applied(t).filter((w) => w.route === MERGE).length;
  const merged = Object.values(t.prs).filter((p) => p.merged).length;
  if (merges > merged) repeated.push(`${merges} merges applied for ${merged} merged PR(s)`);
  return repeated;
}

/** The final state a person sees: PRs, the Change, dispatches (comment text without hidden markers). */
export function outcome(t: Transcript) {
  const thread = (comments: { user: string; body: string }[]) => comments.map((c) => `${c.user}: ${visible(c.body)}`);
  const state = {
    prs: Object.fromEntries(Object.entries(t.prs).map(([n, p]) => [n, { ...p, comments: thread(p.comments) }])),
    issues: Object.fromEntries(Object.entries(t.issues).map(([n, i]) => [n, { ...i, comments: thread(i.comments) }])),
    dispatches: t.dispatches,
  };
  // Links name the emulator's host, whose port differs from run to run.
  return JSON.parse(JSON.stringify(state).replace(/127\.0\.0\.1:\d+/g, 'HOST')) as typeof state;
}

/**
 * The applied writes, as their summaries, sorted. In-progress check-run writes are left out:
 * they show a waiting list whose wording depends on which sibling's webhook came first, and they
 * are display, not an act (the final check-run state is compared by `outcome`).
 */
export function writeList(t: Transcript): string[] {
  return applied(t)
    .map((w) => w.summary)
    .filter((s) => !/^check-run .*: in_progress$/.test(s))
    .sort();
}

/** The summary of the write a restart came right after. */
export function killedAfter(t: Transcript): string[] {
  return t.restarts.map((r) => t.writes.find((w) => w.seq === r.afterSeq)?.summary ?? `seq ${r.afterSeq}`);
}
