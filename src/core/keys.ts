// Every namespace of the keys Arbiter stores in `applied_actions` and of the run tokens it keeps
// there, in one place (issue 12 item 6). A running deployment matches its stored rows and in-flight
// jobs by these exact strings: a builder's output must never change (test/core/keys.test.ts pins
// them), and no file outside this one spells a namespace (test/architecture/keys.test.ts).
// `repo` is always `owner/name`.

/** The namespaces: the prefix, what the key guards, and who writes it. */
export const KEY_NAMESPACES = {
  /** A run's claim of any key (holds its token); a plan's `claim` action, and the executor's own (workflows/execute-records.ts). */
  claim: 'claim:',
  /** The claim of one plan action's key, so one run applies it; workflows/execute.ts. */
  action: 'action:',
  /** A round whose plan was applied to the end; workflows/select.ts and portfolio-wide.ts, read by the round store. */
  roundDone: 'round-done:',
  /** The Change's one repair (and the comment marker of its request); execute.ts, select.ts, core/plan. */
  repair: 'repair:',
  /** A repair past its timeout already handled; workflows/sweep.ts. */
  repairExpired: 'repair-expired:',
  /** The rejection that triggered a repair (PR and head); workflows/repair-trigger.ts. */
  repairByRejection: 'repair-by-rejection:',
  /** Who adopted an issue as a Change; workflows/trust.ts. */
  trustAdopted: 'trust:adopted:',
  /** Who admitted a pull request (and, with `@head>change`, which head); workflows/trust.ts. */
  trustAdmitted: 'trust:admitted:',
  /** Who added the selection label to a pull request; workflows/trust.ts. */
  trustSelectionLabel: 'trust:selection-label:',
  /** The Change a maintainer linked a pull request to (`/arbiter link #N`), and by whom; workflows/link.ts. */
  trustLinked: 'trust:linked:',
  /** The verdict on a head's `.github/arbiter.yml` (an error once reported); workflows/trust.ts. */
  headConfig: 'head-config:',
  /** The repository's dashboard issue number, and the token of a dashboard job's run; dashboard.ts, dashboard-job.ts. */
  dashboard: 'dashboard:',
  /** The per-minute claim that spaces dashboard runs out (pruned after an hour); workflows/dashboard.ts. */
  dashboardRun: 'dashboard-run:',
  /** The one run that may open the dashboard issue in a ten-minute window; workflows/dashboard.ts. */
  dashboardOpen: 'dashboard-open:',
  /** The token of a sweep's run; workflows/sweep.ts and portfolio-sweep.ts. */
  sweep: 'sweep:',
  /** The token of the run that processes a webhook delivery; handlers via workflows/context.ts. */
  delivery: 'delivery:',
  /** The gate's in-progress check already shown for a head; workflows/verify.ts. */
  gateInProgress: 'gate-in-progress:',
  /** The one run that judges acceptance for a head and criteria; workflows/verify.ts. */
  acceptance: 'acceptance:',
  /** The record of a combined candidate built for a Change (and its comment marker); workflows/combine.ts, core/combine.ts. */
  combined: 'combined:',
  /** The id of the check run Arbiter wrote for a head and name; workflows/execute-checks.ts. */
  checkId: 'check-id:',
  /** A check run's content written once, so a decision's write is never repeated; workflows/execute-checks.ts. */
  checkContent: 'check-content:',
  /** What a head's check of a name shows: the content last written and that write's mark (replaced); workflows/execute-checks.ts. */
  checkShown: 'check-shown:',
  /** The one run that writes a content over the check's shown mark; workflows/execute-checks.ts. */
  checkNext: 'check-next:',
  /** The one run that creates a check run for a head and name; workflows/execute-checks.ts. */
  checkCreate: 'check-create:',
  /** A check run planned on its own (a waiting list, a gate in progress), by its content; core/actions.ts `checkAction`. */
  checkWrite: 'check-write:',
  /** One more try of a merge GitHub refused; workflows/execute.ts. */
  mergeRetry: 'merge-retry:',
  /** A branch's protection rules read in a time window; workflows/branch-rules.ts. */
  branchRules: 'branch-rules:',
  /** A promoted head re-verified once; workflows/promote.ts. */
  reverify: 'reverify:',
  /** How often the sweep failed to resume a round its claimant left (its retry budget); workflows/sweep.ts. */
  resumeFailed: 'resume-failed:',
  /** A winner's head Arbiter brought up to date once (update-branch), by PR and head; workflows/promote.ts, select.ts. */
  branchUpdated: 'branch-updated:',
  /**
   * The auto-merge Arbiter enabled on a group's winner (PR, head, round): a mark that says "withdraw
   * it when the winner loses its place", taken when it is disabled; workflows/promote.ts, auto-merge-off.ts.
   */
  autoMergeOn: 'auto-merge-on:',
  /**
   * The head a check event asks Arbiter to look at again, stored with the delivery (not an
   * applied action): of pending deliveries on one head only the last reads GitHub; handlers/checks.ts.
   */
  checkSubject: 'check-events:',
  /** A group whose siblings' waiting lists are behind (one settled and only its own was rewritten); select.ts, sweep.ts. */
  waitingStale: 'waiting-stale:',
  /** The sweep's take of a group's waiting-stale mark (and its mark set again), by its time; pruned after an hour; sweep.ts. */
  waitingTaken: 'waiting-taken:',
  /** A composing candidate's head that held its round for `selection.siblingTimeout`, handed to its round once; sweep.ts. */
  composeTimeout: 'compose-timeout:',
  /** A head's kept check events taken by the sweep to verify its candidates at last, by the sweep's time; core/plan/sweep.ts. */
  keptTaken: 'kept-taken:',
  /** A run's keeping (or taking) of the check events on a head no candidate has recorded yet, by its time (pruned after a day); handlers/checks.ts. */
  keptCheck: 'kept-check:',
  /** A view of a round (its comparison, gate comments, notes) re-rendered for one state it reached; core/plan/views.ts. */
  view: 'view:',
  /** A composite candidate (a set of PRs in several repositories): its record, and its plans' actions; workflows/candidate-set.ts, core/plan/candidate-set.ts. */
  candidateSet: 'candidate-set:',
  /** A linked pull request that is not a candidate of its Change (who opened it, why), for the comparison; workflows/not-compared.ts. */
  notCompared: 'not-compared:',
} as const;

