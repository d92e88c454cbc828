// The `dashboard` job: refreshes one repository's dashboard issue when its minute comes (sent by
// src/workflows/dashboard.ts after deliveries). It reads the repository's config like a delivery.
import { getRepoConfig } from '../config/check.ts';
import { defaultConfig } from '../config/schema.ts';
import type { Deps } from '../deps.ts';
import { gatewayFor, repoContext } from '../workflows/context.ts';
import { DashboardJobData, refreshDashboard, scheduleAfterBlock } from '../workflows/dashboard.ts';
import type { JobHandler } from './queue.ts';
import type { InstallationBlocks } from '../github/rate-limit.ts';
import { dashboardJobToken } from '../core/keys.ts';

export { DASHBOARD_QUEUE } from '../workflows/dashboard.ts';

/**
 * `blocks` is the app's one record of installations waiting out a rate limit (shared with the
 * delivery job): a blocked installation's refresh is a job for the end of the wait, asked for
 * before anything is read from GitHub.
 */
export const dashboardJob =
  (deps: Deps, blocks?: InstallationBlocks): JobHandler =>
  async (job) => {
    const data = DashboardJobData.safeParse(job.data);
    if (!data.success) {
      job.log.error({ data: job.data }, 'dashboard job without a repository: dropped');
      return;
    }
    const { owner, repo, installationId } = data.data;
    const blocked = blocks?.blockedUntil(installationId, deps.clock.now());
    if (blocked) {
      job.log.info(
        { repo: `${owner}/${repo}`, until: blocked.toISOString() },
        'installation waits out a rate limit: dashboard deferred',
      );
      await scheduleAfterBlock(deps, data.data, blocked);
      return;
    }
    const scoped: Deps = { ...deps, log: job.log };
    const gh = await gatewayFor(scoped, installationId, owner, repo);
    const config = await getRepoConfig(scoped, gh, { owner, repo });
    // The job's id names the run: a retry of it continues its own claim of the minute, and so
    // does the job a rate limit deferred it to (its `run`).
    const token = data.data.run ?? dashboardJobToken(job.id);
    // An invalid config: Arbiter acts on nothing, but the dashboard it already keeps says what is
    // wrong (with the defaults, since the file cannot be read; it opens no new issue then).
    const ctx = await repoContext(scoped, {
      owner,
      repo,
      installationId,
      config: config ?? defaultConfig(),
      token,
      gh,
    });
    const result = await refreshDashboard(ctx, blocks, { openNone: config === null });
    job.log.debug({ repo: ctx.key, result }, 'dashboard refreshed');
  };
