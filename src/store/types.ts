// The store's contract: what workflows may ask of the database. Implemented once
// (src/store/store.ts) over one SQL dialect, on PGlite or on a real PostgreSQL.
import type { CandidateState, ChangeState, Criterion } from '../core/types.ts';
import type { Receipt } from '../core/receipt.ts';
import type { Queryable } from './db.ts';
import type { DashboardStore } from './dashboard-store.ts';
import type { PortfolioStore } from './portfolio-store.ts';
import type { StoredReceipt } from './rows.ts';

export type { StoredReceipt };

export interface ChangeRow {
  repo: string; // owner/name
  number: number;
  installationId: number;
  title: string;
  body: string;
  criteria: Criterion[];
  state: ChangeState;
  updatedAt: string;
}

export interface CandidateRow {
  repo: string;
  pr: number;
  change: number;
  base: string;
  headSha: string;
  author: string;
  state: CandidateState;
  /** Human reason of the last transition. */
  reason: string;
  /** When the current head sha was first seen (ISO), for the sibling timeout. */
  headSeenAt: string;
  createdAt: string;
}

export interface PatchRow {
  repo: string;
  pr: number;
  headSha: string;
  mergeBase: string;
  patch: string;
  truncated: boolean;
  /** Changed files: path, status, additions, deletions. */
  files: { path: string; status: string; additions: number; deletions: number; binary?: boolean }[];
}

export type EvidenceKind = 'gate' | 'acceptance';

export interface RoundRow {
  id: number;
  repo: string;
  change: number;
  base: string;
  number: number; // 1, 2, …
  /** Null until claimed; then the claimant's id (e.g. `pr:13:sha:abc…`). */
  selection: string | null;
  /** Null until the claimant recorded its decision (the plan). */
  decision: unknown | null;
  openedAt: string;
  decidedAt: string | null;
}

export type ClaimResult = 'claimed' | 'mine' | 'taken';

export interface NewDelivery {
  id: string;
  event: string;
  payload: unknown;
  /** What the event asks Arbiter to read again (a check event's head, src/core/check-subject.ts), or none. */
  subject?: string | null;
  /** The check it concludes (`intakeCheckName`), kept only with a subject. */
  check?: string | null;
}

/** What recording a group of deliveries found for one distinct id. */
export interface RecordedDelivery {
  id: string;
  /** Recorded now; false when this id was recorded before. */
  fresh: boolean;
  /** Recorded before and already processed. */
  done: boolean;
  /** Re-run number (1, 2, …) once a redelivery re-armed a delivery whose job had failed for good. */
  rerun?: number;
}

/** A recorded delivery not yet done, and its re-run number when it runs again after failing for good. */
export interface PendingDelivery {
  id: string;
  rerun?: number;
}

export interface RepoConfigState {
  valid: boolean;
  /** The cached config as stored (null when none); not yet validated. */
  config: unknown;
  loadedAt: string | null;
  generation: number;
}

export interface Store extends PortfolioStore, DashboardStore {
  // deliveries
  /** Records a webhook delivery; false when this id was recorded before (redelivery). */
  recordDelivery(id: string, event: string, payload: unknown): Promise<boolean>;
  /**
   * Records a group of deliveries in one statement; an id recorded before, or given twice, is
   * recorded once (its first copy). One answer per distinct id, in first-seen order. On `tx`
   * when given, so the caller commits it together with the deliveries' jobs.
   */
  recordDeliveries(deliveries: NewDelivery[], tx?: Queryable): Promise<RecordedDelivery[]>;
  /** `doneAt` is set once the delivery was processed or finally failed (`error` then says why). */
  getDelivery(
    id: string,
  ): Promise<{ id: string; event: string; payload: unknown; doneAt?: string | null; error?: string | null } | null>;
  markDeliveryDone(id: string, error?: string): Promise<void>;
  /**
   * The final failure of a delivery: marks it done and failed with the reason and records the
   * event, in one transaction, so a delivery reads as done only once its failure is on record. A
   * redelivery of it (`recordDeliveries`) re-arms it for its next re-run.
   */
  failDelivery(id: string, reason: string, event: { repo: string; data: unknown; at: string }): Promise<void>;
  /**
   * The subject of a delivery recorded after `id` (or with it, later in id order) on one of
   * `subjects` that is still pending: its run reads that subject after this one's event, so this
   * run may leave the work to it. Null when there is none, and then this delivery is marked as gone
   * past this point; null always once it was (a retry, or a deferral: it may hold claims), and for
   * an unknown id. Only a delivery whose recorded check `reads` counts (default: every one): a
   * later one that may be recorded without a read (src/core/plan/check-read.ts) is not waited for.
   */
  yieldsToLaterDelivery(
    id: string,
    subjects: string[],
    reads?: (check: string | null, subject: string) => boolean,
  ): Promise<string | null>;
  /**
   * The check a delivery's event concludes as recorded at intake, whether its run went past the
   * yield point, and the names of every check whose conclusion was delivered on the same head
   * (done or not, this one included); null for an unknown id.
   */
  getDeliveryCheck(id: string): Promise<{ check: string | null; evaluated: boolean; delivered: string[] } | null>;
  /** Recorded deliveries not yet done, oldest first (re-enqueued at start). */
  listPendingDeliveries(limit: number): Promise<PendingDelivery[]>;
  /** Which of these delivery ids (GUIDs) are recorded. */
  knownDeliveries(ids: string[]): Promise<Set<string>>;

