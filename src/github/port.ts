// Everything Arbiter asks of GitHub, as one interface: reads of a repository (the group query,
// issues, rules, files, the patch, head files, comments), its writes, and the configuration's
// reads and check runs; and, as the app itself, its webhook's delivery attempts. `GitHubGateway` implements it over Octokit; tests implement it in memory.
// Every failure is a GitHubError (src/github/errors.ts).
import { z } from 'zod';
import type { CheckRunContent, CheckRunName } from '../core/actions.ts';
import type { HeadRead } from '../core/head-files.ts';
import type { HookDeliveryAttempt } from '../core/redelivery.ts';
import type { PermissionLookup } from '../core/trust.ts';
import type { PatchRow } from '../store/types.ts';
import type { OwnComment } from './comment-lookup.ts';
import type { ConfigPort } from '../config/port.ts';
import type { PullState } from './group-query.ts';
import type { ScoringRun } from './portfolio-calls.ts';

import type { Permission } from '../core/trust.ts';

export type { Permission };

export interface BranchRules {
  /** Required checks from rulesets and classic protection; `name@<app id>` where a rule pins the app. */
  required: string[] | null;
  requiredReviews: number;
  mergeQueue: boolean;
  /** "Require branches to be up to date before merging" (a ruleset's strict policy, or classic `strict`). */
  strict?: boolean;
}

/** What a merge (or enabling auto-merge) answered; recorded as the action's result and parsed where read back. */
export const MergeResult = z.union([
  z.object({
    ok: z.literal(true),
    sha: z.string().nullable(),
    queued: z.boolean().optional(),
    /** The branch was brought up to date (update-branch): a new head, verified before any merge. */
    updated: z.boolean().optional(),
  }),
  z.object({
    ok: z.literal(false),
    status: z.union([z.literal(405), z.literal(409), z.literal(422)]),
    message: z.string(),
  }),
]);
export type MergeResult = z.infer<typeof MergeResult>;

/** A pull request as GitHub reports it now; `mergeable` is null while GitHub computes it. */
export interface PullSnapshot {
  state: string;
  merged: boolean;
  draft: boolean;
  headSha: string;
  nodeId: string;
  labels: string[];
  mergeable: boolean | null;
  /** clean, dirty (a conflict), blocked (branch rules), behind, unstable, draft, unknown; null while computed. */
  mergeableState: string | null;
  /** The merge commit once merged (GitHub's `merge_commit_sha`); absent where a reader does not say. */
  mergeCommitSha?: string | null;
  /** Who enabled its auto-merge (`name[bot]` for an app), or null when auto-merge is off. */
  autoMergeBy?: string | null;
}

export interface IssueSnapshot {
  number: number;
  title: string;
  body: string | null;
  state: string;
  pull_request?: unknown;
  user: { login: string } | null;
}

export interface PatchTarget {
  pr: number;
  baseRef: string;
  headSha: string;
}

export interface HeadReadInput {
  sha: string;
  paths: string[];
  dirs?: string[];
}

export type CheckRunWrite = { id: number | null; sha: string } & CheckRunContent;

/** One repository, as the installation sees it. */
export interface GitHubPort extends ConfigPort {
  readonly owner: string;
  readonly repo: string;
  readonly botLogin: string;
  /** The branch and pull-request writes of the combined candidate (src/github/git-writes.ts). */
  readonly branches: BranchWrites;
  /** What portfolio search reads and re-runs (src/github/portfolio-calls.ts). */
  readonly portfolio: PortfolioCalls;
  /** The issues Arbiter opens itself: the dashboard (src/github/own-issues.ts). */
  readonly ownIssues: OwnIssues;

  // ---- reads
  readGroup(prs: number[]): Promise<Map<number, PullState>>;
  getIssue(number: number): Promise<IssueSnapshot | null>;
  /** The open pull requests GitHub lists as closing the issue (keywords and sidebar links). */
  linkedPulls(issue: number): Promise<number[]>;
  branchRules(branch: string): Promise<BranchRules>;
  permission(user: string): Promise<Permission>;
  /** The permission, retried on transient failures; a failure is never a yes (src/core/trust.ts). */
  permissionLookup(user: string, attempts?: number): Promise<PermissionLookup>;
  /** Text of a file on a ref, or null when it does not exist. */
  readFile(path: string, ref?: string): Promise<string | null>;
  /** The paths a pull request changes (GitHub lists at most 3,000). */
  pullFileNames(pr: number): Promise<string[]>;
  pullState(pr: number): Promise<PullSnapshot>;
  /** The candidate's patch and merge base, as stored once per head sha. */
  fetchPatch(target: PatchTarget, opts?: { maxBytes?: number }): Promise<PatchRow>;
  /** Files (and folder listings, for globs) of the tree at a sha, in one query. */
  readHead(input: HeadReadInput): Promise<HeadRead>;
  findOwnComments(issues: number[]): Promise<Map<number, OwnComment[]>>;
  /** Arbiter's own check run of that name on a sha, if one exists. */
  findCheckRun(sha: string, name: CheckRunName): Promise<number | null>;

