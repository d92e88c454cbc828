// A member of a composite candidate opened, was edited or moved: the step reads the set's record
// and every member as GitHub shows it now (each in its own repository of the installation, its
// author's trust by that repository's rules and config), asks the pure planner whether the set is
// composing, not a candidate, or one candidate of its Change, and hands the plan to the executor,
// one repository at a time (each member's check lives in its own).
import { getRepoConfig } from '../config/check.ts';
import { refText, sameRef, setLines, type PullRef } from '../core/candidate-set.ts';
import { planCandidateSet, type SetMemberView, type SetPlan } from '../core/plan/candidate-set.ts';
import { candidateStanding, type Standing } from '../core/trust.ts';
import { readSetRecord } from './candidate-set-store.ts';
import type { PullFacts } from './candidates.ts';
import { trackedChange } from './changes.ts';
import { gatewayFor, repoContext, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { admittedBy, trustOfLogin } from './trust.ts';

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

/** One member as GitHub shows it now, with its author's standing in its own repository. */
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
  const issue = await mctx.gh.getIssue(ref.number);
  if (!issue || !issue.pull_request) return { ref, pull: null, standing: null, prefix };
  const live = await mctx.gh.pullState(ref.number);
  const author = issue.user?.login ?? '';
  const pull = {
    open: live.state === 'open' && !live.merged,
    merged: live.merged,
    headSha: live.headSha,
    author,
    lines: setLines(issue.body, ref.repo),
  };
  if (!pull.open) return { ref, pull, standing: null, prefix };
  // Today's rules, in the member's own repository: write access there, a listed agent, or admitted there.
  const trust = await trustOfLogin(mctx, author);
  const standing = candidateStanding(
    trust,
    trust.trusted ? null : await admittedBy(mctx, ref.number, live.headSha, change.number),
  );
  return { ref, pull, standing, prefix };
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

/** Reads the set `pull` names and plans its standing; null when the body names no set it can read. */
export async function planSetOf(
  ctx: RepoContext,
  pull: Pick<PullFacts, 'number' | 'body'>,
  known = new Map<string, RepoContext | null>(),
): Promise<SetPlan | null> {
  const lines = setLines(pull.body, ctx.key);
  if (lines === null) return null;
  const me: PullRef = { repo: ctx.key, number: pull.number };
  const cctx = await contextFor(ctx, lines.change.repo, known);
  const stored = cctx === null ? null : await readSetRecord(cctx, lines.change, lines.set);
  const seen = stored?.seen.some((r) => sameRef(r, me)) ? stored.seen : [...(stored?.seen ?? []), me];
  let first = stored?.first ?? null;
  let parts = stored?.parts ?? null;
  // The first member's `Parts:` line lists the set; a later member's list never replaces it.
  if (lines.parts !== null && (first === null || sameRef(first, me))) {
    first = me;
    parts = lines.parts;
  }
  const refs = parts ?? seen;
  const members: SetMemberView[] = [];
  for (const ref of refs) members.push(await readMember(ctx, ref, lines.change, known));
  return planCandidateSet({
    change: lines.change,
    untracked: await untrackedReason(ctx, lines.change, known),
    name: lines.set,
    first,
    parts,
    seen,
    members,
  });
}

/**
 * A pull request that names a set (`Candidate-set:`) is a member, never a candidate alone: its set
 * is planned and applied, each repository's actions through its own context.
 */
export async function noteSetMember(ctx: RepoContext, pull: Pick<PullFacts, 'number' | 'body'>): Promise<void> {
  const known = new Map<string, RepoContext | null>();
  const plan = await planSetOf(ctx, pull, known);
  if (plan === null) {
    ctx.log.info({ pr: pull.number }, 'names a candidate set without a Change it can read: ignored');
    return;
  }
  ctx.log.info(
    { pr: pull.number, set: plan.record.name, change: refText(plan.record.change), state: plan.standing.state },
    'candidate set planned',
  );
  for (const { repo, actions } of plan.byRepo) {
    const target = await contextFor(ctx, repo, known);
    if (target !== null && actions.length > 0) await executePlan(target, actions);
  }
}