const N = KEY_NAMESPACES;

/** A run's claim of `key`. */
export const claimKey = (key: string): string => `${N.claim}${key}`;
/** The claim of the plan action keyed `actionKey`. */
export const actionKey = (actionKey: string): string => `${N.action}${actionKey}`;
/** Round `roundId` (the row id) done. */
export const roundDoneKey = (roundId: number): string => `${N.roundDone}${roundId}`;
/** The Change's one repair. */
export const repairKey = (repo: string, change: number): string => `${N.repair}${repo}#${change}`;
/** The comment marker of a repair request on `issue` (shares the `repair:` namespace). */
export const repairMarker = (issue: number): string => `${N.repair}${issue}`;
/** The repair asked at `at` for `change`, expired and handled. */
export const repairExpiredKey = (repo: string, change: number, at: string): string =>
  `${N.repairExpired}${repo}#${change}@${at}`;
export const repairByRejectionKey = (repo: string, change: number): string => `${N.repairByRejection}${repo}#${change}`;
export const trustAdoptedKey = (repo: string, issue: number): string => `${N.trustAdopted}${repo}#${issue}`;
export const trustAdmittedKey = (repo: string, pr: number): string => `${N.trustAdmitted}${repo}#${pr}`;
/** The admission of one head of `pr` for `change` (null: no Change). */
export const trustAdmittedHeadKey = (repo: string, pr: number, headSha: string, change: number | null): string =>
  `${trustAdmittedKey(repo, pr)}@${headSha}>${change ?? 'none'}`;
