// A candidate's evidence as the store holds it: the gate and acceptance of its head, and the gate
// computed from a fresh read of the head. Read by verification, selection and the sweep alike.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { awaitsWorkflowApproval } from '../core/agent-work.ts';
import { computeGate, timeOutGate } from '../core/gate.ts';
import { AcceptanceEvidence, GateEvidence } from '../core/types.ts';
import type { PullState } from '../github/group-query.ts';
import type { CandidateRow, ChangeRow } from '../store/types.ts';
import type { RepoContext } from './context.ts';

export const criteriaHash = (change: ChangeRow): string =>
  createHash('sha256').update(JSON.stringify(change.criteria)).digest('hex').slice(0, 12);

export async function storedGate(ctx: RepoContext, c: CandidateRow): Promise<GateEvidence | null> {
  const parsed = GateEvidence.safeParse(await ctx.deps.store.getEvidence(ctx.key, c.pr, c.headSha, 'gate'));
  return parsed.success ? parsed.data : null;
}

/** Acceptance evidence of this head for the Change's current criteria, or null. */
export async function storedAcceptance(
  ctx: RepoContext,
  c: CandidateRow,
  change: ChangeRow,
): Promise<AcceptanceEvidence | null> {
  const raw = await ctx.deps.store.getEvidence(ctx.key, c.pr, c.headSha, 'acceptance');
  const stamp = z.object({ criteriaHash: z.string() }).safeParse(raw);
  if (!stamp.success || stamp.data.criteriaHash !== criteriaHash(change)) return null;
  const parsed = AcceptanceEvidence.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** Gate evidence from a fresh read of the head, keeping a timeout the sweep recorded and the head's blockers. */
export function gateFrom(
  ctx: RepoContext,
  state: PullState,
  previous: GateEvidence | null,
  branchRequired: string[] | null,
  blockers?: string[],
): GateEvidence {
  const { required: configured, score: scoreCheck, allowNoChecks } = ctx.config.gate;
  const gate = computeGate({
    configured,
    branchRequired,
    observed: state.checks,
    scoreCheck,
    allowNoChecks,
    blockers: blockers ?? previous?.blockers ?? [],
    awaitingApproval: awaitsWorkflowApproval(state.suites ?? []) ? { url: state.url ?? null } : null,
  });
  return previous?.timedOut && !gate.settled ? timeOutGate(gate) : gate;
}
