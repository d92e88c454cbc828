// The §9 keys the other scenarios leave out, in one story against the real app: branch rules
// (required checks, a required review: auto-merge, then the approval merges), a commit status,
// a check that never finishes (the sweep times it out on the virtual clock), deleted files
// (a removal criterion met by a removed line), a person closing a candidate, an edit of the
// Change, and a bot's command that is ignored.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';
import { expectRendersClean } from '../support/gfm.ts';

const SELECTION = 'Arbiter / selection';

describe('branch rules and people', () => {
  it(
    'ships the winner through auto-merge after approval; the timed-out and withdrawn siblings never block it',
    { timeout: 240_000 },
    async () => {
      const scenario = await loadScenarioFile(
        fileURLToPath(new URL('../../fixtures/scenarios/branch-rules-and-people.yml', import.meta.url)),
      );
      const t = expectRendersClean(await playStory(scenario));
      expect(t.prs['51']).toMatchObject({ state: 'closed', merged: true, draft: false });
      expect(t.prs['51'].checks['Arbiter / acceptance']).toMatchObject({
        conclusion: 'success',
        title: '2 of 2 criteria met',
      });
      expect(t.writes.some((w) => w.operation === 'enablePullRequestAutoMerge' && w.status === 200)).toBe(true);
      expect(t.writes.filter((w) => w.summary.startsWith('merge '))).toEqual([]);
      expect(t.prs['52'].checks['Arbiter / gate']).toMatchObject({
        conclusion: 'failure',
        title: 'Timed out: waiting on `test`',
      });
      expect(t.prs['52'].comments.map((c) => c.body).join('\n')).toContain(
        'Lost to #51: timed out here (waiting on `test`).',
      );
      expect(t.prs['53'].checks[SELECTION]).toMatchObject({
        conclusion: 'neutral',
        title: 'Withdrawn: closed by @maintainer',
      });
      expect(t.prs['53'].labels).toEqual([]);
      // The bot's "/arbiter promote" got no reaction and no reply: Arbiter's one comment on #51 is
      // the winner's short note, once merged.
      expect(t.prs['51'].comments.filter((c) => c.user === 'arbiter[bot]').map((c) => c.body.split('\n')[0])).toEqual([
        '<!-- arbiter:winner:51 -->',
      ]);
      expect(t.prs['51'].reactions).toEqual([]);
    },
  );

  it(
    'a repair that never arrives within repair.timeout puts the Change before a person',
    { timeout: 240_000 },
    async () => {
      const scenario = await loadScenarioFile(
        fileURLToPath(new URL('../../fixtures/scenarios/people-repair-timeout.yml', import.meta.url)),
      );
      const t = expectRendersClean(await playStory(scenario));
      expect(t.dispatches.map((d) => d.event_type)).toEqual(['arbiter.repair']);
      expect(t.prs['101']).toMatchObject({ state: 'open', merged: false, labels: ['arbiter:awaiting-approval'] });
      expect(t.prs['101'].checks[SELECTION]).toMatchObject({
        conclusion: 'action_required',
        title: 'Repair timed out: a person must decide',
      });
      expect(t.prs['101'].comments.map((c) => c.body).join('\n')).toContain('did not arrive within 10 minutes');
    },
  );
});
