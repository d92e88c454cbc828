// One GraphQL query reads the state of a whole group of siblings (PRs, heads, labels, check
// runs and statuses), paging only past 100 items, so reads do not grow with the group size.
import { z } from 'zod';
import { checkOutcome } from '../core/gate.ts';
import type { IssueRef } from '../core/link.ts';
import type { SuiteSeen } from '../core/agent-work.ts';
import type { ObservedCheck } from '../core/types.ts';
import { graphqlErrorsOf } from './errors.ts';

export interface PullState {
  number: number;
  id: string;
  state: 'OPEN' | 'CLOSED' | 'MERGED';
  isDraft: boolean;
  merged: boolean;
  headSha: string;
  headRef: string;
  baseRef: string;
  title: string;
  body: string;
  author: string;
  labels: string[];
  /**
   * GitHub's `closingIssuesReferences` (keyword links and Development-sidebar links; the first 10);
   * absent when the read did not ask for it.
   */
  closing?: IssueRef[];
  checks: ObservedCheck[];
  /** Check-run names Arbiter's own app reported (never counted as evidence). */
  ownChecks: string[];
  /** True when every page of the head's checks was read, so `ownChecks` lists all of Arbiter's runs. */
  ownChecksComplete?: boolean;
  /** The pull request's web address (GitHub's `url`: its own host, github.com or an Enterprise server). */
  url?: string;
  /** The head's check suites (app, status, conclusion, how many runs): Actions runs awaiting approval hold none. */
  suites?: SuiteSeen[];
  /** What GitHub says of merging it now (absent from a reader that did not ask). */
  merge?: PullMergeState;
  /** Who enabled its auto-merge (`name[bot]` for an app), null when it is off; absent from a reader that did not ask. */
  autoMergeBy?: string | null;
  /** The head commit's parents (an update-branch's merge commit has the old head first); absent when not asked. */
  headParents?: string[];
}

export type MergeMethodName = 'merge' | 'squash' | 'rebase';

/** GitHub's word on merging a pull request now, and what its repository allows. */
export interface PullMergeState {
  /** `mergeStateStatus`: CLEAN, HAS_HOOKS, UNSTABLE, BLOCKED, BEHIND, DIRTY, DRAFT, UNKNOWN. */
  status: string;
  /** `reviewDecision`: APPROVED, CHANGES_REQUESTED, REVIEW_REQUIRED, or null (no review required). */
  reviewDecision: string | null;
  inMergeQueue: boolean;
  autoMergeAllowed: boolean;
  methods: MergeMethodName[];
}

const Context = z.union([
  z.object({
    __typename: z.literal('CheckRun'),
    name: z.string(),
    status: z.string(),
    conclusion: z.string().nullable(),
    title: z.string().nullable().optional(),
    summary: z.string().nullable().optional(),
    checkSuite: z
      .object({
        id: z.string().optional(),
        app: z.object({ slug: z.string(), databaseId: z.number().nullable().optional() }).nullable(),
      })
      .nullable()
      .optional(),
  }),
  z.object({
    __typename: z.literal('StatusContext'),
    context: z.string(),
    state: z.string(),
    description: z.string().nullable().optional(),
  }),
]);

const Contexts = z.object({
  pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
  nodes: z.array(Context.nullable()),
});

