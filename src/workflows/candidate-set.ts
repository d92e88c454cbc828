// A member of a composite candidate opened, was edited or moved: the step reads the set's record
// and every member as GitHub shows it now (each in its own repository of the installation, its
// author's trust by that repository's rules and config), asks the pure planner whether the set is
// composing, not a candidate, or one candidate of its Change, and hands the plan to the executor,
// one repository at a time (each member's check lives in its own).
import { getRepoConfig } from '../config/check.ts';
import { namesSet, refText, sameRef, setLines, type PullRef } from '../core/candidate-set.ts';
import { planCandidateSet, type SetMemberView, type SetPlan } from '../core/plan/candidate-set.ts';
import { candidateStanding, type Standing } from '../core/trust.ts';
import { readSetRecord, setOfHead } from './candidate-set-store.ts';
import { branchRulesOf } from './branch-rules.ts';
import { gateFrom } from './evidence.ts';
import type { PullFacts } from './model.ts';
import { trackedChange } from './changes.ts';
import { gatewayFor, repoContext, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { admittedBy, recordAdmission, trustOfLogin } from './trust.ts';
import type { VerbResult } from '../commands/types.ts';

/**
 * The context of another repository of the same installation (its gateway and its config), or
 * null while its `.github/arbiter.yml` does not validate (Arbiter does nothing there until fixed).
 */
async function contextFor(
  ctx: RepoContext,
  repo: string,
  known: Map<string, RepoContext | null>,
): Promise<RepoContext | null> {
  const key = repo.toLowerCase();
  if (key === ctx.key.toLowerCase()) return ctx;
  if (known.has(key)) return known.get(key) ?? null;
  const at = repo.indexOf('/');
  const owner = repo.slice(0, at);
  const name = repo.slice(at + 1);
  const gh = await gatewayFor(ctx.deps, ctx.installationId, owner, name);
  const config = await getRepoConfig(ctx.deps, gh, { owner, repo: name });
  const other =
    config === null
      ? null
      : await repoContext(ctx.deps, {
          owner,
          repo: name,
          installationId: ctx.installationId,
          config,
          token: ctx.token,
          gh,
        });
  known.set(key, other);
  return other;
}

/**
 * One member as GitHub shows it now (one group read: state, body, author, head and its checks),
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
  // A member that has not opened yet is no pull request (or no issue) at all: asked first, since
  // the group query answers a missing number with an error.
  const issue = await mctx.gh.getIssue(ref.number);
  if (!issue || !issue.pull_request) return { ref, pull: null, standing: null, prefix };
  const live = (await mctx.gh.readGroup([ref.number])).get(ref.number);
  if (!live) return { ref, pull: null, standing: null, prefix };
  const pull = {
    open: live.state === 'OPEN',
    merged: live.merged || live.state === 'MERGED',
    headSha: live.headSha,
    author: live.author,
    lines: setLines(live.body, ref.repo),
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
  return { ref, pull, standing, prefix, gate };
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
  return planCandidateSet({
    change,
    untracked: await untrackedReason(ctx, change, known),
    name,
    first,
    parts,
    seen,
    members,
  });
}

/** Applies a set's plan, each repository's actions through its own context. */
async function applySetPlan(ctx: RepoContext, plan: SetPlan, known: Map<string, RepoContext | null>): Promise<void> {
  ctx.log.info(
    { set: plan.record.name, change: refText(plan.record.change), state: plan.standing.state, gate: plan.record.gate },
    'candidate set planned',
  );
  for (const { repo, actions } of plan.byRepo) {
    const target = await contextFor(ctx, repo, known);
    if (target !== null && actions.length > 0) await executePlan(target, actions);
  }
}

/**
 * A pull request that names a set (`Candidate-set:`) is a member, never a candidate alone: its set
 * is planned and applied.
 */
export async function noteSetMember(ctx: RepoContext, pull: Pick<PullFacts, 'number' | 'body'>): Promise<void> {
  const lines = setLines(pull.body, ctx.key);
  if (lines === null) {
    ctx.log.info({ pr: pull.number }, 'names a candidate set without a Change it can read: ignored');
    return;
  }
  const known = new Map<string, RepoContext | null>();
  const me = { ref: { repo: ctx.key, number: pull.number }, parts: lines.parts };
  await applySetPlan(ctx, await planSet(ctx, lines.change, lines.set, me, known), known);
}

/**
 * A check concluded on a head that no candidate has: when it is a set member's head, the set is
 * planned again (its gate follows its members' checks). True when the head was a member's.
 */
export async function replanSetOfHead(ctx: RepoContext, headSha: string): Promise<boolean> {
  const set = await setOfHead(ctx, ctx.key, headSha);
  if (set === null) return false;
  const known = new Map<string, RepoContext | null>();
  await applySetPlan(ctx, await planSet(ctx, set.change, set.name, null, known), known);
  return true;
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
): Promise<VerbResult> {
  const prefix = ctx.config.commands.prefix;
  const lines = setLines(pull.body, ctx.key);
  if (lines === null)
    return {
      ok: false,
      code: 'not_linked',
      message: `#${pull.number} names a set but no Change Arbiter can read: its body needs \`Candidate-for: owner/repo#N\`.`,
    };
  if (!pull.open)
    return { ok: false, code: 'not_open', message: `#${pull.number} is not open, so it cannot be admitted.` };
  await recordAdmission(ctx, pull.number, { by, headSha: pull.headSha, change: lines.change.number });
  await noteSetMember(ctx, pull);
  return {
    ok: true,
    message:
      `Admitted this head of #${pull.number} on @${by}'s word as a member of the set \`${lines.set}\` for ${refText(lines.change)}. ` +
      `Its \`Arbiter / selection\` check says whether the set is a candidate now; a new head needs a new \`${prefix} admit\`.`,
  };
}

/** A pull request that no candidate holds closed: when it is a set member, its set is read again. */
export async function noteClosedSetMember(ctx: RepoContext, pull: Pick<PullFacts, 'number' | 'body'>): Promise<void> {
  if (namesSet(pull.body)) await noteSetMember(ctx, pull);
}
