// What the risk policy reads of a candidate set's members (DESIGN.md section 6, "Composite
// candidate"): each member's changed paths and lines at its head (from its patch, the one the set's
// acceptance call reads), its labels as read with the set, and its own repository's policy. A
// member's changes at a head the set's record already holds are not read again. Reads only: the
// set's planner puts them in its record, and the round's planner applies the policy
// (core/plan/set-risk.ts).
import { refText, type MemberChanges, type SetRecord } from '../core/candidate-set.ts';
import { setWantsAcceptance, type SetMemberView, type SetView } from '../core/plan/candidate-set.ts';
import type { PatchRow } from '../store/types.ts';
import { otherRepoContext, type RepoContext } from './context.ts';

/** A member's patch at its head, read from GitHub once per set planning (null: unreadable). */
export type PatchOf = (member: SetMemberView) => Promise<PatchRow | null>;

/** Reads each member's patch in its own repository, once per head, for the acceptance call and the risk policy alike. */
export function memberPatches(ctx: RepoContext, known: Map<string, RepoContext | null>): PatchOf {
  const read = new Map<string, Promise<PatchRow | null>>();
  return (m) => {
    const pull = m.pull;
    if (pull === null || m.base === undefined) return Promise.resolve(null);
    const key = `${refText(m.ref)}@${pull.headSha}`;
    const cached = read.get(key);
    if (cached !== undefined) return cached;
    const base = m.base;
    const patch = (async () => {
      const mctx = await otherRepoContext(ctx, m.ref.repo, known);
      if (mctx === null) return null;
      return mctx.gh.fetchPatch({ pr: m.ref.number, baseRef: base, headSha: pull.headSha }).catch((error: unknown) => {
        ctx.log.warn({ err: error, member: refText(m.ref) }, 'candidate set: a member patch could not be read');
        return null;
      });
    })();
    read.set(key, patch);
    return patch;
  };
}

/**
 * Each member's changes at its head, once the set could win (a candidate whose every member's
 * required checks passed: the risk policy matters only to a set that may ship). A member whose patch
 * or config cannot be read is left out, and its absence holds the set.
 */
export async function setChangesView(
  ctx: RepoContext,
  view: SetView,
  stored: SetRecord | null,
  known: Map<string, RepoContext | null>,
  patchOf: PatchOf,
): Promise<MemberChanges[] | undefined> {
  if (!setWantsAcceptance(view)) return undefined;
  const changes: MemberChanges[] = [];
  for (const m of view.members) {
    if (m.pull === null) continue;
    const member = refText(m.ref);
    const mctx = await otherRepoContext(ctx, m.ref.repo, known);
    if (mctx === null) continue;
    const before = stored?.changes?.find((c) => c.member === member && c.headSha === m.pull!.headSha);
    const files =
      before !== undefined
        ? { changedPaths: before.changedPaths, changedLines: before.changedLines }
        : await patchOf(m).then((patch) =>
            patch === null
              ? null
              : {
                  changedPaths: patch.files.map((f) => f.path),
                  changedLines: patch.files.reduce((n, f) => n + f.additions + f.deletions, 0),
                },
          );
    if (files === null) continue;
    const { autoShip, rules } = mctx.config.policy;
    changes.push({
      member,
      headSha: m.pull.headSha,
      ...files,
      // Labels change without a new head: the ones read with the set now.
      labels: m.pull.labels ?? before?.labels ?? [],
      policy: { autoShip: [...autoShip], rules: rules.map((r) => ({ ...r })) },
    });
  }
  return changes;
}
