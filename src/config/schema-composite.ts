// The composite section of the `.github/arbiter.yml` schema (`composite`: how a candidate set of
// several repositories ships), composed into ConfigSchema by schema.ts. Read from the Change's repository.
import { z } from 'zod';

const RepoName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+$/, 'a repository full name, like `acme/api`');

/** A repository named twice would have no place in the order: the repeat's line is named. */
function distinctRepos(list: string[], ctx: z.core.$RefinementCtx<string[]>): void {
  const first = new Map<string, number>();
  list.forEach((repo, i) => {
    const earlier = first.get(repo.toLowerCase());
    if (earlier === undefined) first.set(repo.toLowerCase(), i);
    else
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message: `duplicate repository (same as composite.order[${earlier}]): each repository has one place in the order`,
      });
  });
}

export const CompositeSection = z
  .strictObject({
    order: z
      .array(RepoName)
      .max(50)
      .superRefine(distinctRepos)
      .default([])
      .meta({
        description:
          "The order in which the members of a winning candidate set are merged, by repository full name (`owner/name`). GitHub cannot merge across repositories at once, so Arbiter merges one member at a time, each with `sha` (its verified head), and stops at the first refusal. Members in repositories listed here merge first, in this order; the others follow in the order of the first member's `Parts:` line. `[]` (the default): the `Parts:` order. Read from the Change's repository.",
        examples: [['acme/api', 'acme/ui']],
      }),
  })
  .prefault({})
  .meta({
    description:
      'Candidate sets: one candidate made of linked pull requests in several repositories of the installation (docs/portfolio.md, "Candidate sets").',
  });