const Pull = z.object({
  id: z.string(),
  number: z.number(),
  state: z.enum(['OPEN', 'CLOSED', 'MERGED']),
  isDraft: z.boolean(),
  merged: z.boolean(),
  headRefOid: z.string(),
  headRefName: z.string(),
  baseRefName: z.string(),
  title: z.string(),
  body: z.string(),
  author: z.object({ __typename: z.string().optional(), login: z.string() }).nullable(),
  mergeStateStatus: z.string().optional(),
  reviewDecision: z.string().nullable().optional(),
  isInMergeQueue: z.boolean().optional(),
  autoMergeRequest: z
    .object({ enabledBy: z.object({ __typename: z.string().optional(), login: z.string() }).nullable() })
    .nullable()
    .optional(),
  labels: z.object({ nodes: z.array(z.object({ name: z.string() }).nullable()) }).nullable(),
  closingIssuesReferences: z
    .object({
      nodes: z.array(
        z
          .object({ number: z.number(), state: z.string(), repository: z.object({ nameWithOwner: z.string() }) })
          .nullable(),
      ),
    })
    .nullable()
    .optional(),
  url: z.string().optional(),
  commits: z.object({
    nodes: z.array(
      z
        .object({
          commit: z.object({
            oid: z.string(),
            parents: z
              .object({ nodes: z.array(z.object({ oid: z.string() }).nullable()) })
              .nullable()
              .optional(),
            statusCheckRollup: z.object({ contexts: Contexts }).nullable(),
            checkSuites: z
              .object({
                nodes: z.array(
                  z
                    .object({
                      status: z.string().nullable().optional(),
                      conclusion: z.string().nullable().optional(),
                      app: z.object({ slug: z.string() }).nullable().optional(),
                      checkRuns: z.object({ totalCount: z.number() }).nullable().optional(),
                    })
                    .nullable(),
                ),
              })
              .nullable()
              .optional(),
          }),
        })
        .nullable(),
    ),
  }),
});

const CONTEXT_FIELDS = `pageInfo { hasNextPage endCursor }
  nodes { __typename
    ... on CheckRun { name status conclusion title summary checkSuite { id app { slug databaseId } } }
    ... on StatusContext { context state description } }`;

// A suite of GitHub Actions runs that wait for a maintainer's approval holds no check run, so the
// rollup's contexts never show it: the head's suites are read too (their app, conclusion and size).
const SUITE_FIELDS = `checkSuites(first: 20) { nodes { status conclusion app { slug } checkRuns(first: 1) { totalCount } } }`;

const PULL_FIELDS = `id number state isDraft merged headRefOid headRefName baseRefName title body url
  author { __typename login }
  mergeStateStatus reviewDecision isInMergeQueue autoMergeRequest { enabledBy { __typename login } }
  labels(first: 100) { nodes { name } }
  closingIssuesReferences(first: 10) { nodes { number state repository { nameWithOwner } } }
  commits(last: 1) { nodes { commit { oid parents(first: 2) { nodes { oid } } statusCheckRollup { contexts(first: 100) { ${CONTEXT_FIELDS} } } ${SUITE_FIELDS} } } }`;

export function groupQuery(prs: number[]): string {
  const fields = prs.map((n) => `pr${n}: pullRequest(number: ${n}) { ...ArbiterPull }`).join('\n    ');
  return `query ArbiterGroup($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    autoMergeAllowed mergeCommitAllowed squashMergeAllowed rebaseMergeAllowed
    ${fields}
  }
}
fragment ArbiterPull on PullRequest { ${PULL_FIELDS} }`;
}

const MORE_CONTEXTS = `query ArbiterMoreChecks($owner: String!, $name: String!, $oid: GitObjectID!, $after: String!) {
  repository(owner: $owner, name: $name) {
    object(oid: $oid) { ... on Commit { statusCheckRollup { contexts(first: 100, after: $after) { ${CONTEXT_FIELDS} } } } }
  }
}`;

const MoreResponse = z.object({
  repository: z.object({
    object: z.object({ statusCheckRollup: z.object({ contexts: Contexts }).nullable() }).nullable(),
  }),
});

export type GraphqlFn = (query: string, variables: Record<string, unknown>) => Promise<unknown>;

function toObserved(node: z.infer<typeof Context>): ObservedCheck {
  if (node.__typename === 'CheckRun') {
    const status = node.status.toLowerCase();
    const conclusion = node.conclusion ? node.conclusion.toLowerCase() : null;
    return {
      name: node.name,
      kind: 'check',
      raw: conclusion ?? status,
      outcome: checkOutcome('check', status, conclusion),
      title: node.title ?? null,
      summary: node.summary ?? null,
      app: node.checkSuite?.app?.slug ?? null,
      appId: node.checkSuite?.app?.databaseId ?? null,
      suite: node.checkSuite?.id ?? null,
    };
  }
  const state = node.state.toLowerCase();
  return {
    name: node.context,
    kind: 'status',
    raw: state,
    outcome: checkOutcome('status', state, null),
    title: node.description ?? null,
    summary: null,
    app: null,
  };
}

