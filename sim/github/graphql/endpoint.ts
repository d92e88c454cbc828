// The GraphQL endpoint: GitHub's real schema (from @octokit/graphql-schema's SDL), every
// document validated before it runs (GitHub's pagination rule too), queries and mutations
// resolved from the emulator's state.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import {
  buildSchema,
  execute,
  GraphQLError,
  Kind,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { z } from 'zod';
import type { Sent } from '../issue-acts.ts';
import { dequeuePull, disableAutoMerge, enableAutoMerge, enqueuePull, markReady } from '../pull-acts.ts';
import { iso, nodeId } from '../payloads.ts';
import { GitHubError, type World } from '../world.ts';
import { checkCustomScalars, schemaBreaches } from './answer-check.ts';
import { actor, nodeById, pullByNodeId, pullRequestNode, repositoryNode } from './nodes.ts';
import { paginationBoundaries } from './pagination-rule.ts';

let schema: GraphQLSchema | null = null;

/** The package's SDL file; its `exports` hide it from require.resolve, so look in node_modules. */
function schemaFile(): string {
  const require = createRequire(import.meta.url);
  for (const dir of require.resolve.paths('@octokit/graphql-schema') ?? []) {
    const candidate = join(dir, '@octokit', 'graphql-schema', 'schema.graphql');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('@octokit/graphql-schema/schema.graphql not found');
}

export function githubSchema(): GraphQLSchema {
  if (schema) return schema;
  const sdl = readFileSync(schemaFile(), 'utf8');
  // one type in GitHub's SDL defines a field twice: skip SDL validation like GitHub's own tooling
  schema = buildSchema(sdl, { assumeValidSDL: true });
  checkCustomScalars(schema);
  return schema;
}

export const GraphqlRequest = z.object({
  query: z.string(),
  variables: z.record(z.string(), z.unknown()).nullable().optional(),
  operationName: z.string().nullable().optional(),
});

export interface GraphqlOutcome {
  status: number;
  json: unknown;
  /** root mutation fields of the executed operation (empty for a query) */
  mutations: string[];
  /** readable account of each mutation applied */
  summaries: string[];
  /** why GitHub would refuse the document, when it would */
  refused: string | null;
  /** where the answer breaks GitHub's schema (the emulator's fault, not the client's) */
  breaches: string[];
}

const ERROR_TYPES: Record<number, string> = {
  404: 'NOT_FOUND',
  403: 'FORBIDDEN',
  422: 'UNPROCESSABLE',
  409: 'UNPROCESSABLE',
  405: 'UNPROCESSABLE',
};

function formatError(error: GraphQLError): Record<string, unknown> {
  const original = error.originalError;
  const type = original instanceof GitHubError ? (ERROR_TYPES[original.status] ?? 'UNPROCESSABLE') : undefined;
  return { ...(type ? { type } : {}), path: error.path, locations: error.locations, message: error.message };
}

function selectedOperation(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | null {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name) return ops.find((op) => op.name?.value === name) ?? null;
  return ops.length === 1 ? ops[0] : null;
}

/** Root mutation field names of a request, without running it (for faults). */
export function mutationNames(query: string, operationName?: string | null): string[] {
  try {
    const op = selectedOperation(parse(query), operationName);
    if (!op || op.operation !== 'mutation') return [];
    return op.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));
  } catch {
    return [];
  }
}

/** The operation a request runs, as "query Name" (for the emulator's violation messages). */
export function operationTitle(query: string, operationName?: string | null): string {
  try {
    const op = selectedOperation(parse(query), operationName);
    return op ? `${op.operation} ${op.name?.value ?? '(anonymous)'}` : 'no operation';
  } catch {
    return 'unparsable document';
  }
}

interface MutationContext {
  world: World;
  actor: string;
  out: Sent;
  summaries: string[];
}

const PullInput = z.object({ pullRequestId: z.string(), clientMutationId: z.string().nullable().optional() });
const AutoMergeInput = PullInput.extend({
  expectedHeadOid: z.string().nullable().optional(),
  mergeMethod: z.enum(['MERGE', 'SQUASH', 'REBASE']).nullable().optional(),
});
const DequeueInput = z.object({ id: z.string(), clientMutationId: z.string().nullable().optional() });
const EnqueueInput = PullInput.extend({
  expectedHeadOid: z.string().nullable().optional(),
  jump: z.boolean().nullable().optional(),
});

function parseInput<T extends z.ZodType>(schema: T, args: unknown): z.infer<T> {
  const raw = typeof args === 'object' && args !== null && 'input' in args ? args.input : undefined;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new GitHubError(422, parsed.error.issues.map((i) => i.message).join('; '));
  return parsed.data;
}

