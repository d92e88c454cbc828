// Trust in the shell: reads an account's permission (cached briefly, on the app clock), records
// a maintainer's adoption of an issue or admission of a pull request (planned in core/plan/trust.ts,
// applied by the executor), shows a linked PR that is not a candidate its one neutral check, and
// finds what makes a head unpromotable outside CI.
import { z } from 'zod';
import { formatConfigError } from '../config/errors.ts';
import { CONFIG_PATH } from '../core/config-file.ts';
import { parseConfigText } from '../config/parse.ts';
import {
  changeStanding,
  notCandidateCheck,
  trustedWithoutLookup,
  trustOf,
  untrackedChangeCheck,
  type Permission,
  type PermissionLookup,
  type Standing,
  type Trust,
} from '../core/trust.ts';
import { slotOf } from '../core/portfolio.ts';
import { singleFlight } from '../single-flight.ts';
import type { CandidateRow } from '../store/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { checkAction } from '../core/actions.ts';
import { recordNotCompared } from './not-compared.ts';
import { planAdmission, planAdoption, planHeadConfig, planLinkRecord, planSelectionLabel } from '../core/plan/trust.ts';
import {
  headConfigKey,
  trustAdmittedHeadKey,
  trustAdmittedKey,
  trustAdoptedKey,
  trustLinkedKey,
  trustSelectionLabelKey,
} from '../core/keys.ts';

/** How long a permission read stays good: short, so a removed collaborator loses trust soon. */
export const PERMISSION_TTL_MS = 60_000;

// Keyed by the store: one cache per app process (and per test world), never shared across them.
const caches = new WeakMap<object, Map<string, { permission: Permission; at: number }>>();
const permissionFlight = singleFlight<PermissionLookup>();

/**
 * The account's permission, from the cache while it is fresh; a failed read is not cached.
 * Concurrent misses in this process share one read.
 */
export async function lookupPermission(ctx: RepoContext, login: string): Promise<PermissionLookup> {
  let cache = caches.get(ctx.deps.store);
  if (!cache) caches.set(ctx.deps.store, (cache = new Map()));
  const key = `${ctx.key}\u0000${login.toLowerCase()}`;
  const now = ctx.deps.clock.now().getTime();
  const hit = cache.get(key);
  if (hit && now >= hit.at && now - hit.at < PERMISSION_TTL_MS) return { ok: true, permission: hit.permission };
  const entries = cache;
  return permissionFlight(ctx.deps.store, `permission\u0000${key}`, async () => {
    const result = await ctx.gh.permissionLookup(login);
    if (result.ok) entries.set(key, { permission: result.permission, at: now });
    return result;
  });
}

/** Whether Arbiter acts for `login` here (Arbiter itself, `trust.agents`, or write access and more). */
export async function trustOfLogin(ctx: RepoContext, login: string, isBot = false): Promise<Trust> {
  const account = { login, isBot };
  const policy = { agents: [...ctx.config.trust.agents, ...(ctx.deps.trustedAgents ?? [])], appLogin: ctx.gh.botLogin };
  const known = trustedWithoutLookup(account, policy);
  if (known) return known;
  return trustOf(account, login === '' ? null : await lookupPermission(ctx, login), policy);
}

const ByWhom = z.object({ by: z.string() });
const adoptedKey = (ctx: RepoContext, issue: number): string => trustAdoptedKey(ctx.key, issue);
const admittedKey = (ctx: RepoContext, pr: number): string => trustAdmittedKey(ctx.key, pr);

async function recordedBy(ctx: RepoContext, key: string): Promise<string | null> {
  const parsed = ByWhom.safeParse(await ctx.deps.store.getAppliedAction(key));
  return parsed.success ? parsed.data.by : null;
}

export const adoptedBy = (ctx: RepoContext, issue: number): Promise<string | null> =>
  recordedBy(ctx, adoptedKey(ctx, issue));

const admittedHeadKey = (ctx: RepoContext, pr: number, headSha: string, change: number | null): string =>
  trustAdmittedHeadKey(ctx.key, pr, headSha, change);

/** Who admitted this head for this Change, or null: an admission covers the code vouched for, not the PR. */
export const admittedBy = (ctx: RepoContext, pr: number, headSha: string, change: number): Promise<string | null> =>
  recordedBy(ctx, admittedHeadKey(ctx, pr, headSha, change));

/** Whether a maintainer ever admitted the pull request (any head). */
export const wasAdmitted = async (ctx: RepoContext, pr: number): Promise<boolean> =>
  (await recordedBy(ctx, admittedKey(ctx, pr))) !== null;

const labelledKey = (ctx: RepoContext, pr: number): string => trustSelectionLabelKey(ctx.key, pr);

/** Who added the selection label (a trusted account), or null: an untrusted sender's label does not count. */
export const selectionLabelBy = (ctx: RepoContext, pr: number): Promise<string | null> =>
  recordedBy(ctx, labelledKey(ctx, pr));

/** Records that a trusted account added the selection label (the first one is kept). */
export async function recordSelectionLabel(ctx: RepoContext, pr: number, by: string): Promise<void> {
  await executePlan(ctx, planSelectionLabel({ repo: ctx.key, pr, by }));
}

const Linked = z.object({ by: z.string(), change: z.number().int().positive() });

/** The Change a trusted account linked the pull request to with `/arbiter link #N`, and who did, or null. */
export async function manualLink(ctx: RepoContext, pr: number): Promise<z.infer<typeof Linked> | null> {
  const parsed = Linked.safeParse(await ctx.deps.store.getAppliedAction(trustLinkedKey(ctx.key, pr)));
  return parsed.success ? parsed.data : null;
}

