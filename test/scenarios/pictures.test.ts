// Shown as a person sees it: every view of every bundled fixture (Arbiter's comments, the check
// runs' titles, summaries and texts, the issue and pull request bodies such as the dashboard's) on
// one page per fixture, rendered with CommonMark + GFM and photographed in one headless Chromium.
// The pictures stay in test-output/views/ for a reviewer to open. No view may carry an internal code
// in bold, an evidence id, the model's call counts, or a markdown table left unrendered.
//
// This file runs after every other test file (the `views` project of vitest.config.ts), and the
// runner keeps each run it plays (SCENARIO_RUNS_DIR, set by the test set-up): a fixture another test
// already played unchanged is not played again. Run alone, this file plays every fixture itself.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTranscriptHtml } from '../../sim/runner/html.ts';
import { RUNS_DIR_ENV, type KeptRun } from '../../sim/runner/keep-run.ts';
import { loadScenarioFile, runScenario, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { Browser } from '../support/chromium.ts';
import { loserProblems, textProblems, transcriptViews, viewProblems } from '../support/views.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(root, 'fixtures/scenarios');
/** Git-ignored; printed at the end. */
const OUT = join(root, 'test-output/views');
const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';

const fixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.yml'))
  .sort()
  .map((f) => basename(f, '.yml'));

/** The runs other test files kept, by the JSON of the scenario they played. */
function keptRuns(): Map<string, Transcript> {
  const dir = process.env[RUNS_DIR_ENV];
  const byScenario = new Map<string, Transcript>();
  if (!dir || !existsSync(dir)) return byScenario;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const run = JSON.parse(readFileSync(join(dir, file), 'utf8')) as KeptRun;
    byScenario.set(JSON.stringify(run.scenario), run.transcript);
  }
  return byScenario;
}

interface Shown {
  name: string;
  transcript: Transcript;
  browser: { text: string; boldCodes: string[] } | null;
}

const shown = new Map<string, Shown>();
let played = 0;

describe('every view of every bundled fixture, as a person sees it', () => {
  beforeAll(
    async () => {
      rmSync(OUT, { recursive: true, force: true });
      mkdirSync(OUT, { recursive: true });
      const kept = keptRuns();
      const scenarios = new Map<string, Scenario>();
      for (const name of fixtures) scenarios.set(name, await loadScenarioFile(join(FIXTURES, `${name}.yml`)));
      // A fixture no other file played unchanged is played here, two at a time (this group has both cores).
      const missing = [...scenarios].filter(([, s]) => !kept.has(JSON.stringify(s)));
      const playOne = async (): Promise<void> => {
        for (let next = missing.shift(); next; next = missing.shift()) {
          kept.set(JSON.stringify(next[1]), await runScenario(next[1], { log: () => {} }));
          played++;
        }
      };
      await Promise.all([playOne(), playOne()]);
      for (const [name, scenario] of scenarios) {
        const transcript = kept.get(JSON.stringify(scenario))!;
        shown.set(name, { name, transcript, browser: null });
        writeFileSync(
          join(OUT, `${name}.html`),
          renderTranscriptHtml(transcript, `${name}.yml: ${scenario.name ?? name}`),
        );
      }
      const browser = Browser.launch(CHROMIUM);
      try {
        // Three tabs at once: this group has both cores, and one tab at a time leaves one idle
        // (24 pages: 18 s one at a time, 14 s three at once).
        const queue = [...shown.values()];
        const shootNext = async (): Promise<void> => {
          for (let s = queue.shift(); s; s = queue.shift()) {
            const shot = await browser.shoot(join(OUT, `${s.name}.html`), join(OUT, `${s.name}.png`));
            s.browser = { text: shot.text, boldCodes: shot.boldCodes };
          }
        };
        await Promise.all([shootNext(), shootNext(), shootNext()]);
      } finally {
        await browser.close();
      }
    },
    // Each fixture it has to play itself costs up to minutes on a busy machine.
    fixtures.length * 240_000,
  );

  afterAll(() => {
    process.stdout.write(
      `Every view of ${shown.size} fixtures (${played} played here, the rest reused): ${OUT}/<fixture>.png and .html\n`,
    );
  });

  it.each(fixtures)(
    '%s: no internal code, evidence id, call count or unrendered table; losers told how to come back',
    (name) => {
      const s = shown.get(name);
      expect(s, `${name} was shown`).toBeDefined();
      const views = transcriptViews(s!.transcript);
      expect(views.length, `${name} has views`).toBeGreaterThan(0);
      expect(views.flatMap(viewProblems)).toEqual([]);
      // Every loser's comment ends with how to bring it back (issue 25).
      expect(loserProblems(s!.transcript)).toEqual([]);
      // The browser's own reading of the page agrees, and the picture is there.
      expect(s!.browser, `${name} was opened in Chromium`).not.toBeNull();
      expect(textProblems(s!.browser!.text, s!.browser!.boldCodes)).toEqual([]);
      expect(existsSync(join(OUT, `${name}.png`))).toBe(true);
    },
  );
});
