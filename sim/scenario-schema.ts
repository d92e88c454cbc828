// The scenario file format of DESIGN.md §9 as a zod schema (the written form, with its
// defaults), its readable errors, and the normalisation that fills defaults that depend on other keys.
import { z } from 'zod';

const seconds = z.number().nonnegative();
const prNumber = z.number().int().positive();
const login = z.string().min(1);
const fileTree = z.record(z.string().min(1), z.string());
/** Extension: files moved, new path → old path; the new path keeps the old content unless `files` gives it. */
const renames = z.record(z.string().min(1), z.string().min(1)).default({});

export const Permission = z.enum(['read', 'triage', 'write', 'maintain', 'admin']);

export const UserSpec = z.union(
  [Permission, z.strictObject({ permission: Permission, bot: z.boolean().default(false) })],
  { error: 'read | triage | write | maintain | admin, or { permission, bot }' },
);

/** Extension: classic branch protection beside the rulesets (GitHub applies both). */
const ClassicProtection = z.strictObject({
  /** Its required status checks (GET /branches/{b} → protection.required_status_checks.contexts). */
  required: z.array(z.string().min(1)).default([]),
  /** "Require branches to be up to date before merging". */
  strict: z.boolean().default(false),
});

const ProtectedBranch = z.strictObject({
  required: z.array(z.string().min(1)).default([]),
  requiredReviews: z.number().int().nonnegative().default(0),
  mergeQueue: z.boolean().default(false),
  /** Extension: the ruleset's "require branches to be up to date before merging" (strict policy). */
  strict: z.boolean().default(false),
  /** Extension: classic branch protection of the branch, beside the rulesets above. */
  protection: ClassicProtection.optional(),
});

/** The default branch's rules, and (extension) other protected branches' rules by name. */
export const BranchRules = ProtectedBranch.extend({
  branches: z.record(z.string().min(1), ProtectedBranch).optional(),
});

export const CheckConclusion = z.enum([
  'success',
  'failure',
  'neutral',
  'cancelled',
  'skipped',
  'timed_out',
  'action_required',
  'stale',
]);
export const StatusState = z.enum(['success', 'failure', 'error', 'pending']);

/** One scripted CI result on a head: a check run (default) or a commit status (`kind: status`). */
export const CheckSpec = z
  .strictObject({
    name: z.string().min(1),
    kind: z.enum(['check', 'status']).default('check'),
    conclusion: CheckConclusion.optional(),
    state: StatusState.optional(),
    at: seconds.optional(),
    output: z.strictObject({ title: z.string().optional(), summary: z.string().optional() }).optional(),
    /** Extension: the description of a commit status. */
    description: z.string().optional(),
    never: z.boolean().default(false),
    /** Extension: when the check registers (seconds; default when the head is pushed), as late CI does. */
    startAt: seconds.optional(),
    /** Extension: a scoring check's readings, one per run: run n says `score: <readings[n]>` (the last repeats). */
    readings: z.array(z.number()).min(1).optional(),
    /** Extension: seconds from a re-run request (rerequest) to the new run's conclusion; default 1. */
    rerunAfter: seconds.default(1),
    /**
     * Extension: a GitHub Actions run that waits for a maintainer's approval: until an event
     * `approveWorkflows` on its PR, the head's Actions suite is `action_required` with no run; then
     * the check starts, and concludes at `at` (at the approval, if `at` came first).
     */
    awaitsApproval: z.boolean().optional(),
    /** Extension: the app that reports the check run: `ci` (default) or `github-actions` (a job). */
    app: z.enum(['ci', 'github-actions']).optional(),
    /**
     * Extension: how the check's app answers a re-run: `new-run` (default: a new check run), `in-place`
     * (the app re-opens and updates the same run), `never` (the new run starts and never concludes).
     */
    rerun: z.enum(['new-run', 'in-place', 'never']).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.startAt !== undefined && c.at !== undefined && c.at < c.startAt)
      ctx.addIssue({ code: 'custom', path: ['at'], message: `before the check registers (startAt ${c.startAt})` });
    if (c.readings !== undefined && c.output !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['readings'],
        message: 'a check has `readings` or `output`, not both (readings write the output title)',
      });
    if (c.awaitsApproval && c.kind === 'status')
      ctx.addIssue({
        code: 'custom',
        path: ['awaitsApproval'],
        message: 'only a check run (a GitHub Actions run) waits for approval, not a commit status',
      });
    if (c.awaitsApproval && c.startAt !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['startAt'],
        message: 'a check that waits for approval starts when its runs are approved, not at `startAt`',
      });
    if (c.readings !== undefined && c.kind === 'status')
      ctx.addIssue({
        code: 'custom',
        path: ['readings'],
        message: 'readings belong to a check run, not a commit status',
      });
    if (c.kind === 'status' && (c.app !== undefined || c.rerun !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: [c.app !== undefined ? 'app' : 'rerun'],
        message: 'a commit status has no app and is never re-run (`kind: status`)',
      });
    if (c.app === 'github-actions' && c.rerun === 'in-place')
      ctx.addIssue({
        code: 'custom',
        path: ['rerun'],
        message: 'GitHub Actions re-runs a job as a new check run: `in-place` is what another CI app may do',
      });
    if (c.never) {
      if (c.at !== undefined)
        ctx.addIssue({ code: 'custom', path: ['at'], message: 'a check that never finishes has no `at`' });
      return;
    }
    if (c.at === undefined) ctx.addIssue({ code: 'custom', path: ['at'], message: 'required (or `never: true`)' });
    if (c.kind === 'check' && c.conclusion === undefined)
      ctx.addIssue({ code: 'custom', path: ['conclusion'], message: 'required for a check run' });
    if (c.kind === 'status' && c.state === undefined)
      ctx.addIssue({ code: 'custom', path: ['state'], message: 'required for a commit status (`kind: status`)' });
    if (c.kind === 'status' && c.conclusion !== undefined)
      ctx.addIssue({ code: 'custom', path: ['conclusion'], message: 'a commit status has `state`, not `conclusion`' });
    if (c.kind === 'check' && c.state !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['state'],
        message: 'a check run has `conclusion`, not `state` (add `kind: status`)',
      });
  });

