// Test helper: a RepoContext over the recording fake GitHub and a real store, and a seeded
// group of siblings (PRs in the fake; change, candidates, patches and evidence in the store), so
// workflow tests run the selection step exactly as a settled candidate would.
import pino from 'pino';
import { ManualClock } from '../../src/clock.ts';
import { ConfigSchema, type ArbiterConfig } from '../../src/config/schema.ts';
import { parseCriteria } from '../../src/core/criteria.ts';
import { computeGate } from '../../src/core/gate.ts';
import type { AcceptanceEvidence, CandidateState, CriterionStatus, ObservedCheck } from '../../src/core/types.ts';
import { checkOutcome } from '../../src/core/gate.ts';
import type { Deps, JobQueue, JobState } from '../../src/deps.ts';
import type { CompletionRequest, CompletionResult, LlmClient } from '../../src/llm/types.ts';
import type { ChangeRow, Store } from '../../src/store/types.ts';
import type { RepoContext } from '../../src/workflows/context.ts';
import { criteriaHash } from '../../src/workflows/evidence.ts';
import { executePlan } from '../../src/workflows/execute.ts';
import { afterMerged } from '../../src/workflows/promote.ts';
import { checkAction } from '../../src/core/actions.ts';
import { FakeGitHub, type FakeCheck } from './fake-github.ts';

export const silentLog = pino({ level: 'silent' });
export const START = Date.parse('2026-03-02T09:00:00Z');

/** A model that answers from a table: judge calls get `judge`; acceptance is seeded in the store, so it is never asked. */
export function tableLlm(table: { judge?: unknown | 'unavailable' } = {}): LlmClient & { calls: CompletionRequest[] } {
  const calls: CompletionRequest[] = [];
  return {
    calls,
    async complete(req): Promise<CompletionResult> {
      calls.push(req);
      if (req.kind === 'judge' && table.judge !== undefined && table.judge !== 'unavailable') {
        return {
          ok: true,
          text: JSON.stringify(table.judge),
          json: table.judge,
          model: req.model,
          usage: { input: 10, output: 10 },
        };
      }
      return { ok: false, gap: 'model-error' };
    },
  };
}

/** A queue that records what is sent; a job's state is `active` unless a test sets it (`states`, by key). */
export function recordingQueue(): JobQueue & { sent: string[]; states: Map<string, JobState> } {
  const sent: string[] = [];
  const states = new Map<string, JobState>();
  return {
    sent,
    states,
    async send(name, data) {
      sent.push(`${name} ${JSON.stringify(data)}`);
      return `job-${sent.length}`;
    },
    async jobState(_name, key) {
      return states.get(key) ?? 'active';
    },
    async sendOnceAt(name, data, key, dueAt) {
      const line = `${name} ${key} at ${dueAt.toISOString()}`;
      if (sent.includes(line)) return null;
      sent.push(line);
      return `job-${sent.length}`;
    },
  };
}

/** Config from the written form (as in `.github/arbiter.yml`), defaults applied. */
export const configOf = (written: Record<string, unknown> = {}): ArbiterConfig =>
  ConfigSchema.parse({ gate: { required: ['test'] }, ...written });

export interface World {
  store: Store;
  gh: FakeGitHub;
  clock: ManualClock;
  llm: LlmClient & { calls: CompletionRequest[] };
  deps: Deps;
  config: ArbiterConfig;
  /** A context for one run (a job): its own token. */
  ctx(token: string, over?: { store?: Store }): RepoContext;
  /** The recording queue in `deps` (set a job's state by its key). */
  queue: ReturnType<typeof recordingQueue>;
}