  // Changes and candidates
  upsertChange(row: Omit<ChangeRow, 'updatedAt'>): Promise<ChangeRow>;
  getChange(repo: string, number: number): Promise<ChangeRow | null>;
  setChangeState(repo: string, number: number, state: ChangeState): Promise<void>;
  upsertCandidate(row: Omit<CandidateRow, 'createdAt' | 'headSeenAt'> & { headSeenAt?: string }): Promise<CandidateRow>;
  getCandidate(repo: string, pr: number): Promise<CandidateRow | null>;
  /** Every candidate of a Change on a base, in any state, ordered by pr. */
  listCandidates(repo: string, change: number, base: string): Promise<CandidateRow[]>;
  /** Every candidate of a Change on any base, ordered by pr. */
  listCandidatesOfChange(repo: string, change: number): Promise<CandidateRow[]>;
  /** Candidates whose recorded head is this sha. */
  listCandidatesByHead(repo: string, headSha: string): Promise<CandidateRow[]>;
  /** Every candidate in one state, across repositories (for the sweep). */
  listCandidatesInState(state: CandidateState): Promise<CandidateRow[]>;
  /** Candidates in `verifying` whose head was first seen before `before` (ISO). */
  listVerifyingSince(before: string): Promise<CandidateRow[]>;
  setCandidateState(repo: string, pr: number, state: CandidateState, reason: string): Promise<void>;

  // check events for heads no candidate has recorded yet (src/store/kept-check-store.ts)
  /** Keeps a check event for this head (one row per head, counting the events). */
  keepCheckEvent(repo: string, headSha: string, at: string): Promise<void>;
  /** Takes (deletes) the events kept for this head; how many there were. */
  takeKeptCheckEvents(repo: string, headSha: string): Promise<number>;
  /** Drops events kept before `before` (ISO): heads that never became a candidate's. */
  pruneKeptCheckEvents(before: string): Promise<number>;
  /** Heads kept before `before` (oldest first, at most `limit`). */
  listKeptCheckEvents(before: string, limit: number): Promise<{ repo: string; headSha: string }[]>;

  // per-head-sha material
  putPatch(row: PatchRow): Promise<void>;
  getPatch(repo: string, pr: number, headSha: string): Promise<PatchRow | null>;
  putEvidence(repo: string, pr: number, headSha: string, kind: EvidenceKind, data: unknown): Promise<void>;
  getEvidence(repo: string, pr: number, headSha: string, kind: EvidenceKind): Promise<unknown | null>;

  // rounds and the claim
  /** The newest round of the group, creating round 1 when there is none. */
  currentRound(repo: string, change: number, base: string, now: string): Promise<RoundRow>;
  /** Opens round n+1 if the current round is `fromRound` (idempotent for concurrent callers). */
  openNextRound(repo: string, change: number, base: string, fromRound: number, now: string): Promise<RoundRow>;
  /** One conditional update of the round's selection from NULL. `mine` when `claimant` already holds it. */
  claimRound(roundId: number, claimant: string): Promise<ClaimResult>;
  /** Gives back a claim that `claimant` holds on an undecided round; true when it did. */
  releaseRound(roundId: number, claimant: string): Promise<boolean>;
  /** Records the round's decision when it has none and `claimant` holds the round; true when it did. */
  recordDecision(roundId: number, decision: unknown, now: string, claimant: string): Promise<boolean>;
  getRound(roundId: number): Promise<RoundRow | null>;
  /**
   * Newest rounds that were claimed and not carried through (no `round-done:<id>`), of Changes
   * not cancelled (a shipped one may have losers still to close, or another base still open); the most recent first, so rounds that can never be resumed (an uninstalled app) do
   * not keep newer ones out of the limit.
   */
  listUnfinishedRounds(limit: number): Promise<RoundRow[]>;