export const CriterionScript = z.strictObject({
  status: z.enum(['met', 'not_met', 'unclear', 'uncheckable']),
  path: z.string().optional(),
  quote: z.string().optional(),
  /** Extension: the model classifies the criterion as a removal (default false). */
  removal: z.boolean().optional(),
  reason: z.string().optional(),
});

const criterionId = z.string().regex(/^AC\d+$/, 'a criterion id like AC1');
export const CandidateModelScript = z.strictObject({
  small: z.record(criterionId, CriterionScript).optional(),
  large: z.record(criterionId, CriterionScript).optional(),
});

/** Who opens a candidate a scenario gives no author: the team's own agent (trusted by the runner). */
export const DEFAULT_CANDIDATE_AUTHOR = 'arbiter-candidate[bot]';

const repoName = z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'owner/name');

export const CandidateSpec = z.strictObject({
  number: prNumber,
  /**
   * Extension: the repository the PR opens in: the scenario's `repo` (default) or one of `repos`.
   * Numbers stay unique across the whole scenario, so events and model scripts name a PR by number.
   */
  repo: repoName.optional(),
  branch: z.string().min(1),
  /** Extension: the PR title; default "Candidate <branch>". */
  title: z.string().optional(),
  /** Default: "Candidate-for: #<change>" (in another repository: "Candidate-for: <repo>#<change>"). */
  body: z.string().optional(),
  author: login.default(DEFAULT_CANDIDATE_AUTHOR),
  draft: z.boolean().default(true),
  openAt: seconds.default(0),
  /** The branch is cut from the base as it is at this time (default 0). */
  baseAt: seconds.default(0),
  /** Extension: the base branch the PR targets (default: the default branch); cut from the default branch at time 0. */
  base: z.string().min(1).optional(),
  /** Extension: labels on the PR when it opens. */
  labels: z.array(z.string().min(1)).default([]),
  files: fileTree.default({}),
  deleted: z.array(z.string().min(1)).default([]),
  renamed: renames,
  checks: z.array(CheckSpec).default([]),
  model: CandidateModelScript.optional(),
  /** Extension: the PR comes from the author's fork (its head repository differs). */
  fork: z.boolean().default(false),
});

