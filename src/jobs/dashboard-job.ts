// The `dashboard` job: refreshes one repository's dashboard issue when its minute comes (sent by
// src/workflows/dashboard.ts after deliveries). It reads the repository's config like a delivery.
import { getRepoConfig } from '../config/check.ts';
import type { Deps } from '../deps.ts';
import { gatewayFor, repoContext } from '../workflows/context.ts';
import { DashboardJobData, refreshDashboard } from '../workflows/dashboard.ts';
import type { JobHandler } from './queue.ts';

export { DASHBOARD_QUEUE } from '../workflows/dashboard.ts';

export const dashboardJob =
  (deps: Deps): JobHandler =>
  async (job) => {
    const data = DashboardJobData.safeParse(job.data);
    if (!data.success) {
      job.log.error({ data: job.data }, 'dashboard job without a repository: dropped');
      return;
    }
    const { owner, repo, installationId } = data.data;
    const scoped: Deps = { ...deps, log: job.log };
    const gh = await gatewayFor(scoped, installationId, owner, repo);
    const config = await getRepoConfig(scoped, gh, { owner, repo });
    if (!config) return; // an invalid config: Arbiter does nothing for the repository until it is fixed
    // The job's id names the run: a retry of it continues its own claim of the minute.
    const ctx = await repoContext(scoped, { owner, repo, installationId, config, token: `dashboard:${job.id}`, gh });
    const result = await refreshDashboard(ctx);
    job.log.debug({ repo: ctx.key, result }, 'dashboard refreshed');
  };
