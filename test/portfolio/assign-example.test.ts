// examples/agent-assign-copilot.yml: it parses, answers only the slots Copilot takes, reads only
// payload keys Arbiter sends, and assigns the issue to Copilot with `agent_assignment` naming the
// approach and the base branch, with a user's token (an installation token cannot start Copilot).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const text = readFileSync(fileURLToPath(new URL('../../examples/agent-assign-copilot.yml', import.meta.url)), 'utf8');
const Workflow = z.object({
  on: z.object({ repository_dispatch: z.object({ types: z.array(z.string()) }) }),
  jobs: z.object({
    assign: z.object({
      if: z.string(),
      env: z.record(z.string(), z.string()),
      steps: z.array(z.object({ name: z.string(), run: z.string() })),
    }),
  }),
});

/** Every key `/arbiter explore` may send with `arbiter.candidate.requested` (src/workflows/portfolio.ts). */
const REQUESTED = ['agent', 'approach', 'base', 'base_sha', 'change', 'phase', 'round', 'slot'];

describe('examples/agent-assign-copilot.yml', () => {
  const workflow = Workflow.parse(parseYaml(text));
  const job = workflow.jobs.assign;

  it('answers the dispatch only for slots whose approach names Copilot', () => {
    expect(workflow.on.repository_dispatch.types).toEqual(['arbiter.candidate.requested']);
    expect(job.if).toContain("github.event.client_payload.agent == 'Copilot'");
  });

  it('reads only keys Arbiter sends, through env', () => {
    const read = [...new Set([...text.matchAll(/github\.event\.client_payload\.([a-z_]+)/g)].map((m) => m[1]))];
    expect(read.every((k) => REQUESTED.includes(k!))).toBe(true);
    for (const step of job.steps) expect(step.run).not.toContain('${{');
  });

  it("assigns the issue to Copilot's bot with agent_assignment: the repository, the base branch, the approach", () => {
    const step = job.steps.find((s) => s.run.includes('gh api'))!;
    expect(step.run).toMatch(/--method POST "repos\/\$GITHUB_REPOSITORY\/issues\/\$CHANGE\/assignees"/);
    for (const key of [
      'assignees: ["copilot-swe-agent[bot]"]',
      'target_repo: $repo',
      'base_branch: $base',
      'custom_instructions:',
    ])
      expect(step.run).toContain(key);
    expect(step.run).toContain('--arg approach "$APPROACH"');
  });

  it("uses a user's token stored as a secret and says why an installation token will not do", () => {
    expect(job.env.GH_TOKEN).toBe('${{ secrets.COPILOT_ASSIGN_TOKEN }}');
    expect(text).toMatch(/installation token[^\n]*\n?[^\n]*cannot start\s+#?\s*Copilot/i);
  });
});