/** Extension: what a scripted agent pushes when Arbiter asks it to refine its PR (`arbiter.candidate.refine`). */
export const AgentRefineSpec = z.strictObject({
  /** Seconds after the refine dispatch that the push lands. */
  delay: seconds.default(5),
  files: fileTree.default({}),
  deleted: z.array(z.string().min(1)).default([]),
  /** `at`: seconds after the push. */
  checks: z.array(CheckSpec).default([]),
  model: CandidateModelScript.optional(),
  /** Never pushes: the refinement expires after `portfolio.composeTimeout`. */
  never: z.boolean().default(false),
});

/** Extension: a scripted agent that answers the `arbiter.candidate.requested` dispatch of one approach. */
export const AgentSpec = z.strictObject({
  /** The approach (as in `portfolio.approaches`) whose dispatch this agent answers. */
  approach: z.string().min(1),
  /** The number of the draft PR it opens. */
  number: prNumber,
  branch: z.string().min(1),
  /** Default "Agent <branch>". */
  title: z.string().optional(),
  author: login.default(DEFAULT_CANDIDATE_AUTHOR),
  /** Seconds after the dispatch that the draft PR opens. */
  delay: seconds.default(5),
  /** Never answers: its slot is dropped after `portfolio.composeTimeout`. */
  never: z.boolean().default(false),
  /** The `Arbiter-slot` line it writes; default the slot it was dispatched (a wrong one makes it an ordinary candidate). */
  slot: z.string().min(1).optional(),
  /**
   * Extension: false writes no `Arbiter-slot` line, as an agent assigned the issue (Copilot) cannot:
   * its PR fills the slot whose approach names it as `agent` in `portfolio.approaches`. Default true.
   */
  trailer: z.boolean().optional(),
  files: fileTree.default({}),
  deleted: z.array(z.string().min(1)).default([]),
  /** `at`: seconds after the PR opens. */
  checks: z.array(CheckSpec).default([]),
  model: CandidateModelScript.optional(),
  refine: AgentRefineSpec.optional(),
});

/** Extension: CI and model answers for the combined candidate, the PR Arbiter itself opens. */
export const CombinedSpec = z.strictObject({
  /** Scripted CI on its head; each `at` counts seconds from the moment Arbiter opens it. */
  checks: z.array(CheckSpec).default([]),
  model: CandidateModelScript.optional(),
  /**
   * The number the combined PR gets (the emulator's next issue number), so that a `comment` event can
   * name it (a person's `/arbiter promote` or `reject` on it). The run fails if Arbiter's PR gets another.
   */
  number: prNumber.optional(),
});

const JudgeAnswer = z.strictObject({
  verdict: z.string().optional(),
  candidate: prNumber.nullable().optional(),
  evidence: z.array(z.string()).optional(),
  reason: z.string().optional(),
  scores: z.record(z.string(), z.record(z.string(), z.number().int())).optional(),
});
export const JudgeScript = JudgeAnswer.extend({
  /** Extension: the answer to the reversed-order call (tied candidates listed last first); default the same answer. */
  swapped: JudgeAnswer.optional(),
});

const CommentEvent = z.strictObject({ on: prNumber, user: login, body: z.string() });
const ReviewEvent = z.strictObject({
  on: prNumber,
  user: login,
  state: z.enum(['approved', 'changes_requested', 'commented']),
  body: z.string().optional(),
});
const PushEvent = z.strictObject({
  on: prNumber,
  files: fileTree.default({}),
  deleted: z.array(z.string().min(1)).default([]),
  renamed: renames,
  checks: z.array(CheckSpec).default([]),
  /** Extension: who pushes; default the candidate's author. */
  user: login.optional(),
  /** Extension: commit message. */
  message: z.string().optional(),
  /** Extension: the acceptance answers for the new head (replace the candidate's scripts). */
  model: CandidateModelScript.optional(),
});
const ClickEvent = z.strictObject({ on: prNumber, user: login, action: z.string().min(1).max(20) });
/**
 * Extension: a person asks GitHub to run one of Arbiter's check runs on the PR's head again (its
 * "Re-run" link): `check_run.rerequested` to Arbiter, or with `suite: true` "Re-run all checks"
 * of Arbiter's suite (`check_suite.rerequested`).
 */
