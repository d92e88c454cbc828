// The portfolio section of the `.github/arbiter.yml` schema (`portfolio`: the approaches and budget
// of `/arbiter explore`), composed into ConfigSchema by schema.ts.
import { z } from 'zod';
import { seconds } from './schema-primitives.ts';

/** One approach: its text, or its text and the agent that takes its slot (`{ approach, agent }`). */
const Approach = z.union(
  [
    z.string().min(1).max(1000),
    z.strictObject({
      approach: z.string().min(1).max(1000),
      agent: z.string().min(1).max(100),
    }),
  ],
  { error: 'an approach is its text, or { approach: <text>, agent: <login> } naming the agent that takes its slot' },
);
type Approach = z.infer<typeof Approach>;

/** Portfolio approaches must differ: N identical prompts are not a portfolio. The issue names the repeat's line. */
function distinctApproaches(list: Approach[], ctx: z.core.$RefinementCtx<Approach[]>): void {
  const first = new Map<string, number>();
  list.forEach((entry, i) => {
    const approach = typeof entry === 'string' ? entry : entry.approach;
    const key = approach.trim().toLowerCase();
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, i);
    else
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message: `duplicate approach (same as portfolio.approaches[${earlier}]): each approach must be distinct`,
      });
  });
}

export const PortfolioSection = z
  .strictObject({
    approaches: z
      .array(Approach)
      .max(50)
      .superRefine(distinctApproaches)
      .default([])
      .meta({
        description:
          'Distinct approaches, one per candidate dispatched by `/arbiter explore N` (sent to the agent as `approach`). Required for explore: nothing is generated. The same approach twice is an error. An entry `{ approach, agent }` names the agent that takes the slot (sent as `agent`; e.g. a workflow assigns the issue to Copilot): a pull request of that agent for the Change fills its slot without an `Arbiter-slot:` line, which such agents cannot write.',
        examples: [
          ['Keep state in the URL', 'Keep state in local storage'],
          [
            { approach: 'Keep state in the URL', agent: 'Copilot' },
            { approach: 'Keep state in local storage', agent: 'anthropic-code-agent[bot]' },
          ],
        ],
      }),
    composeTimeout: seconds.default(3600).meta({
      description: 'Seconds a dispatched candidate may take to open its pull request before it is dropped.',
      examples: [1800],
    }),
    policy: z
      .enum(['top-k', 'successive-halving'])
      .default('top-k')
      .meta({
        description:
          '`top-k` takes the k best by score to the deep round; `successive-halving` re-runs the scoring check on the survivors and averages, so one noisy reading does not pick the winner.',
        examples: ['successive-halving'],
      }),
    k: z
      .number()
      .int()
      .min(1)
      .default(2)
      .meta({ description: 'How many candidates go on to the deep round.', examples: [3] }),
    maxDispatches: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(20)
      .meta({
        description:
          'The most agent dispatches (`arbiter.candidate.requested` and `arbiter.candidate.refine`) one Change may cost across all its explores; an explore that would exceed it is refused.',
        examples: [12],
      }),
  })
  .prefault({})
  .meta({ description: 'Portfolio search: explore several approaches, then exploit the best (`/arbiter explore`).' });