  // receipts, events, idempotent actions
  addReceipt(receipt: Receipt): Promise<number>;
  /** A Change's receipts in the order recorded; each parsed, or reported as unreadable (never cast). */
  listReceipts(repo: string, change: number): Promise<StoredReceipt[]>;
  /** Receipts as recorded, for a replay: one by id, or all of them (oldest first). */
  readReceipts(query: { id?: number }): Promise<StoredReceipt[]>;
  addEvent(repo: string, kind: string, data: unknown, at: string): Promise<void>;
  /** The recorded result of an applied action, or null when it has not been applied. */
  getAppliedAction(key: string): Promise<unknown | null>;
  /** The recorded results of those keys that have one, in one read. */
  getAppliedActions(keys: string[]): Promise<Map<string, unknown>>;
  recordAppliedAction(key: string, result: unknown, at: string): Promise<void>;
  /** Records `result` under `key`, replacing what is there: a record that changes (a candidate set's). */
  putAppliedAction(key: string, result: unknown, at: string): Promise<void>;
  /** The applied actions whose key starts with `prefix` and, with `without`, does not hold it (at most `limit`, by key). */
  listAppliedActions(prefix: string, limit: number, without?: string): Promise<{ key: string; result: unknown }[]>;
  /** Deletes one applied action (a mark that only says "work to do", taken by whoever does it). */
  forgetAppliedAction(key: string): Promise<boolean>;
  /** Deletes the applied actions under a key prefix recorded before `before` (claims that only space work out in time). */
  pruneAppliedActions(prefix: string, before: string): Promise<number>;
  /** Deletes the applied actions whose key matches `pattern` (a POSIX regular expression) recorded before `before`. */
  pruneAppliedActionsMatching(pattern: string, before: string): Promise<number>;
  /**
   * Records `result` under `key` unless a result is there already; answers the stored one, and
   * whether this call inserted it (in one statement).
   */
  claimAppliedAction(key: string, result: unknown, at: string): Promise<{ result: unknown; inserted: boolean }>;

  // repairs and budgets
  /** At most one repair per Change: true for the one caller that takes it. */
  claimRepair(repo: string, change: number, pr: number, at: string): Promise<boolean>;
  getRepair(repo: string, change: number): Promise<{ pr: number; at: string } | null>;
  /**
   * Takes `calls` model calls from the per-Change budget and the installation's daily cap.
   * False (and nothing taken) when either would be exceeded.
   */
  takeModelBudget(
    input: { installationId: number; repo: string; change: number; day: string; calls: number },
    limits: { perChange: number; dailyPerInstallation: number },
  ): Promise<boolean>;

  // repository config state, and the cached default-branch config shared by replicas
  /** Records whether the default branch's config is valid; an invalid one drops the cached config. */
  setConfigValid(repo: string, valid: boolean, detail: string): Promise<void>;
  /**
   * Records the default branch's config as invalid, unless an invalidation (a push) moved the
   * generation since `generation` was read: a load that began before a fixing push never undoes it.
   * True when it was recorded.
   */
  markConfigInvalid(repo: string, detail: string, generation: number): Promise<boolean>;
  isConfigValid(repo: string): Promise<boolean>;
  /** Validity and the cached config (unparsed: the caller validates it). A repository never seen is valid with nothing cached. */
  getConfigState(repo: string): Promise<RepoConfigState>;
  /** Why the repository's config is invalid (the `path (line N): message` lines), or '' while it is valid or never checked. */
  configProblems(repo: string): Promise<string>;
  /**
   * Caches a config loaded at `loadedAt` (app clock). Stored only while the repository is valid
   * and its generation is still `generation` (no invalidation since the load began): true when stored.
   */
  cacheConfig(repo: string, entry: { config: unknown; loadedAt: string; generation: number }): Promise<boolean>;
  /** Drops the cached config and moves the generation on (a push to the default branch). */
  dropCachedConfig(repo: string): Promise<void>;

  close(): Promise<void>;
}