const RerunEvent = z.strictObject({
  on: prNumber,
  check: z.string().regex(/^Arbiter \/ /, 'one of Arbiter\'s own check runs, like "Arbiter / acceptance"'),
  user: login,
  suite: z.boolean().optional(),
});
const EditEvent = z
  .strictObject({
    /** The Change, or (extension) a pull request: GitHub sends `pull_request.edited` with `changes`. */
    issue: prNumber,
    /** The new body (optional when `title` is given). */
    body: z.string().optional(),
    /** Extension: the new title (an agent drops its `[WIP]` marker; `changes.title.from` on the webhook). */
    title: z.string().min(1).optional(),
    /** Extension: who edits; default the author of what is edited (a candidate's, else the Change's). */
    user: login.optional(),
  })
  .refine((e) => e.body !== undefined || e.title !== undefined, {
    message: 'an edit has a `body`, a `title`, or both',
  });
/** Extension: a person links the issue to the pull request in its Development sidebar (no webhook). */
const LinkEvent = z.strictObject({ on: prNumber, issue: prNumber, user: login });
/** Extension: the PR's author (an agent that is done) requests reviews (`pull_request.review_requested`). */
const RequestReviewEvent = z.strictObject({ on: prNumber, user: login, reviewers: z.array(login).min(1) });
/** Extension: a maintainer approves the GitHub Actions runs that wait on the PR's head (`awaitsApproval` checks). */
const ApproveWorkflowsEvent = z.strictObject({ on: prNumber, user: login });
const CloseEvent = z.strictObject({ on: prNumber, user: login });
/** Extension: `user` adds (or removes) label `name` on the Change or a candidate. */
const LabelEvent = z.strictObject({ on: prNumber, name: z.string().min(1), user: login });

/** Extension: a person changes the PR's base branch (GitHub sends `edited` with `changes.base`). */
const RetargetEvent = z.strictObject({ on: prNumber, base: z.string().min(1), user: login.optional() });
/**
 * Extension: GitHub turns the candidate's auto-merge off by itself, with its `reason` (sender `user`,
 * default the candidate's author); or a person with write access turns it off (`user`, no `reason`).
 */
const AutoMergeOffEvent = z.strictObject({ on: prNumber, reason: z.string().optional(), user: login.optional() });
/**
 * Extension: the candidate leaves the merge queue: GitHub removes it (`reason`, e.g. the merge group's
 * checks failed; sender `user`, default the candidate's author), or a person removes it (reason `MANUAL`).
 */
const DequeueEvent = z.strictObject({ on: prNumber, reason: z.string().min(1), user: login.optional() });
/** Extension: a person reopens a closed PR. */
const ReopenEvent = z.strictObject({ on: prNumber, user: login });
/** Extension: a person marks the PR ready for review, or converts it to a draft (default user: its author). */
const DraftEvent = z.strictObject({ on: prNumber, user: login.optional() });
/** Extension: a person closes the Change (as not planned). */
const CloseChangeEvent = z.strictObject({ user: login });
/** Extension: a person locks the Change's conversation (default user: the Change's author). */
const LockChangeEvent = z.union([z.literal(true), z.strictObject({ user: login.optional() })]);

export const EventKinds = [
  'comment',
  'review',
  'push',
  'click',
  'edit',
  'close',
  'label',
  'unlabel',
  'retarget',
  'reopen',
  'ready',
  'draft',
  'closeChange',
  'lockChange',
  'link',
  'requestReview',
  'approveWorkflows',
  'rerun',
  'autoMergeOff',
  'dequeue',
] as const;
export type EventKind = (typeof EventKinds)[number];