  // ---- writes
  upsertComment(
    issue: number,
    marker: string,
    body: string,
    ours?: OwnComment[],
  ): Promise<{ id: number; created: boolean }>;
  closePull(pr: number): Promise<void>;
  /** Closes a pull request and replaces its label list with `labels`, in one write. */
  closeWithLabels(pr: number, labels: string[]): Promise<void>;
  addLabels(issue: number, labels: string[]): Promise<void>;
  removeLabel(issue: number, label: string): Promise<void>;
  markReady(nodeId: string): Promise<void>;
  /** Merge with GitHub's compare-and-swap: 409 when the head moved, 405 when it cannot merge now. */
  merge(pr: number, sha: string, method: 'merge' | 'squash' | 'rebase'): Promise<MergeResult>;
  enableAutoMerge(nodeId: string, sha: string, method: 'merge' | 'squash' | 'rebase', queue: boolean): Promise<void>;
  /** Turns off a pull request's auto-merge (GraphQL `disablePullRequestAutoMerge`). */
  disableAutoMerge(nodeId: string): Promise<void>;
  /** Takes a pull request out of the merge queue (GraphQL `dequeuePullRequest`). */
  dequeue(nodeId: string): Promise<void>;
  /** Merges the base into the PR's branch (`PUT …/update-branch` with `expected_head_sha`); 422 when the head moved. */
  updateBranch(pr: number, expectedHeadSha: string): Promise<void>;
  requestReviewers(pr: number, reviewers: string[], teams: string[]): Promise<void>;
  dispatch(eventType: string, payload: Record<string, unknown>): Promise<void>;
  react(commentId: number, content: '+1' | 'eyes' | 'confused' | 'rocket'): Promise<void>;
  writeCheckRun(input: CheckRunWrite): Promise<number>;
}

export type MergeAnswer = { ok: true; sha: string | null } | { ok: false; status: number; message: string };

export interface OpenedPull {
  number: number;
  state: string;
  headSha: string;
  draft: boolean;
  body: string | null;
  author: string;
}

/** Branch refs, merges into a branch and a draft pull request from it: the combined candidate's build. */
export interface BranchWrites {
  readBranchHead(branch: string): Promise<string | null>;
  createBranch(branch: string, sha: string): Promise<void>;
  deleteBranch(branch: string): Promise<void>;
  /** 409 (conflict), 404, 403 and 422 are answers, not throws. */
  mergeIntoBranch(branch: string, head: string, message: string): Promise<MergeAnswer>;
  /** The newest pull request of Arbiter's own from `branch` into `base`, or null. */
  findPullFrom(branch: string, base: string): Promise<OpenedPull | null>;
  openDraftPull(input: { branch: string; base: string; title: string; body: string }): Promise<OpenedPull>;
}

/** The default branch head the agents start from, a scoring check's runs, and a re-run of one. */
export interface PortfolioCalls {
  defaultBranchHead(): Promise<{ branch: string; sha: string }>;
  scoringRuns(sha: string, name: string): Promise<ScoringRun[]>;
  rerun(run: Pick<ScoringRun, 'id' | 'appSlug'>): Promise<void>;
}

/** Issues Arbiter opens itself (the dashboard): found among those its bot created, opened, edited. */
export interface OwnIssues {
  /** Issues (not pull requests) that Arbiter's bot created, in any state, oldest first (the first 300). */
  listOwn(): Promise<IssueSnapshot[]>;
  open(title: string, body: string): Promise<IssueSnapshot>;
  editBody(number: number, body: string): Promise<void>;
}

export type { HookDeliveryAttempt } from '../core/redelivery.ts';

/** The app's own webhook, as GitHub records its deliveries (app JWT; src/github/hook-deliveries.ts). */
export interface AppHooksPort {
  /** Attempts delivered at or after `since`, newest first, reading at most `maxPages` pages of 100. */
  listDeliveries(since: Date, maxPages: number): Promise<HookDeliveryAttempt[]>;
  /** Asks GitHub to deliver that attempt's webhook again (the same X-GitHub-Delivery). */
  redeliver(attemptId: number): Promise<void>;
}