/** GraphQL names a bot without the `[bot]` suffix REST and webhooks use (`agent-a[bot]`): trust lists use the REST form. */
const authorLogin = (a: z.infer<typeof Pull>['author']): string =>
  a === null ? '' : a.__typename === 'Bot' ? `${a.login}[bot]` : a.login;

/** Who enabled an auto-merge, in the REST form (`name[bot]` for an app); '' when GitHub hides the account. */
const enablerLogin = (a: { __typename?: string | undefined; login: string } | null): string =>
  a === null ? '' : a.__typename === 'Bot' ? `${a.login}[bot]` : a.login;

/** The repository's merge settings the group query asks beside the pulls. */
const RepoMerge = z.object({
  autoMergeAllowed: z.boolean().optional(),
  mergeCommitAllowed: z.boolean().optional(),
  squashMergeAllowed: z.boolean().optional(),
  rebaseMergeAllowed: z.boolean().optional(),
});
type RepoMerge = z.infer<typeof RepoMerge>;
const isAlias = (key: string): boolean => key.startsWith('pr');
const GroupAnswer = z.object({
  repository: z
    .record(z.string(), z.unknown())
    .transform((r) => Object.fromEntries(Object.entries(r).filter(([k]) => isAlias(k))))
    .pipe(z.record(z.string(), Pull.nullable())),
});
const PartialAnswer = z.object({
  name: z.literal('GraphqlResponseError'),
  data: z.object({ repository: z.record(z.string(), z.unknown()).nullable() }),
});

/**
 * The group query's answer. GitHub answers some aliases and errors on others (a PR deleted, a
 * timeout on one rollup): Octokit throws, with the partial data attached. The aliases answered
 * in shape are kept; every other PR is read again alone, and one that fails alone too is left
 * out (as a PR GitHub answers null for).
 */
async function groupAnswer(
  graphql: GraphqlFn,
  owner: string,
  name: string,
  prs: number[],
  repo: { settings?: RepoMerge } = {},
): Promise<Record<string, z.infer<typeof Pull> | null>> {
  let raw: unknown;
  try {
    raw = await graphql(groupQuery(prs), { owner, name });
  } catch (error) {
    const partial = PartialAnswer.safeParse(error);
    // A rate limit is no partial answer: each PR read alone would be refused too, and left out.
    if (!partial.success || prs.length < 2 || graphqlErrorsOf(error).some((e) => e.type === 'RATE_LIMITED'))
      throw error;
    raw = partial.data.data;
  }
  const settings = z.object({ repository: RepoMerge }).safeParse(raw);
  if (settings.success && settings.data.repository.autoMergeAllowed !== undefined)
    repo.settings = settings.data.repository;
  const whole = GroupAnswer.safeParse(raw);
  if (prs.length < 2) {
    if (!whole.success) throw new Error(`group query answered an unexpected shape: ${whole.error.issues[0]?.message}`);
    return whole.data.repository;
  }
  if (whole.success && Object.values(whole.data.repository).every((p) => p !== null)) return whole.data.repository;
  const answered: Record<string, z.infer<typeof Pull> | null> = {};
  const repository = z.object({ repository: z.record(z.string(), z.unknown()).nullable() }).safeParse(raw);
  for (const [alias, value] of Object.entries(repository.success ? (repository.data.repository ?? {}) : {})) {
    if (!isAlias(alias)) continue;
    const pull = Pull.safeParse(value);
    if (pull.success) answered[alias] = pull.data;
  }
  const got = new Set(Object.values(answered).flatMap((p) => (p ? [p.number] : [])));
  for (const pr of prs) {
    if (got.has(pr)) continue;
    const alone = await groupAnswer(graphql, owner, name, [pr], repo).catch(() => ({}));
    Object.assign(answered, alone);
  }
  return answered;
}