export const EventSpec = z
  .strictObject({
    at: seconds,
    comment: CommentEvent.optional(),
    review: ReviewEvent.optional(),
    push: PushEvent.optional(),
    click: ClickEvent.optional(),
    edit: EditEvent.optional(),
    close: CloseEvent.optional(),
    label: LabelEvent.optional(),
    unlabel: LabelEvent.optional(),
    retarget: RetargetEvent.optional(),
    reopen: ReopenEvent.optional(),
    ready: DraftEvent.optional(),
    draft: DraftEvent.optional(),
    closeChange: CloseChangeEvent.optional(),
    lockChange: LockChangeEvent.optional(),
    link: LinkEvent.optional(),
    requestReview: RequestReviewEvent.optional(),
    approveWorkflows: ApproveWorkflowsEvent.optional(),
    rerun: RerunEvent.optional(),
    autoMergeOff: AutoMergeOffEvent.optional(),
    dequeue: DequeueEvent.optional(),
  })
  .superRefine((e, ctx) => {
    const present = EventKinds.filter((k) => e[k] !== undefined);
    if (present.length !== 1)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `an event has exactly one of ${EventKinds.join(', ')} (found ${present.length ? present.join(', ') : 'none'})`,
      });
  });

export const GitHubFault = z.strictObject({
  route: z
    .string()
    .regex(
      /^(GET|POST|PUT|PATCH|DELETE) \//,
      'like "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge" or "POST /graphql <operation>"',
    ),
  /** Extension: only requests to this path (one repository's or one pull request's), not every path of `route`. */
  path: z
    .string()
    .regex(/^\/\S*$/, 'a request path like "/repos/acme/ui/pulls/9/merge"')
    .optional(),
  status: z.number().int().min(100).max(599),
  times: z.number().int().positive().default(1),
  when: z.enum(['before', 'after']).default('before'),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.unknown().optional(),
});

export const ModelFault = z.strictObject({
  tier: z.enum(['small', 'large']).optional(),
  kind: z.enum(['acceptance', 'judge']).optional(),
  status: z.number().int().min(100).max(599).optional(),
  stop_reason: z.enum(['max_tokens', 'refusal', 'tool_use', 'pause_turn']).optional(),
  text: z.string().optional(),
  delayMs: z.number().int().nonnegative().optional(),
  times: z.number().int().positive().optional(),
});

