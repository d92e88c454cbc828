// The emulator's state: repositories with their git store, people, issues, pull requests,
// comments, reviews, reactions, check suites, check runs, statuses and dispatches. Plain data.
import { GitStore } from './git-store.ts';
import { keywordReferences } from './closing-refs.ts';

export type Permission = 'read' | 'triage' | 'write' | 'maintain' | 'admin';

export interface Person {
  login: string;
  id: number;
  type: 'User' | 'Bot';
}

export interface AppInfo {
  id: number;
  slug: string;
  name: string;
  owner: string;
  createdAt: number;
}

export interface Reaction {
  id: number;
  user: string;
  content: string;
  createdAt: number;
}

export interface Comment {
  id: number;
  issueNumber: number;
  user: string;
  body: string;
  createdAt: number;
  updatedAt: number;
  viaApp: string | null;
  reactions: Reaction[];
}

export interface Issue {
  number: number;
  id: number;
  title: string;
  body: string;
  user: string;
  state: 'open' | 'closed';
  stateReason: 'completed' | 'not_planned' | 'reopened' | null;
  labels: string[];
  commentIds: number[];
  reactions: Reaction[];
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  closedBy: string | null;
  /** Locked conversation (`lockChange`). */
  locked?: boolean;
}

export interface AutoMerge {
  method: 'MERGE' | 'SQUASH' | 'REBASE';
  enabledBy: string;
}

export interface Pull {
  number: number;
  id: number;
  head: string;
  headSha: string;
  base: string;
  draft: boolean;
  merged: boolean;
  mergedAt: number | null;
  mergedBy: string | null;
  mergeCommitSha: string | null;
  requestedReviewers: string[];
  autoMerge: AutoMerge | null;
  queued: boolean;
  /** The head lives in the author's fork (`<author>/<name>`), not in this repository. */
  fork?: boolean;
  /** Issues linked in the pull request's Development sidebar (no webhook), in the order linked. */
  links?: number[];
}

export interface Review {
  id: number;
  pullNumber: number;
  user: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';
  body: string;
  commitId: string;
  submittedAt: number;
}

export interface Annotation {
  path: string;
  start_line: number;
  end_line: number;
  start_column?: number;
  end_column?: number;
  annotation_level: string;
  message: string;
  title?: string;
  raw_details?: string;
}

export interface CheckAction {
  label: string;
  description: string;
  identifier: string;
}

export interface CheckSuite {
  id: number;
  app: string;
  headSha: string;
  headBranch: string | null;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface CheckRun {
  id: number;
  suiteId: number;
  app: string;
  name: string;
  headSha: string;
  status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  conclusion: string | null;
  startedAt: number;
  completedAt: number | null;
  externalId: string;
  detailsUrl: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  annotations: Annotation[];
  actions: CheckAction[];
}

export interface CommitStatus {
  id: number;
  sha: string;
  context: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string | null;
  targetUrl: string | null;
  creator: string;
  createdAt: number;
  updatedAt: number;
}

export interface BranchRules {
  required?: string[];
  requiredReviews?: number;
  mergeQueue?: boolean;
  /** A ruleset's "require branches to be up to date before merging" (strict_required_status_checks_policy). */
  strict?: boolean;
  /** Classic branch protection beside the rulesets: its required checks and its strict setting. */
  protection?: { required?: string[]; strict?: boolean };
  /** Rules of other protected branches, by name (the fields above protect the default branch). */
  branches?: Record<string, Omit<BranchRules, 'branches'>>;
}

/** The rules that protect one branch: the default branch's, another listed branch's, else none. */
export function rulesFor(
  repo: { defaultBranch: string; rules: BranchRules },
  branch: string,
): Omit<BranchRules, 'branches'> {
  if (branch === repo.defaultBranch) return repo.rules;
  return repo.rules.branches?.[branch] ?? {};
}

export interface Dispatch {
  event_type: string;
  client_payload: unknown;
}

/**
 * A check run someone asked to run again: its app is asked (`POST …/check-runs/{id}/rerequest`,
 * `via: 'rerequest'`), or GitHub Actions re-runs the job (`POST …/actions/jobs/{job_id}/rerun`,
 * `via: 'job-rerun'`), which queues the job's new check run at once (`newRunId`).
 */
export interface Rerequest {
  runId: number;
  name: string;
  headSha: string;
  app: string;
  by: string;
  via: 'rerequest' | 'job-rerun';
  newRunId?: number;
}

export interface Repo {
  id: number;
  owner: string;
  name: string;
  fullName: string;
  defaultBranch: string;
  createdAt: number;
  git: GitStore;
  users: Map<string, { permission: Permission; bot: boolean }>;
  rules: BranchRules;
  /** The repository's merge settings: "Allow auto-merge" (off by default, as on GitHub) and the merge methods. */
  settings: { allowAutoMerge: boolean; mergeMethods: ('merge' | 'squash' | 'rebase')[] };
  issues: Map<number, Issue>;
  pulls: Map<number, Pull>;
  comments: Map<number, Comment>;
  reviews: Review[];
  suites: CheckSuite[];
  runs: CheckRun[];
  statuses: CommitStatus[];
  dispatches: Dispatch[];
  rerequests: Rerequest[];
  nextNumber: number;
}

/** One counter for every database id, so ids are unique across kinds like GitHub's. */
export class IdSource {
  private next = 1000;
  take(): number {
    this.next += 1;
    return this.next;
  }
}

/** Stable numeric ids for logins (hash of the name, so the same person keeps the same id). */
export function personId(login: string): number {
  let hash = 7;
  for (const char of login) hash = (hash * 31 + char.charCodeAt(0)) % 90_000_000;
  return 10_000_000 + hash;
}

export function newRepo(id: number, owner: string, name: string, defaultBranch: string, createdAt: number): Repo {
  return {
    id,
    owner,
    name,
    fullName: `${owner}/${name}`,
    defaultBranch,
    createdAt,
    git: new GitStore(),
    users: new Map(),
    rules: {},
    settings: { allowAutoMerge: false, mergeMethods: ['merge', 'squash', 'rebase'] },
    issues: new Map(),
    pulls: new Map(),
    comments: new Map(),
    reviews: [],
    suites: [],
    runs: [],
    statuses: [],
    dispatches: [],
    rerequests: [],
    nextNumber: 1,
  };
}

/** GitHub's REST permission for a role: maintain counts as write, triage as read. */
export const REST_PERMISSION: Record<Permission, 'admin' | 'write' | 'read'> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
};

/**
 * The issue numbers a merged PR's body closes, as GitHub reads them: only the closing keywords
 * (`Closes #N`, `Fixes: #N`, `Resolved #N`…). A mere reference such as `Candidate-for: #N` closes nothing.
 */
export function referencedIssues(body: string, here = '.'): number[] {
  // GitHub's own reading (closing-refs.ts): not in quotes, details, code or comments.
  return keywordReferences(body, here)
    .filter((r) => r.repo.toLowerCase() === here.toLowerCase())
    .map((r) => r.number);
}