export const trustSelectionLabelKey = (repo: string, pr: number): string => `${N.trustSelectionLabel}${repo}#${pr}`;
export const trustLinkedKey = (repo: string, pr: number): string => `${N.trustLinked}${repo}#${pr}`;
export const headConfigKey = (repo: string, headSha: string): string => `${N.headConfig}${repo}@${headSha}`;
/** The key of one act a step plans on a fact of the ledger (`<fact>/event/<digest>/<at>`: an event it logs). */
export const factActKey = (fact: string, ...path: Part[]): string => [fact, ...path].join('/');
export const dashboardIssueKey = (repo: string): string => `${N.dashboard}${repo}`;
/** The token of a dashboard job's run. */
export const dashboardJobToken = (jobId: string): string => `${N.dashboard}${jobId}`;
export const dashboardRunKey = (repo: string, minute: number): string => `${N.dashboardRun}${repo}@${minute}`;
export const dashboardOpenKey = (repo: string, window: number): string => `${N.dashboardOpen}${repo}@${window}`;
/** The dashboard issue opened by the one opener of `window` (the `dashboard-open:` claim's holder). */
export const dashboardOpenedKey = (repo: string, window: number): string => `${dashboardOpenKey(repo, window)}/open`;
/** The dashboard's body `digest` written by the one run of `minute` (pruned with the minute's claim). */
export const dashboardEditKey = (repo: string, minute: number, digest: string): string =>
  `${dashboardRunKey(repo, minute)}/edit/${digest}`;
/** The token of the sweep that started at `at`. */
export const sweepToken = (at: string): string => `${N.sweep}${at}`;
/** The token of a sweep's resumption of one round. */
export const sweepRoundToken = (repo: string, change: number, base: string, round: number): string =>
  `${N.sweep}${repo}#${change}@${base}/r${round}`;
/** The one sweep sent for the end of a rate limit's wait (`dueAt`, ISO): its queue job's key. */
export const sweepAfterLimitKey = (dueAt: string): string => `${N.sweep}after-limit/${dueAt}`;
export const isSweepToken = (token: string): boolean => token.startsWith(N.sweep);
export const deliveryToken = (id: string): string => `${N.delivery}${id}`;
/** The delivery id a token names, or null for a token of another kind. */
export const deliveryOfToken = (token: string): string | null =>
  token.startsWith(N.delivery) && token.length > N.delivery.length ? token.slice(N.delivery.length) : null;
export const gateInProgressKey = (repo: string, pr: number, headSha: string): string =>
  `${N.gateInProgress}${repo}#${pr}@${headSha}`;
/** The one judgement of acceptance for a head and criteria hash (`recheck`: a person's recheck id). */
export const acceptanceKey = (repo: string, pr: number, headSha: string, criteria: string, recheck?: string): string =>
  `${N.acceptance}${repo}#${pr}@${headSha}/${criteria}${recheck ? `/recheck:${recheck}` : ''}`;
export const combinedRecordKey = (repo: string, change: number): string => `${N.combined}${repo}#${change}`;
/** The comment marker of a combined candidate's note on `change` (shares the `combined:` namespace). */
export const combinedMarker = (change: number): string => `${N.combined}${change}`;
/** A Change's combine: its build's outcome is recorded under it, and its steps and receipts extend it; core/combine.ts. */
export const combineKey = (repo: string, change: number): string => `${repo}#${change}/combine`;
/** GitHub's answer to one step of a Change's combine build (`branch`, `merge/<pr>`, `pull`, `delete`); core/plan/combine-build.ts. */
export const combineStepKey = (repo: string, change: number, step: string): string =>
  `${combineKey(repo, change)}/step/${step}`;
export const checkIdKey = (repo: string, headSha: string, name: string): string =>
  `${N.checkId}${repo}:${headSha}:${name}`;
export const checkContentKey = (repo: string, headSha: string, name: string, hash: string): string =>
  `${N.checkContent}${repo}:${headSha}:${name}:${hash}`;
export const checkShownKey = (repo: string, headSha: string, name: string): string =>
  `${N.checkShown}${repo}:${headSha}:${name}`;
/** Writing content `hash` over the write marked `after` (or `first` on a check never written). */
export const checkNextKey = (repo: string, headSha: string, name: string, after: string, hash: string): string =>
  `${N.checkNext}${repo}:${headSha}:${name}:${after}>${hash}`;
export const checkCreateKey = (repo: string, headSha: string, name: string): string =>
  `${N.checkCreate}${repo}:${headSha}:${name}`;
/** The re-run action of a portfolio's request for another reading (the request itself is keyed `requestKey`). */
export const rerunActionKey = (requestKey: string): string => `${requestKey}/run`;
/**
 * A check run's write as a plan action, named by its content. The executor skips it by what the
 * check shows when it runs, not by this key: content that changed and changed back is written again.
 */