export const RestartFault = z.union(
  [
    z.strictObject({
      after: z.string().regex(/^(POST|PUT|PATCH|DELETE) \//, 'like "PATCH /repos/{owner}/{repo}/pulls/{pull_number}"'),
      nth: z.number().int().positive().default(1),
    }),
    z.strictObject({ at: seconds }),
  ],
  { error: 'either { after: "<METHOD> <route>", nth: <n> } or { at: <seconds> }' },
);

export const DeliveryFaultSpec = z.strictObject({
  event: z.string().min(1),
  action: z.string().min(1).optional(),
  on: z.number().int().positive().optional(),
  nth: z.number().int().positive().default(1),
  status: z.number().int().min(400).max(599).default(502),
});

export const Faults = z.strictObject({
  redeliver: z
    .union(
      [
        z.boolean(),
        z.strictObject({ copies: z.number().int().min(1).max(10).default(2), seed: z.number().int().default(1) }),
      ],
      { error: 'true (2 copies) or { copies: <n>, seed: <n> }' },
    )
    .optional(),
  /**
   * Extension: webhooks are delivered out of order. The webhooks GitHub sends are cut into
   * consecutive windows of `window`; each window is delivered in an order shuffled by a PRNG
   * seeded with `seed`, once it is full or at the end of its time step (never across steps).
   */
  reorder: z
    .strictObject({
      seed: z.number().int().default(1),
      window: z.number().int().min(2).max(100).default(4),
    })
    .optional(),
  github: z.array(GitHubFault).default([]),
  model: z.array(ModelFault).default([]),
  restart: z.array(RestartFault).default([]),
  /** Extension: webhooks whose first attempt fails before reaching the app (GitHub records the failure). */
  deliveries: z.array(DeliveryFaultSpec).default([]),
});

/**
 * Extension: a further repository of the installation (a composite candidate's member opens there):
 * its base tree, its `.github/arbiter.yml`, its branch rules, its people and its merge settings.
 */
export const RepoSpec = z.strictObject({
  repo: repoName,
  defaultBranch: z.string().min(1).default('main'),
  files: fileTree.default({}),
  config: z.string().optional(),
  branch: BranchRules.optional(),
  allowAutoMerge: z.boolean().default(false),
  mergeMethods: z
    .array(z.enum(['merge', 'squash', 'rebase']))
    .min(1)
    .default(['merge', 'squash', 'rebase']),
  /** Permissions in this repository (logins not listed have read, as in the scenario's repository). */
  users: z.record(login, UserSpec).default({}),
});

const ChangeSpec = z.strictObject({
  number: prNumber,
  title: z.string().min(1),
  body: z.string(),
  /** Extension: who opens the Change (default "requester", who has write access unless users says otherwise). */
  author: login.default('requester'),
});

export const ScenarioFile = z
  .strictObject({
    /** Extension: a one-line description shown at the top of the transcript. */
    name: z.string().optional(),
    repo: repoName,
    /** Extension: further repositories of the installation, for candidates with `repo` (composite candidates). */
    repos: z.array(RepoSpec).default([]),
    /** Extension: the default branch (default main). */
    defaultBranch: z.string().min(1).default('main'),
    files: fileTree.default({}),
    config: z.string().optional(),
    branch: BranchRules.optional(),
    /** Extension: the repository's "Allow auto-merge" setting (default false, as on GitHub). */
    allowAutoMerge: z.boolean().default(false),
    /** Extension: the merge methods the repository allows (default all three, as on GitHub). */
    mergeMethods: z
      .array(z.enum(['merge', 'squash', 'rebase']))
      .min(1)
      .default(['merge', 'squash', 'rebase']),
    users: z.record(login, UserSpec).default({}),
    change: ChangeSpec,
    /** Extension: more Changes, opened at time 0 after `change`; a candidate links to one with `body: "Candidate-for: #N"`. */
    changes: z.array(ChangeSpec).default([]),
    /** Extension: run with the dashboard issue (config `dashboard`). Default false, so a scenario's writes stay what they were. */
    dashboard: z.boolean().default(false),
    candidates: z.array(CandidateSpec).default([]),
    /** Extension: scripted agents that answer portfolio dispatches (`/arbiter explore`). */
    agents: z.array(AgentSpec).default([]),
    judge: JudgeScript.optional(),
    /** Extension: the combined candidate's scripted checks and answers (section 6, "Combined candidate"). */
    combined: CombinedSpec.optional(),
    events: z.array(EventSpec).default([]),
    faults: Faults.prefault({}),
    /** Extension: after the script, advance the virtual clock to this time (seconds) and run until quiet. */
    until: seconds.optional(),
  })
  .superRefine((s, ctx) => {
    const numbers = new Set<number>();
    const changes = new Set([s.change.number]);
    s.changes.forEach((c, i) => {
      if (changes.has(c.number))
        ctx.addIssue({ code: 'custom', path: ['changes', i, 'number'], message: `#${c.number} is already used` });
      changes.add(c.number);
    });
    s.candidates.forEach((c, i) => {
      if (changes.has(c.number) || numbers.has(c.number))
        ctx.addIssue({ code: 'custom', path: ['candidates', i, 'number'], message: `#${c.number} is already used` });
      numbers.add(c.number);
      if (c.baseAt > c.openAt)
        ctx.addIssue({ code: 'custom', path: ['candidates', i, 'baseAt'], message: 'must not be later than openAt' });
      c.checks.forEach((k, j) => {
        if (k.at !== undefined && k.at < c.openAt)
          ctx.addIssue({
            code: 'custom',
            path: ['candidates', i, 'checks', j, 'at'],
            message: `before the candidate opens (openAt ${c.openAt})`,
          });
        if (k.startAt !== undefined && k.startAt < c.openAt)
          ctx.addIssue({
            code: 'custom',
            path: ['candidates', i, 'checks', j, 'startAt'],
            message: `before the candidate opens (openAt ${c.openAt})`,
          });
      });
    });
    const known = new Map([[s.repo.toLowerCase(), s.defaultBranch]]);
    s.repos.forEach((r, i) => {
      if (known.has(r.repo.toLowerCase()))
        ctx.addIssue({ code: 'custom', path: ['repos', i, 'repo'], message: `${r.repo} is already a repository here` });
      known.set(r.repo.toLowerCase(), r.defaultBranch);
    });
    const branches = new Set<string>();
    s.candidates.forEach((c, i) => {
      const repo = (c.repo ?? s.repo).toLowerCase();
      const defaultBranch = known.get(repo);
      if (defaultBranch === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['candidates', i, 'repo'],
          message: `${c.repo} is neither the scenario's repo nor one of repos`,
        });
        return;
      }
      const bases = baseBranches(s, c.repo ?? s.repo);
      if (branches.has(`${repo}:${c.branch}`) || c.branch === defaultBranch || bases.includes(c.branch))
        ctx.addIssue({
          code: 'custom',
          path: ['candidates', i, 'branch'],
          message: `branch ${c.branch} is already used`,
        });
      branches.add(`${repo}:${c.branch}`);
    });
    const openAt = new Map<number, number>();
    for (const c of s.candidates) if (!openAt.has(c.number)) openAt.set(c.number, c.openAt);
    s.events.forEach((e, i) => {
      const onChange = (e.label ?? e.unlabel)?.on === s.change.number;
      const prTarget =
        e.review ??
        e.push ??
        e.click ??
        e.rerun ??
        e.close ??
        e.retarget ??
        e.reopen ??
        e.ready ??
        e.draft ??
        (onChange ? undefined : (e.label ?? e.unlabel));
      const kind = EventKinds.find((k) => e[k] !== undefined) ?? 'comment';
      if (prTarget) {
        const opens = openAt.get(prTarget.on);
        if (opens === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['events', i, kind, 'on'],
            message: `#${prTarget.on} is not a candidate`,
          });
        else if (e.at < opens)
          ctx.addIssue({
            code: 'custom',
            path: ['events', i, 'at'],
            message: `#${prTarget.on} opens only at ${opens}`,
          });
      }
      const combined = s.combined?.number;
      if (e.comment && !changes.has(e.comment.on) && !openAt.has(e.comment.on) && e.comment.on !== combined)
        ctx.addIssue({
          code: 'custom',
          path: ['events', i, 'comment', 'on'],
          message: `#${e.comment.on} is neither the Change nor a candidate`,
        });
      if (e.edit && e.edit.issue !== s.change.number && !openAt.has(e.edit.issue))
        ctx.addIssue({
          code: 'custom',
          path: ['events', i, 'edit', 'issue'],
          message: `#${e.edit.issue} is neither the Change nor a candidate`,
        });
      e.push?.checks.forEach((k, j) => {
        if (k.at !== undefined && k.at < e.at)
          ctx.addIssue({
            code: 'custom',
            path: ['events', i, 'push', 'checks', j, 'at'],
            message: `before the push (at ${e.at})`,
          });
        if (k.startAt !== undefined && k.startAt < e.at)
          ctx.addIssue({
            code: 'custom',
            path: ['events', i, 'push', 'checks', j, 'startAt'],
            message: `before the push (at ${e.at})`,
          });
      });
    });
  })
  .superRefine((s, ctx) => {
    // Agents' PRs and branches share the namespace of the Change and the candidates.
    const numbers = new Set([s.change.number, ...s.changes.map((c) => c.number), ...s.candidates.map((c) => c.number)]);
    const branches = new Set([s.defaultBranch, ...s.candidates.map((c) => c.branch)]);
    const approaches = new Set<string>();
    s.agents.forEach((a, i) => {
      if (numbers.has(a.number))
        ctx.addIssue({ code: 'custom', path: ['agents', i, 'number'], message: `#${a.number} is already used` });
      if (branches.has(a.branch))
        ctx.addIssue({ code: 'custom', path: ['agents', i, 'branch'], message: `branch ${a.branch} is already used` });
      if (approaches.has(a.approach))
        ctx.addIssue({
          code: 'custom',
          path: ['agents', i, 'approach'],
          message: 'another agent answers this approach',
        });
      numbers.add(a.number);
      branches.add(a.branch);
      approaches.add(a.approach);
    });
  });

