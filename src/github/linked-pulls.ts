// The pull requests GitHub lists as closing an issue: how a Development-sidebar link, which sends
// no webhook, is found (the sweep's look for links).
import { z } from 'zod';
import type { GraphqlFn } from './group-query.ts';

const LINKED_PULLS = `query ArbiterLinkedPulls($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) { closedByPullRequestsReferences(first: 25, includeClosedPrs: false) { nodes { number } } }
  }
}`;

const LinkedAnswer = z.object({
  repository: z.object({
    issue: z
      .object({
        closedByPullRequestsReferences: z
          .object({ nodes: z.array(z.object({ number: z.number() }).nullable()) })
          .nullable(),
      })
      .nullable(),
  }),
});

/**
 * The open pull requests GitHub lists as closing the issue (keyword links and Development-sidebar
 * links): how a link that sent no webhook is found. The first 25.
 */
export async function readLinkedPulls(
  graphql: GraphqlFn,
  owner: string,
  name: string,
  issue: number,
): Promise<number[]> {
  const answer = LinkedAnswer.safeParse(await graphql(LINKED_PULLS, { owner, name, number: issue }));
  if (!answer.success)
    throw new Error(`linked pulls query answered an unexpected shape: ${answer.error.issues[0]?.message}`);
  return (answer.data.repository.issue?.closedByPullRequestsReferences?.nodes ?? []).flatMap((n) =>
    n ? [n.number] : [],
  );
}