export const checkWriteKey = (repo: string, headSha: string, name: string, digest: string): string =>
  `${N.checkWrite}${repo}:${headSha}:${name}:${digest}`;
/** Whether a plan action's key is a `checkWriteKey`. */
export const isCheckWriteKey = (key: string): boolean => key.startsWith(N.checkWrite);
/** Try `n` (from 1) of the merge action keyed `actionKey`. */
export const mergeRetryKey = (actionKey: string, n: number): string => `${N.mergeRetry}${actionKey}:${n}`;
export const branchRulesKey = (repo: string, branch: string, window: number): string =>
  `${N.branchRules}${repo}:${branch}:${window}`;
export const resumeFailedKey = (roundId: number, attempt: number): string => `${N.resumeFailed}${roundId}:${attempt}`;
/**
 * Arbiter brought `pr`'s branch up to date from head `sha` (the update's merge commit has `sha` as its
 * first parent): a later head of the same PR, pushed by its agent, may be updated once again.
 */
export const branchUpdatedKey = (repo: string, pr: number, sha: string): string =>
  `${N.branchUpdated}${repo}#${pr}@${sha}`;
/** The auto-merge Arbiter enabled in a group (one at a time: its winner's). */
export const autoMergeOnKey = (repo: string, change: number, base: string): string =>
  `${N.autoMergeOn}${repo}#${change}@${base}`;
/** A run's (at `at`) marking of the auto-merge the action keyed `enabledBy` enabled: each run marks it again. */
export const autoMergeMarkKey = (enabledBy: string, at: string, token: string): string =>
  `${enabledBy}/mark/${at}/${token}`;
/**
 * The stem of the keys of what Arbiter does once after GitHub turned off its auto-merge on `pr` at head
 * `sha` (turned back on, merged directly): a second turning off of the same head goes to a person.
 */
export const autoMergeAgainKey = (repo: string, change: number, base: string, pr: number, sha: string): string =>
  changeActionKey(repo, change, base, 'auto-merge-again', `${pr}@${sha}`);
/** The stem of the keys of what follows GitHub taking `pr` out of the merge queue at head `sha`. */
export const dequeuedKey = (repo: string, change: number, base: string, pr: number, sha: string): string =>
  changeActionKey(repo, change, base, 'dequeued', `${pr}@${sha}`);
export const reverifyKey = (repo: string, pr: number, sha: string): string => `${N.reverify}${repo}#${pr}@${sha}`;
/** The subject of a check event on head `headSha` (deliveries with one subject are interchangeable). */
export const checkSubjectKey = (repo: string, headSha: string): string => `${N.checkSubject}${repo}@${headSha}`;
/** The mark of a group whose siblings' waiting lists the next sweep brings up to date. */
export const waitingStaleKey = (repo: string, change: number, base: string): string =>
  `${N.waitingStale}${repo}#${change}@${base}`;
/** The sweep's take (`what`: take, or again when its selection failed) of a group's waiting-stale mark at `at`. */
export const waitingTakenKey = (repo: string, change: number, base: string, at: string, what: string): string =>
  `${N.waitingTaken}${repo}#${change}@${base}/${at}/${what}`;
/** A composing head (a work-in-progress title) whose hold on the round ran out: its group's selection ran once for it. */
export const composeTimeoutKey = (repo: string, pr: number, headSha: string): string =>
  `${N.composeTimeout}${repo}#${pr}@${headSha}`;
/** The sweep's take of a head's kept check events at `at` (a head kept again later is taken again). */
export const keptTakenKey = (repo: string, headSha: string, at: string): string =>
  `${N.keptTaken}${repo}@${headSha}/${at}`;
/**
 * The re-render of one view (`what`: comparison, gate/PR, winner…) of a round for the state it
 * reached (`state`: merged@SHA, cancelled, repair-timeout): one write per state, none on a repeat.
 */
export const viewKey = (
  repo: string,
  change: number,
  base: string,
  round: number,
  state: string,
  what: string,
): string => `${N.view}${repo}#${change}@${base}/r${round}/${state}/${what}`;
/** The record of set `name` of the Change `repo#change` (members, parts, standing). */
export const candidateSetKey = (repo: string, change: number, name: string): string =>
  `${N.candidateSet}${repo}#${change}/${name}`;