export type ScenarioFileInput = z.input<typeof ScenarioFile>;

/**
 * Base branches besides the default one that a scenario names in one repository (default: the
 * scenario's own): candidates' `base`, retargets (of the scenario's repository), branch rules.
 */
export function baseBranches(
  s: {
    repo: string;
    defaultBranch: string;
    candidates: { base?: string; repo?: string | undefined; number: number }[];
    events: { retarget?: { on: number; base: string } }[];
    branch?: { branches?: Record<string, unknown> };
    repos?: { repo: string; defaultBranch: string; branch?: { branches?: Record<string, unknown> } }[];
  },
  repo: string = s.repo,
): string[] {
  const here = (name: string | undefined) => (name ?? s.repo).toLowerCase() === repo.toLowerCase();
  const other = (s.repos ?? []).find((r) => r.repo.toLowerCase() === repo.toLowerCase());
  const defaultBranch = other?.defaultBranch ?? s.defaultBranch;
  const inRepo = new Set(s.candidates.filter((c) => here(c.repo)).map((c) => c.number));
  const names = [
    ...s.candidates.filter((c) => here(c.repo)).map((c) => c.base),
    ...s.events.filter((e) => e.retarget !== undefined && inRepo.has(e.retarget.on)).map((e) => e.retarget?.base),
    ...Object.keys((other ? other.branch : s.branch)?.branches ?? {}),
  ];
  return [...new Set(names.filter((n): n is string => n !== undefined && n !== defaultBranch))].sort();
}
export type ScenarioFileParsed = z.output<typeof ScenarioFile>;
export type CheckSpec = z.output<typeof CheckSpec>;
export type CandidateModelScript = z.output<typeof CandidateModelScript>;
export type AgentSpec = z.output<typeof AgentSpec>;

