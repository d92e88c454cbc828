// Realistic CI against the real app (issue 28): checks nobody requires, concluding while the
// required ones run, are recorded without reading GitHub, and the outcome is the one a read of
// every check gives (the same story with every check required, `gate.required: ['*']`).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, type Transcript } from '../../sim/runner/index.ts';
import { playStory } from '../support/play.ts';

const SLOW = { timeout: 300_000 };
const SELECTION = 'Arbiter / selection';

const outcome = (t: Transcript) =>
  Object.fromEntries(
    ['21', '22'].map((pr) => [
      pr,
      {
        state: t.prs[pr].state,
        merged: t.prs[pr].merged,
        labels: t.prs[pr].labels,
        selection: { conclusion: t.prs[pr].checks[SELECTION]?.conclusion, title: t.prs[pr].checks[SELECTION]?.title },
      },
    ]),
  );

describe('check events of checks nobody requires, in the real app', () => {
  it('read less, and the decision is the one every check’s read gives', SLOW, async () => {
    const s = await loadScenarioFile(
      fileURLToPath(new URL('../../fixtures/scenarios/ci-many-checks.yml', import.meta.url)),
    );
    let reads = 0;
    const t = await playStory(s, { inspect: (gh) => void (reads = gh.reads) });
    expect(t.prs['22']).toMatchObject({ state: 'closed', merged: true });
    expect(t.prs['21']).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
    expect(t.prs['21'].checks[SELECTION].title).toBe('Lost to #22');

    let everyRead = 0;
    const every = await playStory(
      { ...s, config: (s.config ?? '').replace('required: [test, lint]', "required: ['*']") },
      { inspect: (gh) => void (everyRead = gh.reads) },
    );
    expect(outcome(t)).toEqual(outcome(every));
    expect(t.writes.filter((w) => /^(close|merge)/.test(w.summary)).map((w) => w.summary)).toEqual(
      every.writes.filter((w) => /^(close|merge)/.test(w.summary)).map((w) => w.summary),
    );
    expect(reads).toBeLessThan(everyRead);
  });
});
