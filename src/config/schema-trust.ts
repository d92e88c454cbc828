// The trust section of the `.github/arbiter.yml` schema (`trust`: the agents and the change label),
// composed into ConfigSchema by schema.ts.
import { z } from 'zod';

export const TrustSection = z
  .strictObject({
    agents: z
      .array(z.string().min(1))
      .default([])
      .meta({
        description:
          "The team's coding agents, trusted like a user with write access: their linked pull requests are candidates and their issues Changes. An entry is a built-in agent name, standing for every login that agent appears under (`copilot`, `claude`, `codex`, `jules`, `devin`, `cursor`, `openhands`, `sweep`; docs/agents.md lists them), or an exact login, matched in all its forms (`name`, `name[bot]`, any case). GitHub answers the permission API with 404 for every bot, so a bot is trusted only when listed here. Everyone else needs write, maintain or admin permission on the repository (or a maintainer's `/arbiter admit` or `/arbiter track`). An agent's review or command never counts as a person's.",
        examples: [['copilot', 'claude', 'my-agents[bot]']],
      }),
    changeLabel: z
      .string()
      .min(1)
      .nullable()
      .default('arbiter:change')
      .meta({
        description:
          'An issue opened by an account without write access becomes a Change when a trusted account adds this label (as `/arbiter track` does). null: only `/arbiter track` adopts an issue.',
        examples: ['arbiter:change'],
      }),
  })
  .prefault({})
  .meta({
    description:
      'Who Arbiter acts for: only accounts that could merge the code themselves (write, maintain or admin), the agents listed here, and Arbiter itself.',
  });