/**
 * Records a trusted account's `/arbiter link #N`, and logs it. The PR's first link stands: the
 * ledger keeps a first record (as it did before this was a plan), so a later link is logged only.
 */
export async function recordLink(ctx: RepoContext, pr: number, link: z.infer<typeof Linked>): Promise<void> {
  await executePlan(ctx, planLinkRecord({ repo: ctx.key, pr, ...link }, nowIso(ctx)));
}

/** Records that a trusted account adopted the issue (the first adoption is kept). */
export async function recordAdoption(
  ctx: RepoContext,
  issue: number,
  by: string,
  via: 'label' | 'command',
): Promise<void> {
  await executePlan(ctx, planAdoption({ repo: ctx.key, issue, by, via }, nowIso(ctx)));
}

/**
 * Records that a trusted account admitted this head of the pull request for this Change (null:
 * it links none, so it covers nothing); each head needs its own admission.
 */
export async function recordAdmission(
  ctx: RepoContext,
  pr: number,
  a: { by: string; headSha: string; change: number | null },
): Promise<void> {
  await executePlan(ctx, planAdmission({ repo: ctx.key, pr, ...a }, nowIso(ctx)));
}

/** Whether the issue is a Change: opened by a trusted account, or adopted by one. */
export async function issueStanding(ctx: RepoContext, issue: number, author: string): Promise<Standing> {
  return changeStanding(await trustOfLogin(ctx, author), await adoptedBy(ctx, issue));
}

interface LinkedPull {
  number: number;
  headSha: string;
}

const neutral = async (ctx: RepoContext, pull: LinkedPull, text: { title: string; summary: string }): Promise<void> => {
  // The check's key is its content on this head: one write per head at most.
  await executePlan(ctx, [
    checkAction(ctx.key, {
      pr: pull.number,
      headSha: pull.headSha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      ...text,
    }),
  ]);
};

/** The one neutral check of a linked PR whose author Arbiter does not act for. */
export async function showNotCandidate(
  ctx: RepoContext,
  pull: LinkedPull & { author: string; body?: string | null },
  change: number,
  standing: Standing & { counts: false },
): Promise<void> {
  ctx.log.info(
    { pr: pull.number, author: pull.author, reason: standing.reason },
    'linked pull request is not a candidate',
  );
  const text = notCandidateCheck({
    login: pull.author,
    reason: standing.reason,
    lookupFailed: standing.lookupFailed,
    prefix: ctx.config.commands.prefix,
    change,
    ...(standing.trustWith ? { trustWith: standing.trustWith } : {}),
  });
  await neutral(ctx, pull, text);
  // The comparison on the Change names it, with the same way in; a failed lookup is retried, not named.
  const slot = slotOf(pull.body);
  if (!standing.lookupFailed)
    await recordNotCompared(ctx, change, {
      pr: pull.number,
      author: pull.author,
      reason: standing.reason,
      ...(standing.trustWith ? { trustWith: standing.trustWith } : {}),
      ...(slot !== null ? { slot } : {}),
    });
}

/** The one neutral check of an admitted PR whose new head nobody admitted: it left the comparison. */
export async function showUnadmittedHead(
  ctx: RepoContext,
  pull: LinkedPull & { author: string },
  change: number,
): Promise<void> {
  const prefix = ctx.config.commands.prefix;
  await neutral(ctx, pull, {
    title: `Not a candidate: this new head is not admitted; a maintainer can admit it with \`${prefix} admit\``,
    summary:
      `A maintainer admitted an earlier head of this pull request for #${change}, but @${pull.author} has no write access ` +
      `here and an admission covers only the code it vouched for. This head is not compared with its siblings until a ` +
      `maintainer runs \`${prefix} admit\` on it.`,
  });
  await recordNotCompared(ctx, change, {
    pr: pull.number,
    author: pull.author,
    reason: `its new head is not admitted (@${pull.author} has no write access here, and an admission covers only the head it vouched for)`,
  });
}

/** The one neutral check of a linked PR whose Change Arbiter does not track. */
export async function showUntrackedChange(
  ctx: RepoContext,
  pull: LinkedPull,
  change: number,
  standing: Standing & { counts: false },
): Promise<void> {
  await neutral(
    ctx,
    pull,
    untrackedChangeCheck({ change, reason: standing.reason, prefix: ctx.config.commands.prefix }),
  );
}

const HeadConfig = z.object({ error: z.string().nullable() });

/**
 * What makes this head unpromotable besides its checks: a `.github/arbiter.yml` it changes that
 * does not validate (a candidate must not ship a gatekeeper Arbiter cannot read). Read once per head.
 */
export async function headBlockers(
  ctx: RepoContext,
  candidate: Pick<CandidateRow, 'pr' | 'headSha'>,
): Promise<string[]> {
  const { store } = ctx.deps;
  const patch = await store.getPatch(ctx.key, candidate.pr, candidate.headSha);
  if (!patch || !patch.files.some((f) => f.path === CONFIG_PATH && f.status !== 'removed')) return [];
  const key = headConfigKey(ctx.key, candidate.headSha);
  const known = HeadConfig.safeParse(await store.getAppliedAction(key));
  let error: string | null;
  if (known.success) error = known.data.error;
  else {
    const text = await ctx.gh.readFile(CONFIG_PATH, candidate.headSha);
    const parsed = text === null ? null : parseConfigText(text);
    error =
      parsed && !parsed.ok
        ? `\`${CONFIG_PATH}\` on this head does not validate: ${parsed.errors.slice(0, 3).map(formatConfigError).join('; ')}`
        : null;
    await executePlan(ctx, planHeadConfig({ repo: ctx.key, headSha: candidate.headSha, error }));
  }
  return error === null ? [] : [error];
}