export function makeWorld(input: {
  store: Store;
  gh?: FakeGitHub;
  config?: ArbiterConfig;
  llm?: LlmClient & { calls: CompletionRequest[] };
}): World {
  const gh = input.gh ?? new FakeGitHub();
  const clock = new ManualClock(START);
  // The fake dates its group reads on the world's clock, as the gateway does on the app's.
  gh.clock ??= clock;
  const queue = recordingQueue();
  const llm = input.llm ?? tableLlm();
  const config = input.config ?? configOf();
  const deps: Deps = {
    store: input.store,
    queue,
    clock,
    llm,
    log: silentLog,
    octokitFor: async () => {
      throw new Error('workflow tests build their RepoContext over the fake');
    },
    appSlug: gh.appSlug,
  };
  const ctx = (token: string, over: { store?: Store } = {}): RepoContext => ({
    deps: over.store ? { ...deps, store: over.store } : deps,
    gh: gh.asGateway(),
    owner: gh.owner,
    repo: gh.repo,
    key: `${gh.owner}/${gh.repo}`,
    repoUrl: `https://github.com/${gh.owner}/${gh.repo}`,
    installationId: 7,
    config,
    token,
    log: silentLog,
  });
  return { store: input.store, gh, clock, llm, deps, config, ctx, queue };
}

export const CRITERIA_TEXT = [
  'The home page shows a calendar of the current month',
  'Each day of the calendar holds a kanban list',
  'A card can be dragged between days',
];

export interface SiblingSpec {
  pr: number;
  /** Default `<pr>aaaa…`. */
  sha?: string;
  /** CI on the head. Default: `test` succeeded. */
  checks?: FakeCheck[];
  /** Status per criterion id; criteria not named are met. `null`: acceptance has not concluded. */
  acceptance?: Partial<Record<string, CriterionStatus>> | null;
  draft?: boolean;
  author?: string;
  labels?: string[];
  paths?: string[];
  lines?: number;
}

export const shaOf = (pr: number, v = 0): string => `${pr}${'abcdef0123456789'[v % 16]}`.padEnd(40, v % 2 ? 'e' : 'a');

/** Acceptance evidence from statuses: a `met` carries a (verified) citation. */
export function acceptanceOf(
  change: ChangeRow,
  statuses: Partial<Record<string, CriterionStatus>>,
): AcceptanceEvidence {
  const results = change.criteria.map((c) => {
    const status = statuses[c.id] ?? 'met';
    return {
      id: c.id,
      status,
      citation:
        status === 'met'
          ? { path: 'src/calendar.ts', quote: `implements ${c.id}: ${c.text}`, line: 1, side: 'head' as const }
          : null,
      reason: status === 'met' ? '' : `${c.id} is ${status}`,
      source: 'small' as const,
    };
  });
  return {
    status: change.criteria.length === 0 ? 'none' : results.every((r) => r.status === 'met') ? 'pass' : 'fail',
    results,
    truncated: false,
    modelCalls: { small: 1, large: 0 },
  };
}

export const observedChecks = (checks: FakeCheck[]): ObservedCheck[] =>
  checks.map((c) => {
    const kind = c.kind ?? 'check';
    const status = c.conclusion === 'pending' ? 'in_progress' : 'completed';
    const raw = kind === 'status' ? c.conclusion : c.conclusion === 'pending' ? status : c.conclusion;
    return {
      name: c.name,
      kind,
      raw,
      outcome:
        kind === 'status'
          ? checkOutcome('status', c.conclusion, null)
          : checkOutcome('check', status, c.conclusion === 'pending' ? null : c.conclusion),
      title: c.title ?? null,
      summary: c.summary ?? null,
    };
  });

