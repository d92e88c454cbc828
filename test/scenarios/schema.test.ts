// The scenario file format: every key of the DESIGN.md §9 example is accepted, defaults are
// filled, bad files give `path: message` lines, and the documented JSON Schema is current.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseScenario, scenarioJsonSchema } from '../../sim/scenario-schema.ts';
import { parseScenarioText } from '../../sim/runner/load.ts';
import { withSchemaSection } from '../../sim/runner/schema-doc.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const exampleText = readFileSync(here('./fixtures/design-example.yml'), 'utf8');

/** Every key path of a parsed YAML document, e.g. `candidates.0.checks.2.output.title`. */
function keyPaths(v: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => keyPaths(x, [...prefix, i]));
  if (v && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => [[...prefix, k], ...keyPaths(x, [...prefix, k])]);
  return [];
}

function at(v: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>(
    (o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
    v,
  );
}

const minimal = {
  repo: 'acme/todo',
  change: { number: 42, title: 'T', body: '## Acceptance criteria\n- one' },
  candidates: [{ number: 12, branch: 'a' }],
};

describe('scenario schema', () => {
  it('accepts the DESIGN.md §9 example and keeps every key it sets', () => {
    const doc = parse(exampleText);
    const r = parseScenario(doc);
    if (!r.ok) throw new Error(r.errors.join('\n'));
    const paths = keyPaths(doc);
    expect(paths.length).toBeGreaterThan(60);
    // `faults.redeliver` is normalised ({copies, seed} stays as written), users become objects.
    for (const p of paths) {
      if (p[0] === 'users') continue;
      const written = at(doc, p);
      if (written !== null && typeof written === 'object') expect(at(r.scenario, p), p.join('.')).toBeDefined();
      else expect(at(r.scenario, p), p.join('.')).toEqual(written);
    }
    expect(r.scenario.users).toEqual({
      maintainer: { permission: 'write', bot: false },
      renovate: { permission: 'write', bot: true },
    });
  });

  it('fills the defaults DESIGN.md states', () => {
    const r = parseScenario({ ...minimal, faults: { redeliver: true } });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    const s = r.scenario;
    expect(s.defaultBranch).toBe('main');
    expect(s.candidates[0]).toMatchObject({
      body: 'Candidate-for: #42',
      author: 'arbiter-candidate[bot]',
      draft: true,
      openAt: 0,
      baseAt: 0,
      files: {},
      deleted: [],
      checks: [],
    });
    expect(s.faults.redeliver).toEqual({ copies: 2, seed: 1 });
    expect(s.faults.github).toEqual([]);
    expect(s.faults.deliveries).toEqual([]);
    expect(s.events).toEqual([]);
    const lost = parseScenario({ ...minimal, faults: { deliveries: [{ event: 'pull_request', on: 12 }] } });
    if (!lost.ok) throw new Error(lost.errors.join('\n'));
    expect(lost.scenario.faults.deliveries).toEqual([{ event: 'pull_request', on: 12, nth: 1, status: 502 }]);
  });

  it('gives no redelivery unless asked, and keeps written copies and seed', () => {
    const none = parseScenario(minimal);
    const three = parseScenario({
      ...minimal,
      faults: {
        redeliver: { copies: 3, seed: 7 },
        restart: [{ after: 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}' }],
      },
    });
    if (!none.ok || !three.ok) throw new Error('expected valid');
    expect(none.scenario.faults.redeliver).toBeNull();
    expect(three.scenario.faults.redeliver).toEqual({ copies: 3, seed: 7 });
    expect(three.scenario.faults.restart).toEqual([
      { after: 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}', nth: 1 },
    ]);
  });

  it('reports each problem as a `path: message` line', () => {
    const r = parseScenario({
      repo: 'no-slash',
      change: { number: 42, title: 'T' },
      candidates: [
        {
          number: 12,
          branch: 'a',
          checks: [{ name: 'test' }, { name: 'lint', kind: 'status', conclusion: 'success', at: 1 }],
        },
      ],
      events: [{ at: 1 }, { at: 2, comment: { on: 12, user: 'm', body: 'x' }, close: { on: 12, user: 'm' } }],
      faults: { restart: [{ nth: 2 }], redeliver: 'yes' },
      typo: 1,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual(
      expect.arrayContaining([
        'repo: owner/name',
        'change.body: Invalid input: expected string, received undefined',
        'candidates.0.checks.0.at: required (or `never: true`)',
        'candidates.0.checks.0.conclusion: required for a check run',
        'candidates.0.checks.1.state: required for a commit status (`kind: status`)',
        'candidates.0.checks.1.conclusion: a commit status has `state`, not `conclusion`',
        'events.0: an event has exactly one of comment, review, push, click, edit, close, label, unlabel, retarget, reopen, ready, draft, closeChange, lockChange, link, requestReview, approveWorkflows, rerun, autoMergeOff, dequeue (found none)',
        'events.1: an event has exactly one of comment, review, push, click, edit, close, label, unlabel, retarget, reopen, ready, draft, closeChange, lockChange, link, requestReview, approveWorkflows, rerun, autoMergeOff, dequeue (found comment, close)',
        'faults.restart.0: either { after: "<METHOD> <route>", nth: <n> } or { at: <seconds> }',
        'faults.redeliver: true (2 copies) or { copies: <n>, seed: <n> }',
      ]),
    );
    expect(r.errors.some((l) => l.startsWith('(root): ') && l.includes('typo'))).toBe(true);
    for (const line of r.errors) expect(line).toMatch(/^[\w.()]+: \S/);
  });

  it('refuses re-run scripts GitHub cannot play', () => {
    const r = parseScenario({
      ...minimal,
      candidates: [
        {
          number: 12,
          branch: 'a',
          checks: [
            { name: 'bench', conclusion: 'success', at: 1, app: 'github-actions', rerun: 'in-place' },
            { name: 'lint', kind: 'status', state: 'success', at: 1, rerun: 'never' },
            { name: 'ok', conclusion: 'success', at: 1, app: 'github-actions', rerun: 'never' },
          ],
        },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      'candidates.0.checks.0.rerun: GitHub Actions re-runs a job as a new check run: `in-place` is what another CI app may do',
      'candidates.0.checks.1.rerun: a commit status has no app and is never re-run (`kind: status`)',
    ]);
  });

  it('checks references between keys', () => {
    const r = parseScenario({
      ...minimal,
      candidates: [
        { number: 12, branch: 'a', openAt: 5, baseAt: 6, checks: [{ name: 'test', conclusion: 'success', at: 2 }] },
        { number: 12, branch: 'a' },
      ],
      events: [
        { at: 1, close: { on: 12, user: 'm' } },
        { at: 6, review: { on: 99, user: 'm', state: 'approved' } },
        { at: 6, comment: { on: 7, user: 'm', body: 'hi' } },
        { at: 6, push: { on: 12, checks: [{ name: 'test', conclusion: 'success', at: 5 }] } },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      'candidates.0.baseAt: must not be later than openAt',
      'candidates.0.checks.0.at: before the candidate opens (openAt 5)',
      'candidates.1.number: #12 is already used',
      'candidates.1.branch: branch a is already used',
      'events.0.at: #12 opens only at 5',
      'events.1.review.on: #99 is not a candidate',
      'events.2.comment.on: #7 is neither the Change nor a candidate',
      'events.3.push.checks.0.at: before the push (at 6)',
    ]);
  });

  it('reports YAML syntax errors with their line', () => {
    const r = parseScenarioText('repo: acme/todo\nchange: { number: 1\n');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatch(/^\d+:\d+: /);
  });

  it('accepts every bundled scenario', () => {
    const dir = here('../../fixtures/scenarios/');
    const files = readdirSync(dir).filter((f) => f.endsWith('.yml'));
    expect(files).toContain('showcase.yml');
    for (const f of files) {
      const r = parseScenarioText(readFileSync(dir + f, 'utf8'));
      expect(r.ok ? [] : r.errors, f).toEqual([]);
    }
  });
});

describe('JSON Schema of the scenario format', () => {
  const Ajv = Ajv2020 as unknown as typeof Ajv2020.default;
  const validate = new Ajv({ strict: false }).compile(scenarioJsonSchema());

  it('accepts the §9 example and rejects a scenario with a wrong type', () => {
    expect(validate(parse(exampleText)), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...minimal, candidates: [{ number: 'twelve', branch: 'a' }] })).toBe(false);
    expect(validate({ ...minimal, unknownKey: true })).toBe(false);
  });

  it('is the one embedded in docs/scenarios.md', () => {
    const doc = readFileSync(here('../../docs/scenarios.md'), 'utf8');
    expect(withSchemaSection(doc), 'run: npx tsx scripts/gen-scenario-schema.ts').toBe(doc);
  });
});
