// The portfolio section of the `.github/arbiter.yml` schema (`portfolio`: the approaches and budget
// of `/arbiter explore`), composed into ConfigSchema by schema.ts.
import { z } from 'zod';
import { seconds } from './schema-primitives.ts';

/** Portfolio approaches must differ: N identical prompts are not a portfolio. The issue names the repeat's line. */
function distinctApproaches(list: string[], ctx: z.core.$RefinementCtx<string[]>): void {
  const first = new Map<string, number>();
  list.forEach((approach, i) => {
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
      .array(z.string().min(1).max(1000))
      .max(50)
      .superRefine(distinctApproaches)
      .default([])
      .meta({
        description:
          'Distinct approaches, one per candidate dispatched by `/arbiter explore N` (sent to the agent as `approach`). Required for explore: nothing is generated. The same approach twice is an error.',
        examples: [['Keep state in the URL', 'Keep state in local storage']],
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
