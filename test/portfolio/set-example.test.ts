// examples/agent-candidate-set.yml: it parses, opens every member as a draft whose body names the
// Change in full and the set, and adds the `Parts:` line to the first member: bodies Arbiter reads
// as members of one set (src/core/candidate-set.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { setLines } from '../../src/core/candidate-set.ts';
import { linkedChange } from '../../src/core/link.ts';

const text = readFileSync(fileURLToPath(new URL('../../examples/agent-candidate-set.yml', import.meta.url)), 'utf8');
const Workflow = z.object({
  on: z.object({ workflow_dispatch: z.object({ inputs: z.record(z.string(), z.unknown()) }) }),
  jobs: z.record(z.string(), z.object({ steps: z.array(z.object({ name: z.string(), run: z.string().optional() })) })),
});

/** The printf formats of a step, filled in order with `values`. */
function bodies(run: string, values: string[]): string[] {
  return [...run.matchAll(/printf '([^']+)'/g)].map((m) => {
    let out = m[1]!;
    for (const v of values) out = out.replace('%s', v);
    return out.replace(/\\n/g, '\n');
  });
}

describe('examples/agent-candidate-set.yml', () => {
  const workflow = Workflow.parse(parseYaml(text));
  const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
  const open = steps.find((s) => s.run?.includes('gh pr create'))!;

  it('opens every member as a draft, then edits the first member', () => {
    expect(open.run).toContain('--draft');
    expect(open.run).toContain('gh pr edit');
  });

  it('writes bodies Arbiter reads as members of one set, the first listing the parts', () => {
    const [member, first] = bodies(open.run!, ['acme/app', '42', 'search', 'acme/api#7, acme/ui#9']);
    expect(setLines(member, 'acme/ui')).toEqual({
      change: { repo: 'acme/app', number: 42 },
      set: 'search',
      parts: null,
    });
    expect(setLines(first, 'acme/api')).toEqual({
      change: { repo: 'acme/app', number: 42 },
      set: 'search',
      parts: [
        { repo: 'acme/api', number: 7 },
        { repo: 'acme/ui', number: 9 },
      ],
    });
    // Never a lone candidate of a Change in the member's own repository.
    expect(linkedChange(member, { repo: 'acme/ui', closing: null })).toBeNull();
  });

  it('keeps a placeholder for the maintainer’s own agent', () => {
    expect(steps.some((s) => s.name.startsWith('YOUR CODING AGENT'))).toBe(true);
  });
});