/** One action of a set's plan (`what` names it: a member's check for a head and state, the record). */
export const candidateSetActionKey = (repo: string, change: number, name: string, what: string): string =>
  `${candidateSetKey(repo, change, name)}>${what}`;
/** The prefix of every set record of the Change `repo#change` (and of its sets' action keys, which hold a `>`). */
export const candidateSetsOfChangePrefix = (repo: string, change: number): string => candidateSetKey(repo, change, '');
/** The prefix of every set record of every Change (and of the sets' head and action keys). */
export const candidateSetsPrefix = (): string => N.candidateSet;
/** A set's hold on its Change's round that ran out (`since`: when the hold began), handed to the round once by the sweep. */
export const candidateSetHoldTimeoutKey = (repo: string, change: number, name: string, since: string): string =>
  candidateSetActionKey(repo, change, name, `hold-timeout@${since}`);
/** The record of a linked pull request `pr` that is not a candidate of the Change `repo#change`. */
export const notComparedKey = (repo: string, change: number, pr: number): string =>
  `${N.notCompared}${repo}#${change}/${pr}`;
/** The prefix of every such record of the Change `repo#change`. */
export const notComparedPrefix = (repo: string, change: number): string => `${N.notCompared}${repo}#${change}/`;
/** Arbiter's merge of set member `repo#pr` at its verified head `sha` (its answer is recorded under it). */
export const candidateSetMergeKey = (
  changeRepo: string,
  change: number,
  name: string,
  repo: string,
  pr: number,
  sha: string,
): string => candidateSetActionKey(changeRepo, change, name, `merge/${repo}#${pr}@${sha}`);
/**
 * The one judgement of a set's acceptance for its members' heads (`heads`: setHeadsKey) and the
 * Change's criteria (`criteria`: their hash), claimed by the run that calls the model.
 */
export const candidateSetAcceptanceKey = (
  repo: string,
  change: number,
  name: string,
  heads: string,
  criteria: string,
): string => candidateSetActionKey(repo, change, name, `acceptance/${criteria}@${heads}`);
/** The mark that the set's fate is decided (it ships, or it lost): its members' own events plan it no more. */
export const candidateSetDecidedKey = (repo: string, change: number, name: string): string =>
  candidateSetActionKey(repo, change, name, 'decided');
/** The decision of a Change whose only candidates are sets (the first recorded stands). */
export const candidateSetsDecisionKey = (repo: string, change: number): string =>
  `${candidateSetsOfChangePrefix(repo, change)}>decision`;
/** Which set a member's head belongs to (`repo` is the member's repository), so a check on it re-plans the set. */
export const candidateSetHeadKey = (repo: string, headSha: string): string => `${N.candidateSet}${repo}@${headSha}`;

// The shapes every plan's action keys and comment markers share. Each builds exactly the string the
// hand-written template it replaced built (test/core/keys.test.ts pins them).
type Part = string | number;

/** A Change's id, `owner/repo#n`: the stem of every action key of its plans, and its name in memory. */
export const changeId = (repo: string, change: number): string => `${repo}#${change}`;
/** A group's id, `owner/repo#n@base`: a Change's candidates on one base branch. */
export const groupId = (repo: string, change: number, base: string): string => `${changeId(repo, change)}@${base}`;
/**
 * One act of round `round` of a group (`owner/repo#n@base/r2/<what>`): its claim, its release, its
 * decision and the event of it, the Change's one repair claimed in it.
 */
export const roundActKey = (repo: string, change: number, base: string, round: number, what: string): string =>
  `${groupId(repo, change, base)}/r${round}/${what}`;
/** The key of one action of a plan on a Change: its id, then the path that names the action (`late/12@abc/close`). */
export const changeActionKey = (repo: string, change: number, ...path: Part[]): string =>
  [changeId(repo, change), ...path].join('/');
/** Names one take of model calls from a Change's budget on `day` (`owner/repo#12/model-budget/2026-03-02`); never stored: each take is answered afresh. */
export const modelBudgetKey = (repo: string, change: number, day: string): string =>
  changeActionKey(repo, change, 'model-budget', day);
