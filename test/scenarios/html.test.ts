// `npm run simulate -- FILE --html OUT.html`: the page shows the comments and check runs as GitHub
// would. Headless Chromium (Debian's `chromium`; the test set-up installs it when missing) opens the page, and the
// comparison's matrix is a rendered table, outside any list, in the Change's section.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { renderTranscriptHtml } from '../../sim/runner/html.ts';
import type { Transcript } from '../../sim/runner/index.ts';
import { renderComparisonComment } from '../../src/core/render/markdown.ts';
import { CandidateEvidence } from '../../src/core/types.ts';
import { inList, structureOfHtml } from '../support/gfm.ts';

const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'arbiter-html-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The DOM Chromium builds from a page, with a fresh profile and nothing from the network. */
function browserDom(file: string): string {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
  const profile = mkdtempSync(join(dir, 'profile-'));
  const flags = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ];
  const r = spawnSync(CHROMIUM, [...flags, `--user-data-dir=${profile}`, '--dump-dom', pathToFileURL(file).href], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** The HTML of one section (`issue-42`, `pr-13`) of the page. */
function section(dom: string, id: string): string {
  const start = dom.indexOf(`<section id="${id}"`);
  expect(start, `section ${id}`).toBeGreaterThanOrEqual(0);
  return dom.slice(start, dom.indexOf('</section>', start));
}

const evidence = (pr: number, met: boolean) =>
  CandidateEvidence.parse({
    pr,
    headSha: `sha-${pr}`,
    gate: { required: [], source: 'all-suites', settled: true, promotable: true, passingChecks: 1, score: null },
    acceptance: { status: met ? 'pass' : 'fail', results: [{ id: 'AC1', status: met ? 'met' : 'not_met' }] },
    author: `agent-${pr}`,
  });

describe('the --html page in a browser', () => {
  it('renders a comparison with a loser list as a table outside any list', () => {
    const body = renderComparisonComment({
      change: 42,
      round: 1,
      headline: '#13 wins',
      notes: [],
      criteria: [{ id: 'AC1', text: 'A calendar', check: null }],
      rows: [
        { evidence: evidence(13, true), rank: 1, outcome: 'ships' },
        { evidence: evidence(12, false), rank: 2, outcome: 'Lost to #13: #13 also meets AC1 (A calendar).' },
      ],
      receipt: {
        kind: 'CANDIDATE_SELECTION',
        repo: 'acme/planner',
        change: 42,
        round: 1,
        at: '2026-01-01T00:00:00Z',
        data: {
          verdict: 'ship',
          winner: 13,
          repairTarget: null,
          beforePerson: [],
          losers: [{ pr: 12, reason: 'Lost to #13' }],
          ranking: [],
          judge: null,
          risk: { risk: 'low', reasons: [] },
          diagnostics: {
            submittedCandidates: 2,
            eligibleCandidates: 2,
            excludedCandidates: { fail: 0, inconclusive: 0 },
            comparison: 'not-compared',
          },
          mode: 'live',
        },
      },
      config: { mode: 'live' },
    });
    const t: Transcript = {
      writes: [],
      prs: {},
      issues: { '42': { state: 'open', labels: [], comments: [{ user: 'arbiter[bot]', body }] } },
      dispatches: [],
      restarts: [],
    };
    const file = join(dir, 'one.html');
    writeFileSync(file, renderTranscriptHtml(t, 'one comparison'));
    const { tables, visible } = structureOfHtml(section(browserDom(file), 'issue-42'));
    expect(tables).toHaveLength(1);
    expect(inList(tables[0].ancestors)).toBe(false);
    expect(tables[0].headers).toEqual(['Criterion', '#13 by @agent-13', '#12 by @agent-12']);
    expect(visible).not.toContain('arbiter:');
  });

  it(
    'npm run simulate -- showcase.yml --html OUT.html writes a page whose comparison is a rendered table',
    { timeout: 420_000 },
    () => {
      const out = join(dir, 'showcase.html');
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'sim/cli.ts', 'fixtures/scenarios/showcase.yml', '--html', out],
        { cwd: root, encoding: 'utf8', timeout: 400_000 },
      );
      expect(r.status, r.stderr).toBe(0);
      // Progress comes first (before the runner loads), the page's line last.
      const printed = r.stdout.split('\n');
      expect(printed[0]).toBe(
        'Scenario fixtures/scenarios/showcase.yml: Fastest loses to better (calendar with a kanban list per day)',
      );
      expect(printed[1]).toMatch(/^Starting the emulated GitHub/);
      expect(r.stdout).toContain(`Page written to ${out}`);
      // The terminal shows the comparison as text: its matrix in columns, no markdown table left.
      expect(r.stdout).toMatch(/^ +Criterion +#13 .+ +#12 /m);
      expect(r.stdout).not.toMatch(/^\s*\|.*\|\s*$/m);
      expect(readFileSync(out, 'utf8')).toContain('<section id="pr-13"');
      const dom = browserDom(out);
      const change = structureOfHtml(section(dom, 'issue-42'));
      const matrix = change.tables.find((x) => x.headers[0] === 'Criterion');
      expect(matrix, 'the comparison table').toBeDefined();
      expect(inList(matrix!.ancestors)).toBe(false);
      expect(matrix!.headers.slice(1).map((h) => h.split(' ')[0])).toEqual(['#13', '#12']);
      // The Change's own body (its criteria) and the candidates' bodies are on the page too.
      expect(change.visible).toContain('The home page shows a calendar of the current month');
      expect(structureOfHtml(section(dom, 'pr-13')).visible).toContain('Candidate-for: #42');
      // Each PR's section shows its check runs with their bodies.
      expect(section(dom, 'pr-13')).toContain('data-check="Arbiter / selection"');
    },
  );
});
