// A member of a composite candidate opened, was edited or moved: the step reads the set's record
// and every member as GitHub shows it now (each in its own repository of the installation, its
// author's trust by that repository's rules and config), asks the pure planner whether the set is
// composing, not a candidate, or one candidate of its Change, and hands the plan to the executor,
// one repository at a time (each member's check lives in its own).
import { namesSet, refText, sameRef, setLines, type PullRef } from '../core/candidate-set.ts';
import { planCandidateSet, type SetMemberView, type SetPlan, type SetView } from '../core/plan/candidate-set.ts';
import { setAcceptanceView } from './set-acceptance.ts';
import { memberPatches, setChangesView } from './set-changes.ts';
import { candidateStanding, type Standing } from '../core/trust.ts';
import { readSetRecord, setOfHead } from './candidate-set-store.ts';
import { branchRulesOf } from './branch-rules.ts';
import { gateFrom } from './evidence.ts';
import type { NextStep, PullFacts } from './model.ts';
import { OPEN_STATES } from '../core/types.ts';
import { LABEL_LOST } from '../core/labels.ts';
import { setHold } from '../core/plan/set-hold.ts';
import { trackedChange } from './changes.ts';
import { nowIso, otherRepoContext as contextFor, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { readMemberPull, setDecided } from './set-ship.ts';
import { admittedBy, recordAdmission, trustOfLogin } from './trust.ts';
import type { VerbResult } from '../commands/types.ts';

/**
 * One member as GitHub shows it now (one group read: state, title, body, author, head and its checks),
 * with its author's standing and its head's gate, both by its own repository's config and rules.
 */
async function readMember(
  ctx: RepoContext,
  ref: PullRef,
  change: PullRef,
  known: Map<string, RepoContext | null>,
): Promise<SetMemberView> {
  const mctx = await contextFor(ctx, ref.repo, known);
  if (mctx === null) {
    const standing: Standing = {
      counts: false,
      reason: `\`.github/arbiter.yml\` of ${ref.repo} does not validate, so Arbiter acts on nothing there`,
      lookupFailed: false,
    };
    return { ref, pull: null, standing, prefix: ctx.config.commands.prefix };
  }
  const prefix = mctx.config.commands.prefix;
  // A member that has not opened yet is no pull request (or no issue) at all: asked first.
  const read = await readMemberPull(mctx, ref, { issueFirst: true });
  if (!read) return { ref, pull: null, standing: null, prefix };
  const { live } = read;
  const pull = {
    ...read.pull,
    author: live.author,
    lines: setLines(live.body, ref.repo),
    lost: live.labels.includes(LABEL_LOST),
    labels: live.labels,
    title: live.title,
  };
  if (!pull.open) return { ref, pull, standing: null, prefix };
  // Today's rules, in the member's own repository: write access there, a listed agent, or admitted there.
  const trust = await trustOfLogin(mctx, live.author);
  const standing = candidateStanding(
    trust,
    trust.trusted ? null : await admittedBy(mctx, ref.number, live.headSha, change.number),
  );
  const rules = await branchRulesOf(mctx, live.baseRef);
  const gate = gateFrom(mctx, live, null, rules.required);
  return { ref, pull, standing, prefix, gate, checks: live.checks, base: live.baseRef };
}

/** Whether the Change is one Arbiter tracks: null when it is, else why not. */
async function untrackedReason(
  ctx: RepoContext,
  change: PullRef,
  known: Map<string, RepoContext | null>,
): Promise<string | null> {
  const cctx = await contextFor(ctx, change.repo, known);
  if (cctx === null) return `\`.github/arbiter.yml\` of ${change.repo} does not validate`;
  const tracked = await trackedChange(cctx, change.number, null);
  if (tracked === null) return 'not an issue opened or adopted by an account Arbiter acts for';
  if (tracked.state === 'cancelled') return 'it was cancelled';
  return null;
}

/** The set `name` of `change` as its record and its members show it now, and its plan. */
async function planSet(
  ctx: RepoContext,
  change: PullRef,
  name: string,
  me: { ref: PullRef; parts: PullRef[] | null } | null,
  known: Map<string, RepoContext | null>,
): Promise<SetPlan> {
  const cctx = await contextFor(ctx, change.repo, known);
  const stored = cctx === null ? null : await readSetRecord(cctx, change, name);
  let seen = stored?.seen ?? [];
  let first = stored?.first ?? null;
  let parts = stored?.parts ?? null;
  if (me !== null) {
    if (!seen.some((r) => sameRef(r, me.ref))) seen = [...seen, me.ref];
    // The first member's `Parts:` line lists the set; a later member's list never replaces it.
    if (me.parts !== null && (first === null || sameRef(first, me.ref))) {
      first = me.ref;
      parts = me.parts;
    }
  }
  const members: SetMemberView[] = [];
  for (const ref of parts ?? seen) members.push(await readMember(ctx, ref, change, known));
  const view: SetView = {
    change,
    untracked: await untrackedReason(ctx, change, known),
    name,
    first,
    parts,
    seen,
    members,
  };
  // The acceptance call and the risk policy read the same member patches: each is read once.
  const patchOf = memberPatches(ctx, known);
  const acceptance = await setAcceptanceView(ctx, view, stored, known, patchOf);
  const changes = await setChangesView(ctx, view, stored, known, patchOf);
  return planCandidateSet({ ...view, acceptance, ...(changes ? { changes } : {}) });
}

/** How the set's stored record holds its Change's round now (core/plan/set-hold.ts): what its waiting list says, or null. */
async function holdsRound(cctx: RepoContext | null, change: PullRef, name: string): Promise<string | null> {
  if (cctx === null) return null;
  const record = await readSetRecord(cctx, change, name);
  const hold = record === null ? null : setHold(record, cctx.config.selection.siblingTimeout, nowIso(cctx));
  return hold?.holds ? `${hold.label} (${hold.why})` : null;
}

/**
 * Applies a set's plan, each repository's actions through its own context. A set is a sibling of
 * its Change: when it starts or stops holding the Change's round, or holds it for another reason
 * (composing, then verifying), each open group of the Change runs its selection step (returned,
 * for the Change's repository), which decides or brings its waiting list up to date.
 */
async function applySetPlan(
  ctx: RepoContext,
  plan: SetPlan,
  known: Map<string, RepoContext | null>,
): Promise<NextStep[]> {
  const { change, name } = plan.record;
  ctx.log.info(
    { set: name, change: refText(change), state: plan.standing.state, gate: plan.record.gate },
    'candidate set planned',
  );
  const cctx = await contextFor(ctx, change.repo, known);
  const before = await holdsRound(cctx, change, name);
  for (const { repo, actions } of plan.byRepo) {
    const target = await contextFor(ctx, repo, known);
    if (target !== null && actions.length > 0) await executePlan(target, actions);
  }
  if (cctx === null || before === (await holdsRound(cctx, change, name))) return [];
  return roundSteps(cctx, change);
}

/**
 * A decided set's member event (a merge, a closure, a check): the Change's steps run again, and a
 * decided round whose set ship stopped part-way (a job killed, a merge deferred) resumes it.
 */
async function carryOn(ctx: RepoContext, change: PullRef, known: Map<string, RepoContext | null>): Promise<NextStep[]> {
  const cctx = await contextFor(ctx, change.repo, known);
  return cctx === null ? [] : roundSteps(cctx, change);
}

/** The selection step of each open group of the Change (in the Change's repository); with none, the sets decide alone. */
async function roundSteps(cctx: RepoContext, change: PullRef): Promise<NextStep[]> {
  const open = (await cctx.deps.store.listCandidatesOfChange(cctx.key, change.number)).filter((c) =>
    OPEN_STATES.has(c.state),
  );
  if (open.length === 0) return [{ kind: 'sets', repo: cctx.key, change: change.number }];
  return [...new Set(open.map((c) => c.base))].map((base) => ({
    kind: 'select' as const,
    repo: cctx.key,
    change: change.number,
    base,
  }));
}

/**
 * A pull request that names a set (`Candidate-set:`) is a member, never a candidate alone: its set
 * is planned and applied.
 */
export async function noteSetMember(ctx: RepoContext, pull: Pick<PullFacts, 'number' | 'body'>): Promise<NextStep[]> {
  const lines = setLines(pull.body, ctx.key);
  if (lines === null) {
    ctx.log.info({ pr: pull.number }, 'names a candidate set without a Change it can read: ignored');
    return [];
  }
  const known = new Map<string, RepoContext | null>();
  // A set whose fate is decided (it ships, or lost) is planned no more: its decision is carried on.
  if (await setDecided(ctx, lines.change, lines.set)) return carryOn(ctx, lines.change, known);
  const me = { ref: { repo: ctx.key, number: pull.number }, parts: lines.parts };
  return applySetPlan(ctx, await planSet(ctx, lines.change, lines.set, me, known), known);
}

/**
 * A check concluded on a head that no candidate has: when it is a set member's head, the set is
 * planned again (its gate follows its members' checks). Null when the head is no member's, else
 * the steps that follow (the Change's round, when the set stopped holding it).
 */
export async function replanSetOfHead(ctx: RepoContext, headSha: string): Promise<NextStep[] | null> {
  const set = await setOfHead(ctx, ctx.key, headSha);
  if (set === null) return null;
  const known = new Map<string, RepoContext | null>();
  if (await setDecided(ctx, set.change, set.name)) return carryOn(ctx, set.change, known);
  return applySetPlan(ctx, await planSet(ctx, set.change, set.name, null, known), known);
}

/**
 * `/arbiter admit` on a set member (the verb checked the sender's write access here): the
 * admission covers this head for the set's Change, as a lone candidate's does, and the set is
 * planned again at once.
 */
export async function admitSetMember(
  ctx: RepoContext,
  pull: { number: number; open: boolean; body: string; headSha: string },
  by: string,
): Promise<{ result: VerbResult; next: NextStep[] }> {
  const prefix = ctx.config.commands.prefix;
  const lines = setLines(pull.body, ctx.key);
  if (lines === null)
    return {
      next: [],
      result: {
        ok: false,
        code: 'not_linked',
        message: `#${pull.number} names a set but no Change Arbiter can read: its body needs \`Candidate-for: owner/repo#N\`.`,
      },
    };
  if (!pull.open)
    return {
      next: [],
      result: { ok: false, code: 'not_open', message: `#${pull.number} is not open, so it cannot be admitted.` },
    };
  await recordAdmission(ctx, pull.number, { by, headSha: pull.headSha, change: lines.change.number });
  const next = await noteSetMember(ctx, pull);
  const result: VerbResult = {
    ok: true,
    message:
      `Admitted this head of #${pull.number} on @${by}'s word as a member of the set \`${lines.set}\` for ${refText(lines.change)}. ` +
      `Its \`Arbiter / selection\` check says whether the set is a candidate now; a new head needs a new \`${prefix} admit\`.`,
  };
  return { result, next };
}

/** A pull request that no candidate holds closed: when it is a set member, its set is read again. */
export async function noteClosedSetMember(
  ctx: RepoContext,
  pull: Pick<PullFacts, 'number' | 'body'>,
): Promise<NextStep[]> {
  return namesSet(pull.body) ? noteSetMember(ctx, pull) : [];
}
