// Routes one recorded webhook delivery to the handler of its event family. Every handler first
// reads the repository's configuration and does nothing else while it is invalid. A pull request
// that changes `.github/arbiter.yml` gets the `Arbiter / config` check on its head, valid or not.
import { z } from 'zod';
import { checkConfigOnCommit, getRepoConfig } from '../config/check.ts';
import { CONFIG_PATH } from '../core/config-file.ts';
import { checkEventAsksNothing } from '../core/check-subject.ts';
import type { Deps } from '../deps.ts';
import type { GitHubPort } from '../github/port.ts';
import { deliveryToken, gatewayFor, repoContext, type RepoContext } from '../workflows/context.ts';
import { requestDashboard, scheduleDashboard } from '../workflows/dashboard.ts';
import { onCheckEvent } from './checks.ts';
import { onIssueComment, onRequestedAction, onRerun } from './commands.ts';
import { answerWhileConfigInvalid } from './config-invalid.ts';
import { onIssues } from './issues.ts';
import { onPullRequest, ownActNeedsNothing } from './pull-request.ts';
import { onPush } from './push.ts';
import { onReview } from './review.ts';

export interface Delivery {
  id: string;
  name: string; // X-GitHub-Event
  payload: Record<string, unknown>;
}

export type Handler = (ctx: RepoContext, payload: Record<string, unknown>) => Promise<void>;

/** Event families Arbiter acts on; a lookup table, so a new family is one line. */
const HANDLERS: Record<string, Handler> = {
  pull_request: onPullRequest,
  pull_request_review: onReview,
  check_run: async (ctx, payload) => {
    const action = (payload as { action?: string }).action;
    if (action === 'requested_action') return onRequestedAction(ctx, payload);
    if (action === 'rerequested') return onRerun(ctx, payload, 'check_run');
    return onCheckEvent(ctx, payload, 'check_run');
  },
  check_suite: (ctx, payload) =>
    (payload as { action?: string }).action === 'rerequested'
      ? onRerun(ctx, payload, 'check_suite')
      : onCheckEvent(ctx, payload, 'check_suite'),
  status: (ctx, payload) => onCheckEvent(ctx, payload, 'status'),
  issue_comment: onIssueComment,
  issues: onIssues,
};

const Envelope = z.object({
  installation: z.object({ id: z.number().int() }),
  repository: z.object({ name: z.string(), owner: z.object({ login: z.string() }) }),
});

/** Processes one delivery inside a durable job. Idempotent: a retry repeats no action. */
export async function handleDelivery(deps: Deps, delivery: Delivery): Promise<void> {
  const envelope = Envelope.safeParse(delivery.payload);
  if (!envelope.success) {
    deps.log.debug(
      { delivery: delivery.id, event: delivery.name },
      'delivery without installation or repository: ignored',
    );
    return;
  }
  const { installation, repository } = envelope.data;
  const owner = repository.owner.login;
  const repo = repository.name;
  const log = deps.log.child({ delivery: delivery.id, repo: `${owner}/${repo}`, event: delivery.name });
  const scoped: Deps = { ...deps, log };
  const gh = await gatewayFor(deps, installation.id, owner, repo);
  if (delivery.name === 'push') await onPush(scoped, gh, delivery.payload);
  const handler = HANDLERS[delivery.name];
  if (!handler) return;
  if (await ownActIgnored(deps, gh, `${owner}/${repo}`, delivery)) return;
  const configOfPull = () =>
    delivery.name === 'pull_request' ? checkConfigOfPull(scoped, gh, delivery.payload) : Promise.resolve();
  const config = await getRepoConfig(scoped, gh, { owner, repo });
  if (!config) {
    log.info('configuration invalid: Arbiter does nothing else for this repository until it is fixed');
    // A pull request linking a Change gets the failing check on its head; one that changes the file, its own.
    const answered = await answerWhileConfigInvalid(scoped, gh, delivery, installation.id);
    if (answered !== 'pull-checked') await configOfPull();
    // The dashboard Arbiter keeps says so too (its own edits ask for nothing more).
    if (
      !(delivery.name === 'issues' && isSender(delivery.payload, gh.botLogin)) &&
      (await deps.store.hasChanges(`${owner}/${repo}`))
    )
      await scheduleDashboard(scoped, { owner, repo, installationId: installation.id }, deps.clock.now().getTime());
    return;
  }
  const ctx = await repoContext(scoped, {
    owner,
    repo,
    installationId: installation.id,
    config,
    token: deliveryToken(delivery.id),
    gh,
  });
  // After the handler: a candidate's patch, stored by it, names the files without listing them.
  try {
    await handler(ctx, delivery.payload);
  } finally {
    await configOfPull();
  }
  // The dashboard's own edits (an `issues` event Arbiter caused) ask for nothing more.
  if (!(delivery.name === 'issues' && isSender(delivery.payload, gh.botLogin))) await requestDashboard(ctx);
}

const Sender = z.object({ sender: z.object({ login: z.string() }) });
const isSender = (payload: unknown, login: string): boolean => {
  const parsed = Sender.safeParse(payload);
  return parsed.success && parsed.data.sender.login === login;
};

/**
 * A webhook of Arbiter's own act that its handler would ignore, known before the configuration is
 * read (a push just dropped its cache, and every job would read it again): its comments, events of
 * its own check runs (and checks merely queued or started), and its own acts on a pull request that
 * ask for nothing (`ownActNeedsNothing`). No dashboard request either: the job that acted asks for
 * one itself.
 */
async function ownActIgnored(deps: Deps, gh: GitHubPort, key: string, delivery: Delivery): Promise<boolean> {
  if (delivery.name === 'issue_comment') return isSender(delivery.payload, gh.botLogin);
  // A check event that reads no head (Arbiter's own check, or one queued or started); a click on
  // a check-run button goes on to its handler.
  if (checkEventAsksNothing(delivery.name, delivery.payload, deps.appSlug)) return true;
  if (delivery.name === 'pull_request') return ownActNeedsNothing(deps.store, key, gh.botLogin, delivery.payload);
  return false;
}

const PullWithHead = z.object({
  action: z.string(),
  pull_request: z.object({
    number: z.number(),
    head: z.object({ sha: z.string(), ref: z.string() }),
    state: z.string(),
  }),
});

/**
 * A pull request that changes `.github/arbiter.yml` gets the `Arbiter / config` check on its head.
 * Its files: those of the patch Arbiter stored for that head (a candidate's), else GitHub's list.
 */
async function checkConfigOfPull(deps: Deps, gh: GitHubPort, payload: unknown): Promise<void> {
  const parsed = PullWithHead.safeParse(payload);
  if (
    !parsed.success ||
    !['opened', 'synchronize', 'reopened'].includes(parsed.data.action) ||
    parsed.data.pull_request.state !== 'open'
  )
    return;
  const pr = parsed.data.pull_request;
  const stored = await deps.store.getPatch(`${gh.owner}/${gh.repo}`, pr.number, pr.head.sha);
  const files = stored ? stored.files.map((f) => f.path) : await gh.pullFileNames(pr.number);
  if (!files.includes(CONFIG_PATH)) return;
  await checkConfigOnCommit(deps, gh, {
    owner: gh.owner,
    repo: gh.repo,
    sha: pr.head.sha,
    ref: pr.head.ref,
    pullRequest: true,
  });
}