function mergeStateOf(pull: z.infer<typeof Pull>, repo: RepoMerge): PullMergeState {
  const methods: MergeMethodName[] = [];
  if (repo.mergeCommitAllowed) methods.push('merge');
  if (repo.squashMergeAllowed) methods.push('squash');
  if (repo.rebaseMergeAllowed) methods.push('rebase');
  return {
    status: pull.mergeStateStatus ?? 'UNKNOWN',
    reviewDecision: pull.reviewDecision ?? null,
    inMergeQueue: pull.isInMergeQueue ?? false,
    autoMergeAllowed: repo.autoMergeAllowed ?? false,
    methods,
  };
}

export async function readGroupState(
  graphql: GraphqlFn,
  owner: string,
  name: string,
  prs: number[],
  appSlug: string,
): Promise<Map<number, PullState>> {
  const result = new Map<number, PullState>();
  if (prs.length === 0) return result;
  const repo: { settings?: RepoMerge } = {};
  const answer = await groupAnswer(graphql, owner, name, prs, repo);
  for (const [alias, pull] of Object.entries(answer)) {
    if (!pull || !alias.startsWith('pr')) continue;
    const commit = pull.commits.nodes[0]?.commit;
    const nodes = [...(commit?.statusCheckRollup?.contexts.nodes ?? [])];
    let page = commit?.statusCheckRollup?.contexts.pageInfo;
    while (commit && page?.hasNextPage && page.endCursor) {
      const more = MoreResponse.safeParse(
        await graphql(MORE_CONTEXTS, { owner, name, oid: commit.oid, after: page.endCursor }),
      );
      const contexts = more.success ? more.data.repository.object?.statusCheckRollup?.contexts : undefined;
      if (!contexts) break;
      nodes.push(...contexts.nodes);
      page = contexts.pageInfo;
    }
    const checks: ObservedCheck[] = [];
    const ownChecks: string[] = [];
    for (const node of nodes) {
      if (!node) continue;
      if (node.__typename === 'CheckRun' && node.checkSuite?.app?.slug === appSlug) {
        ownChecks.push(node.name);
        continue;
      }
      checks.push(toObserved(node));
    }
    result.set(pull.number, {
      number: pull.number,
      id: pull.id,
      state: pull.state,
      isDraft: pull.isDraft,
      merged: pull.merged,
      headSha: pull.headRefOid,
      headRef: pull.headRefName,
      baseRef: pull.baseRefName,
      title: pull.title,
      body: pull.body,
      author: authorLogin(pull.author),
      labels: (pull.labels?.nodes ?? []).flatMap((l) => (l ? [l.name] : [])),
      ...(pull.closingIssuesReferences
        ? {
            closing: pull.closingIssuesReferences.nodes.flatMap((i) =>
              i ? [{ repo: i.repository.nameWithOwner, number: i.number, open: i.state === 'OPEN' }] : [],
            ),
          }
        : {}),
      checks,
      ownChecks,
      ownChecksComplete: commit !== undefined && page?.hasNextPage !== true,
      ...(pull.url ? { url: pull.url } : {}),
      suites: (commit?.checkSuites?.nodes ?? []).flatMap((suite) =>
        suite
          ? [
              {
                app: suite.app?.slug ?? null,
                status: suite.status ?? null,
                conclusion: suite.conclusion ?? null,
                runs: suite.checkRuns?.totalCount ?? 0,
              },
            ]
          : [],
      ),
      ...(pull.mergeStateStatus !== undefined && repo.settings ? { merge: mergeStateOf(pull, repo.settings) } : {}),
      ...(pull.autoMergeRequest !== undefined
        ? { autoMergeBy: pull.autoMergeRequest ? enablerLogin(pull.autoMergeRequest.enabledBy) : null }
        : {}),
      ...(commit?.parents ? { headParents: commit.parents.nodes.flatMap((p) => (p ? [p.oid] : [])) } : {}),
    });
  }
  return result;
}