export interface User {
  permission: z.infer<typeof Permission>;
  bot: boolean;
}
export interface Candidate extends Omit<z.output<typeof CandidateSpec>, 'body' | 'title'> {
  body: string;
  title: string;
}
/** A further repository with every default filled in. */
export interface RepoScenario extends Omit<z.output<typeof RepoSpec>, 'users'> {
  users: Record<string, User>;
}
/** A scenario with every default filled in: what the runner executes. */
export interface Scenario extends Omit<ScenarioFileParsed, 'users' | 'candidates' | 'faults' | 'repos'> {
  users: Record<string, User>;
  repos: RepoScenario[];
  candidates: Candidate[];
  faults: Omit<ScenarioFileParsed['faults'], 'redeliver'> & { redeliver: { copies: number; seed: number } | null };
}

export type ScenarioResult = { ok: true; scenario: Scenario } | { ok: false; errors: string[] };

/** `path: message` lines for zod issues, e.g. `candidates.0.checks.1.at: required (or never: true)`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`);
}

function normaliseRedeliver(r: ScenarioFileParsed['faults']['redeliver']): Scenario['faults']['redeliver'] {
  if (r === undefined || r === false) return null;
  if (r === true) return { copies: 2, seed: 1 };
  return r;
}

/** Validates a parsed YAML/JSON document and fills every default. */
export function parseScenario(doc: unknown): ScenarioResult {
  const parsed = ScenarioFile.safeParse(doc);
  if (!parsed.success) return { ok: false, errors: formatIssues(parsed.error.issues) };
  const s = parsed.data;
  const usersOf = (specs: typeof s.users): Record<string, User> =>
    Object.fromEntries(
      Object.entries(specs).map(([name, u]) => [name, typeof u === 'string' ? { permission: u, bot: false } : u]),
    );
  const users = usersOf(s.users);
  const repos = s.repos.map((r) => ({ ...r, users: usersOf(r.users) }));
  const candidates: Candidate[] = s.candidates.map((c) => ({
    ...c,
    body:
      c.body ??
      (c.repo === undefined || c.repo.toLowerCase() === s.repo.toLowerCase()
        ? `Candidate-for: #${s.change.number}`
        : `Candidate-for: ${s.repo}#${s.change.number}`),
    title: c.title ?? `Candidate ${c.branch}`,
  }));
  return {
    ok: true,
    scenario: {
      ...s,
      users,
      repos,
      candidates,
      faults: { ...s.faults, redeliver: normaliseRedeliver(s.faults.redeliver) },
    },
  };
}

/** The JSON Schema of the written scenario file (what docs/scenarios.md embeds). */
export function scenarioJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ScenarioFile, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
}

/** The repository a scenario's PR (or the Change, or a number it does not know) lives in. */
export function repoOf(
  s: { repo: string; candidates: { number: number; repo?: string | undefined }[] },
  n: number,
): string {
  return s.candidates.find((c) => c.number === n)?.repo ?? s.repo;
}
