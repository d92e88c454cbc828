// examples/agent-portfolio.yml: it parses, answers both portfolio dispatches, reads only payload
// keys Arbiter sends, and writes the PR body lines Arbiter links a slot by.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { slotOf } from '../../src/core/portfolio.ts';
import { linkedChange } from '../../src/core/link.ts';

const text = readFileSync(fileURLToPath(new URL('../../examples/agent-portfolio.yml', import.meta.url)), 'utf8');
const Workflow = z.object({
  on: z.object({ repository_dispatch: z.object({ types: z.array(z.string()) }) }),
  jobs: z.record(
    z.string(),
    z.object({ if: z.string(), steps: z.array(z.object({ name: z.string(), run: z.string().optional() })) }),
  ),
});

const REQUESTED = ['approach', 'base', 'base_sha', 'change', 'phase', 'round', 'slot'];
const REFINE = ['approach', 'change', 'failed_checks', 'head_sha', 'phase', 'pr', 'round', 'score', 'slot', 'unmet'];

describe('examples/agent-portfolio.yml', () => {
  const workflow = Workflow.parse(parseYaml(text));

  it('answers both dispatches, one job each', () => {
    expect(workflow.on.repository_dispatch.types).toEqual(['arbiter.candidate.requested', 'arbiter.candidate.refine']);
    expect(workflow.jobs.compose.if).toContain('arbiter.candidate.requested');
    expect(workflow.jobs.refine.if).toContain('arbiter.candidate.refine');
  });

  it('reads only keys Arbiter sends (at most 10 each)', () => {
    const read = [...new Set([...text.matchAll(/github\.event\.client_payload\.([a-z_]+)/g)].map((m) => m[1]))];
    expect(read.every((k) => REQUESTED.includes(k) || REFINE.includes(k))).toBe(true);
    expect(REQUESTED.length).toBeLessThanOrEqual(10);
    expect(REFINE.length).toBeLessThanOrEqual(10);
  });

  it('opens a draft whose body links the Change and names the slot', () => {
    const step = workflow.jobs.compose.steps.find((s) => s.run?.includes('gh pr create'))!;
    expect(step.run).toContain('--draft');
    const format = /printf '([^']+)'/.exec(step.run!)![1];
    const body = format
      .replace('%s', '7')
      .replace('%s', '7-1-2')
      .replace('%s', 'Filter in the browser')
      .replace(/\\n/g, '\n');
    expect(linkedChange(body)).toBe(7);
    expect(slotOf(body)).toBe('7-1-2');
  });

  it('keeps a placeholder for the maintainer’s own agent in both jobs', () => {
    for (const job of Object.values(workflow.jobs))
      expect(job.steps.some((s) => s.name.startsWith('YOUR CODING AGENT'))).toBe(true);
  });
});