function rootValue(ctx: MutationContext): Record<string, unknown> {
  const { world } = ctx;
  return {
    repository: ({ owner, name }: { owner: string; name: string }) => {
      const repo = world.findRepo(owner, name);
      if (!repo) throw new GitHubError(404, `Could not resolve to a Repository with the name '${owner}/${name}'.`);
      return repositoryNode(world, repo);
    },
    node: ({ id }: { id: string }) => nodeById(world, id),
    nodes: ({ ids }: { ids: string[] }) => ids.map((id) => nodeById(world, id)),
    viewer: () => actor(world, ctx.actor),
    rateLimit: () => ({
      cost: 1,
      limit: 5000,
      remaining: 4999,
      used: 1,
      resetAt: iso(world.now() + 3_600_000),
      nodeCount: 1,
    }),
    markPullRequestReadyForReview: (args: unknown) => {
      const input = parseInput(PullInput, args);
      const { repo, number } = pullByNodeId(world, input.pullRequestId);
      markReady(world, repo, number, ctx.actor, ctx.out);
      ctx.summaries.push(`ready for review #${number}`);
      return { clientMutationId: input.clientMutationId ?? null, pullRequest: pullRequestNode(world, repo, number) };
    },
    enablePullRequestAutoMerge: (args: unknown) => {
      const input = parseInput(AutoMergeInput, args);
      const { repo, number } = pullByNodeId(world, input.pullRequestId);
      enableAutoMerge(
        world,
        repo,
        number,
        { expectedHeadOid: input.expectedHeadOid ?? undefined, method: input.mergeMethod ?? 'MERGE' },
        ctx.actor,
        ctx.out,
      );
      ctx.summaries.push(`auto-merge #${number}`);
      return {
        clientMutationId: input.clientMutationId ?? null,
        actor: actor(world, ctx.actor),
        pullRequest: pullRequestNode(world, repo, number),
      };
    },
    disablePullRequestAutoMerge: (args: unknown) => {
      const input = parseInput(PullInput, args);
      const { repo, number } = pullByNodeId(world, input.pullRequestId);
      disableAutoMerge(world, repo, number, ctx.actor, ctx.out);
      ctx.summaries.push(`auto-merge off #${number}`);
      return {
        clientMutationId: input.clientMutationId ?? null,
        actor: actor(world, ctx.actor),
        pullRequest: pullRequestNode(world, repo, number),
      };
    },
    dequeuePullRequest: (args: unknown) => {
      const input = parseInput(DequeueInput, args);
      const { repo, number } = pullByNodeId(world, input.id);
      dequeuePull(world, repo, number, 'MANUAL', ctx.actor, ctx.out);
      ctx.summaries.push(`dequeue #${number}`);
      return { clientMutationId: input.clientMutationId ?? null, mergeQueueEntry: null };
    },
    enqueuePullRequest: (args: unknown) => {
      const input = parseInput(EnqueueInput, args);
      const { repo, number } = pullByNodeId(world, input.pullRequestId);
      enqueuePull(world, repo, number, input.expectedHeadOid ?? undefined, ctx.actor, ctx.out);
      ctx.summaries.push(`enqueue #${number}`);
      const pull = pullRequestNode(world, repo, number);
      return {
        clientMutationId: input.clientMutationId ?? null,
        mergeQueueEntry: {
          __typename: 'MergeQueueEntry',
          id: nodeId('MQE_', number),
          position: 1,
          state: 'QUEUED',
          enqueuedAt: iso(world.now()),
          enqueuer: actor(world, ctx.actor),
          jump: false,
          solo: false,
          pullRequest: pull,
        },
      };
    },
  };
}

/** Runs one GraphQL request body as the given actor. */
export function runGraphql(world: World, body: unknown, actorLogin: string, out: Sent): GraphqlOutcome {
  const request = GraphqlRequest.safeParse(body);
  if (!request.success)
    return {
      status: 400,
      json: { message: 'Problems parsing JSON', documentation_url: 'https://docs.github.com/graphql' },
      mutations: [],
      summaries: [],
      refused: 'the request body is not a GraphQL request',
      breaches: [],
    };
  let document: DocumentNode;
  try {
    document = parse(request.data.query);
  } catch (error) {
    const message = error instanceof GraphQLError ? error.message : String(error);
    return {
      status: 200,
      json: { errors: [{ message, locations: error instanceof GraphQLError ? error.locations : undefined }] },
      mutations: [],
      summaries: [],
      refused: message,
      breaches: [],
    };
  }
  const problems = validate(githubSchema(), document, [...specifiedRules, paginationBoundaries]);
  if (problems.length > 0)
    return {
      status: 200,
      json: {
        errors: problems.map((p) => ({
          path: p.path,
          extensions: { code: 'invalid' },
          locations: p.locations,
          message: p.message,
        })),
      },
      mutations: [],
      summaries: [],
      refused: problems.map((p) => p.message).join('; '),
      breaches: [],
    };
  const mutations = mutationNames(request.data.query, request.data.operationName);
  const ctx: MutationContext = { world, actor: actorLogin, out, summaries: [] };
  const result = execute({
    schema: githubSchema(),
    document,
    rootValue: rootValue(ctx),
    variableValues: request.data.variables ?? undefined,
    operationName: request.data.operationName ?? undefined,
  });
  if ('then' in result) throw new Error('the emulator resolves GraphQL synchronously');
  const json: Record<string, unknown> = { data: result.data ?? null };
  if (result.errors && result.errors.length > 0) json.errors = result.errors.map(formatError);
  // errors without a path are about the request: variables GitHub's schema does not accept
  const requestErrors = (result.errors ?? []).filter((e) => e.path === undefined).map((e) => e.message);
  return {
    status: 200,
    json,
    mutations,
    summaries: ctx.summaries,
    refused: requestErrors.length > 0 ? requestErrors.join('; ') : null,
    breaches: schemaBreaches(result.errors),
  };
}