/** Puts a sibling's head, evidence and state where verifyCandidate would have left them. */
export async function seedSibling(
  world: World,
  change: ChangeRow,
  s: SiblingSpec,
  opts: { base?: string; round?: boolean } = {},
): Promise<void> {
  const ctx = world.ctx('seed');
  const { store, gh, config } = world;
  const sha = s.sha ?? shaOf(s.pr);
  const checks = s.checks ?? [{ name: 'test', conclusion: 'success' }];
  const base = opts.base ?? 'main';
  if (gh.pulls.has(s.pr)) gh.push(s.pr, sha, checks);
  else
    gh.addPull({
      number: s.pr,
      headSha: sha,
      checks,
      draft: s.draft ?? true,
      author: s.author ?? 'agent-bot',
      labels: s.labels ?? [],
      body: `Candidate-for: #${change.number}`,
      baseRef: base,
    });
  const gate = computeGate({
    configured: config.gate.required,
    branchRequired: gh.branch.required,
    observed: observedChecks(checks),
    scoreCheck: config.gate.score,
  });
  const state: CandidateState = !gate.settled ? 'verifying' : gate.promotable ? 'verified' : 'unpromotable';
  await store.upsertCandidate({
    repo: ctx.key,
    pr: s.pr,
    change: change.number,
    base,
    headSha: sha,
    author: s.author ?? 'agent-bot',
    state,
    reason: gate.reason,
    headSeenAt: world.clock.now().toISOString(),
  });
  const paths = s.paths ?? ['src/calendar.ts'];
  await store.putPatch({
    repo: ctx.key,
    pr: s.pr,
    headSha: sha,
    mergeBase: 'base0000',
    patch: '',
    truncated: false,
    files: paths.map((path) => ({ path, status: 'modified', additions: s.lines ?? 10, deletions: 0 })),
  });
  await store.putEvidence(ctx.key, s.pr, sha, 'gate', gate);
  if (s.acceptance !== null && gate.settled) {
    await store.putEvidence(ctx.key, s.pr, sha, 'acceptance', {
      ...acceptanceOf(change, s.acceptance ?? {}),
      criteriaHash: criteriaHash(change),
    });
  }
  // recordCandidate shows the selection check in progress as soon as a head is recorded.
  await executePlan(ctx, [
    checkAction(ctx.key, {
      pr: s.pr,
      headSha: sha,
      name: 'Arbiter / selection',
      status: 'in_progress',
      title: 'Waiting for evidence',
      summary: `Candidate for #${change.number}.`,
    }),
  ]);
}

/** The Change (issue in the fake, row in the store) and its siblings; the record starts empty. */
export async function seedGroup(
  world: World,
  spec: { change?: number; criteria?: string[]; siblings: SiblingSpec[]; base?: string },
): Promise<ChangeRow> {
  const number = spec.change ?? 42;
  const texts = spec.criteria ?? CRITERIA_TEXT;
  const body =
    texts.length > 0
      ? `Please build it.\n\n## Acceptance criteria\n${texts.map((t) => `- [ ] ${t}`).join('\n')}\n`
      : 'Please build it.';
  world.gh.issues.set(number, { title: 'Calendar with a kanban list per day', body, state: 'open' });
  const key = `${world.gh.owner}/${world.gh.repo}`;
  const change = await world.store.upsertChange({
    repo: key,
    number,
    installationId: 7,
    title: 'Calendar with a kanban list per day',
    body,
    criteria: parseCriteria(body),
    state: 'open',
  });
  await world.store.currentRound(key, number, spec.base ?? 'main', world.clock.now().toISOString());
  for (const s of spec.siblings) await seedSibling(world, change, s, { base: spec.base });
  world.gh.resetRecord();
  return change;
}

/**
 * The merge's own webhook for `pr` on `main`, handled by a run under `token`: the merged head is
 * `shaOf(pr)`; `by` a person's login, or null for Arbiter's own merge.
 */
export const mergedWebhook = (
  w: World,
  change: ChangeRow,
  pr: number,
  opts: { token?: string; by?: string | null; round?: number } = {},
): Promise<void> =>
  afterMerged(w.ctx(opts.token ?? 'delivery:merged'), {
    change,
    base: 'main',
    pr,
    sha: shaOf(pr),
    by: opts.by ?? null,
    round: opts.round ?? 1,
    scope: 'merged',
  });
