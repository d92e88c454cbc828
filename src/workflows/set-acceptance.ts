// The acceptance check of a candidate set (DESIGN.md section 6, "Composite candidate"): one model
// call over every member's patch and head files, each path prefixed by its repository, within the
// Change's budget and the same byte and file limits as one candidate. One run judges a set at its
// heads (its claim, recorded by the executor); the evidence goes to the set's planner, which writes
// each member's `Arbiter / acceptance` check and the record.
import { z } from 'zod';
import { buildAcceptanceContext } from '../acceptance/context.ts';
import { gatherHeadFiles } from '../acceptance/gather.ts';
import { renderAcceptanceCheck } from '../acceptance/render.ts';
import { runAcceptance } from '../acceptance/run.ts';
import { setMaterial, type SetMemberMaterial } from '../acceptance/set-material.ts';
import { refText, setHeadsKey, type SetRecord } from '../core/candidate-set.ts';
import { headsOf, setWantsAcceptance, type SetAcceptanceView, type SetView } from '../core/plan/candidate-set.ts';
import type { AcceptanceEvidence, Criterion } from '../core/types.ts';
import { candidateSetAcceptanceKey } from '../core/keys.ts';
import { budgetTaker } from './acceptance.ts';
import { otherRepoContext, type RepoContext } from './context.ts';
import { criteriaHash } from './evidence.ts';
import { executePlan } from './execute.ts';
import type { PatchOf } from './set-changes.ts';

/** How the evidence reads on a member's check (no links: each member's head lives in its own repository). */
const shown = (evidence: AcceptanceEvidence, criteria: Criterion[]): SetAcceptanceView['shown'] => {
  const r = renderAcceptanceCheck(evidence, criteria, {});
  return { conclusion: r.conclusion, title: r.title, summary: r.summary, text: r.text };
};

const Judge = z.object({ token: z.string() });

/**
 * Whether this run judges the set (`key`: its heads and criteria): the executor records the first
 * run's token under the key, once; a later run under that token (a retry) holds it too.
 */
async function holdsJudgement(ctx: RepoContext, key: string): Promise<boolean> {
  const { results } = await executePlan(ctx, [{ kind: 'record', key, value: { token: ctx.token } }]);
  return Judge.safeParse(results.get(key)).data?.token === ctx.token;
}

/**
 * The set's acceptance for its members' heads now: the stored evidence when it judged these heads,
 * else (a candidate whose every member's required checks passed) one new judgement; null when the
 * set is not judged (composing, not a candidate, its gate not passed, or a member's patch unreadable).
 */
export async function setAcceptanceView(
  ctx: RepoContext,
  view: SetView,
  stored: SetRecord | null,
  known: Map<string, RepoContext | null>,
  patchOf: PatchOf,
): Promise<SetAcceptanceView | null> {
  const cctx = await otherRepoContext(ctx, view.change.repo, known);
  const change = cctx === null ? null : await cctx.deps.store.getChange(cctx.key, view.change.number);
  if (cctx === null || change === null) return null;
  const heads = setHeadsKey(headsOf(view));
  if (stored?.acceptance?.heads === heads)
    return { heads, evidence: stored.acceptance.evidence, shown: shown(stored.acceptance.evidence, change.criteria) };
  if (!setWantsAcceptance(view)) return null;
  const material: SetMemberMaterial[] = [];
  const modelCriteria = change.criteria.some((c) => c.check === null);
  for (const m of view.members) {
    const mctx = await otherRepoContext(ctx, m.ref.repo, known);
    if (mctx === null || m.pull === null || m.base === undefined) return null;
    const patch = await patchOf(m);
    if (patch === null) return null;
    // Each member's files by its own repository's `acceptance.alwaysInclude`; the limits are the Change's.
    const headFiles = modelCriteria
      ? await gatherHeadFiles((input) => mctx.gh.readHead(input), {
          sha: m.pull.headSha,
          patch,
          config: { ...cctx.config.acceptance, alwaysInclude: mctx.config.acceptance.alwaysInclude },
        })
      : new Map();
    material.push({ repo: m.ref.repo, pr: m.ref.number, headSha: m.pull.headSha, patch, headFiles });
  }
  // One run judges the set at these heads and criteria, as one run judges a single candidate's head:
  // two deliveries at once (two replicas, or a redelivery) would call the model twice and record two
  // judgements. Claimed once the material is read, so a run that gave up above holds nothing; a retry
  // of the claimant (its token) continues, and any other run leaves the set unjudged for now (the
  // claimant's record brings the evidence, and the round goes on from it).
  const key = candidateSetAcceptanceKey(view.change.repo, view.change.number, view.name, heads, criteriaHash(change));
  if (!(await holdsJudgement(cctx, key))) {
    ctx.log.info({ set: view.name, change: refText(view.change) }, 'candidate set: another run judges these heads');
    return null;
  }
  const joined = setMaterial(material);
  const members = view.members.map((m) => refText(m.ref));
  const evidence = await runAcceptance({
    candidate: view.members[0]?.ref.number ?? 0,
    set: { name: view.name, members },
    criteria: change.criteria,
    context: buildAcceptanceContext({ ...joined, config: cctx.config.acceptance }),
    changeTitle: change.title,
    checks: view.members.flatMap((m) => m.checks ?? []),
    config: cctx.config.acceptance,
    llm: ctx.deps.llm,
    takeBudget: budgetTaker(cctx, view.change.number),
  });
  ctx.log.info({ set: view.name, change: refText(view.change), status: evidence.status }, 'candidate set judged');
  return { heads, evidence, shown: shown(evidence, change.criteria) };
}
