// issues: a trusted account's `trust.changeLabel` adopts the issue as a Change; editing a Change's
// body re-parses the criteria from the body that edit wrote (only when the editor is trusted: an
// untrusted edit gets a short reply and changes nothing); when they changed, acceptance runs again for its open candidates.
// A trusted person closing the Change cancels it; reopening it lets its rounds resume.
import { z } from 'zod';
import { editChangesCriteria, isBotAccount } from '../core/trust.ts';
import { markerFor } from '../core/render/markers.ts';
import { refreshChange } from '../workflows/changes.ts';
import type { RepoContext } from '../workflows/context.ts';
import { executePlan } from '../workflows/execute.ts';
import { closeChangeByPerson, judgeAgainForCriteria, reopenChangeByPerson } from '../workflows/change-state.ts';
import { recordAdoption, trustOfLogin } from '../workflows/trust.ts';

const Payload = z.object({
  action: z.string(),
  issue: z.object({
    number: z.number().int(),
    pull_request: z.unknown().optional(),
    title: z.string().optional(),
    body: z.string().nullable().optional(),
    state: z.string().optional(),
  }),
  label: z.object({ name: z.string() }).optional(),
  changes: z.object({ body: z.unknown().optional() }).optional(),
  sender: z.object({ login: z.string(), type: z.string().optional() }).optional(),
});

export async function onIssues(ctx: RepoContext, payload: Record<string, unknown>): Promise<void> {
  const parsed = Payload.safeParse(payload);
  if (!parsed.success || parsed.data.issue.pull_request) return;
  const { action, issue, label, sender, changes } = parsed.data;
  if (action === 'labeled') return onLabeled(ctx, issue.number, label?.name ?? null, sender ?? null);
  if ((action === 'closed' || action === 'reopened') && sender && sender.login !== ctx.gh.botLogin) {
    const who = await trustOfLogin(ctx, sender.login, isBotAccount(sender));
    if (!who.trusted) {
      ctx.log.info(
        { issue: issue.number, sender: sender.login, reason: who.reason },
        `Change ${action} by an untrusted sender: its rounds go on`,
      );
      return;
    }
    return action === 'closed'
      ? closeChangeByPerson(ctx, issue.number, sender.login)
      : reopenChangeByPerson(ctx, issue.number);
  }
  // Only a body edit re-parses, and only the body that edit wrote (never the live body, which a
  // later untrusted edit may hold): criteria come only from bodies trusted accounts wrote.
  if (action !== 'edited' || changes?.body === undefined || issue.body === undefined || !sender) return;
  const { store } = ctx.deps;
  const number = issue.number;
  const before = await store.getChange(ctx.key, number);
  if (!before) return;
  if (sender.login !== ctx.gh.botLogin) {
    const editor = await trustOfLogin(ctx, sender.login, isBotAccount(sender));
    if (!editChangesCriteria(editor)) return replyUntrustedEdit(ctx, number, editor.trusted ? '' : editor.reason);
  }
  const written = {
    number,
    title: issue.title ?? before.title,
    body: issue.body,
    state: issue.state ?? 'open',
    user: null,
  };
  const after = await refreshChange(ctx, number, written);
  if (!after || JSON.stringify(after.criteria) === JSON.stringify(before.criteria)) return;
  await judgeAgainForCriteria(ctx, number);
}

/** The adoption label, added by a trusted account, makes the issue a Change. */
async function onLabeled(
  ctx: RepoContext,
  number: number,
  name: string | null,
  sender: { login: string; type?: string } | null,
): Promise<void> {
  if (name === null || name !== ctx.config.trust.changeLabel || !sender || sender.login === ctx.gh.botLogin) return;
  const who = await trustOfLogin(ctx, sender.login, isBotAccount(sender));
  if (!who.trusted) {
    ctx.log.info(
      { issue: number, sender: sender.login, reason: who.reason },
      'adoption label from an untrusted sender: ignored',
    );
    return;
  }
  await recordAdoption(ctx, number, sender.login, 'label');
  if (!(await ctx.deps.store.getChange(ctx.key, number))) await refreshChange(ctx, number);
}

/** One short reply per edit: the criteria stay as they were. */
async function replyUntrustedEdit(ctx: RepoContext, number: number, reason: string): Promise<void> {
  const marker = `trust-edit:${ctx.token}`;
  const body =
    `${markerFor(marker)}\nThe acceptance criteria of this Change did not change: ${reason}. ` +
    'Arbiter reads the criteria only from edits by accounts with write access; a maintainer can make the edit.';
  await executePlan(ctx, [{ kind: 'comment', key: `${ctx.key}/${marker}`, issue: number, marker, body }]);
}