/** A run's (at `at`) storing of the Change's issue as read (`digest`: what it stores): each run and time stores again. */
export const changeIssueKey = (repo: string, change: number, at: string, token: string, digest: string): string =>
  changeActionKey(repo, change, 'issue', at, token, digest);
/** A comment marker, `name:part:…`: the hidden name of a comment Arbiter finds and edits in place. */
export const markerKey = (name: string, ...parts: Part[]): string => [name, ...parts].join(':');
/**
 * The key of one action of a person's rejection of `pr` at `headSha` (`reject/12@abc/state`): its
 * `state` action's record is how a later promote tells a person's rejection from a round's loss.
 */
export const rejectionActionKey = (repo: string, change: number, pr: number, headSha: string, what: string): string =>
  changeActionKey(repo, change, 'reject', `${pr}@${headSha}`, what);
type HeadStepArgs = [repo: string, change: number, pr: number, headSha: string, at: string, what: string];
/** One action of a step on `pr`'s head at `at` (`<step>/12@abc/<at>/<what>`). */
const headStepKey = (step: string, ...[repo, change, pr, headSha, at, what]: HeadStepArgs): string =>
  changeActionKey(repo, change, step, `${pr}@${headSha}`, at, what);
/**
 * The key of one action of the sweep's time-out of `pr`'s head at `at` (`timeout/12@abc/<at>/state`):
 * a head that verifies again and times out again is timed out again, by a later sweep.
 */
export const siblingTimeoutKey = (...args: HeadStepArgs): string => headStepKey('timeout', ...args);
/** The key of one action of a plan on explore `portfolio` of a Change (`p2/request/7-2-1`, `p2/slot/7-2-1/fill/21`). */
export const portfolioActionKey = (repo: string, change: number, portfolio: number, ...path: Part[]): string =>
  changeActionKey(repo, change, `p${portfolio}`, ...path);
/** One store record of a run of `step` on `pr`'s head at `at` (`<step>/12@abc/<at>/<token>/<what>`). */
const headRunKey =
  (step: 'verify' | 'recorded') =>
  (repo: string, change: number, pr: number, headSha: string, at: string, token: string, what: string): string =>
    changeActionKey(repo, change, step, `${pr}@${headSha}`, at, token, what);
/**
 * The key of one store record of a run verifying `pr`'s head at `at` (`verify/12@abc/<at>/<token>/gate:<digest>`):
 * each run and time records again, so a gate that returns to an earlier content is stored again.
 */
export const verifyActionKey = headRunKey('verify');
/**
 * The key of one store record of a run recording `pr`'s head as a candidate at `at`
 * (`recorded/12@abc/<at>/<token>/candidate`): each run and time records again, as its write did.
 */
export const recordingActionKey = headRunKey('recorded');
/**
 * The key of one action of a person's closure withdrawing `pr`'s head at `at` (`withdrawn/12@abc/<at>/state`):
 * a candidate reopened and closed again is withdrawn again.
 */
export const withdrawalActionKey = (...args: HeadStepArgs): string => headStepKey('withdrawn', ...args);
/** One run's keeping or taking (`what`) of the check events on a head at `at`: each event keeps its own. */
export const keptCheckKey = (repo: string, headSha: string, at: string, token: string, what: string): string =>
  `${N.keptCheck}${repo}@${headSha}/${at}/${token}/${what}`;

/** The keys under `prefix`, and the executor's claims of those keys (each action's claim is its own row). */
export const withActionClaims = (prefix: string): string[] => [prefix, claimKey(actionKey(prefix))];
/**
 * The records of the runs that verified a head (`verifyActionKey`) and the executor's claims of them,
 * as a POSIX regular expression: each names its run and time, so only that run's own plan reads it.
 */
export const VERIFY_RUN_RECORDS = `^(${N.claim}${N.action})?[^#]+#[0-9]+/verify/[0-9]+@[^/]+/`;
/** A run's storing of a Change's issue (`changeIssueKey`) and the executor's claim of it: only that run's plan reads it. */
export const CHANGE_ISSUE_RECORDS = `^(${N.claim}${N.action})?[^#]+#[0-9]+/issue/[0-9]{4}-[0-9]{2}-[0-9]{2}T`;
