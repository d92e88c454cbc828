// `npm run simulate`: an invalid scenario exits non-zero with one `path: message` line per problem.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'arbiter-cli-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const simulate = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'sim/cli.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('sim/cli.ts', () => {
  it('rejects an invalid scenario with path: message lines and exit code 1', () => {
    const file = join(dir, 'bad.yml');
    writeFileSync(
      file,
      'repo: acme\nchange: { number: 42, title: T, body: "" }\ncandidates:\n  - { number: 12, branch: a, checks: [ { name: test, at: 1 } ] }\n',
    );
    const r = simulate(file);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('is not a valid scenario:');
    expect(r.stderr).toContain('  repo: owner/name');
    expect(r.stderr).toContain('  candidates.0.checks.0.conclusion: required for a check run');
    expect(r.stdout).toBe('');
  });

  it('rejects a missing file and unknown options', () => {
    expect(simulate(join(dir, 'none.yml')).status).toBe(1);
    const r = simulate('--frobnicate');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('usage: npm run simulate');
  });

  it(
    'prints progress as the story plays, before the final state, and ends with the line that writes the --html page',
    { timeout: 180_000 },
    () => {
      const file = 'fixtures/scenarios/trust-stranger-sibling.yml';
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'sim/cli.ts', file], {
        cwd: root,
        encoding: 'utf8',
        timeout: 170_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const lines = r.stdout.split('\n');
      const firstEvent = lines.findIndex((l) => /^t=0 +\S/.test(l));
      const finalState = lines.indexOf('Final state');
      // Progress comes as it happens: the first event right after the start line, long before the end.
      expect(lines[1]).toMatch(/^Starting the emulated GitHub/);
      expect(firstEvent).toBe(2);
      expect(finalState).toBeGreaterThan(firstEvent);
      const tail = lines.filter((l) => l.trim() !== '').slice(-2);
      expect(tail).toEqual([
        'To see every comment, check run and the issues as GitHub shows them, write the page and open it:',
        `  npm run simulate -- ${file} --html arbiter-run.html`,
      ]);
    },
  );
});
