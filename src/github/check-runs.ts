// Arbiter's own check runs on a head, beside the gateway: finding one by name, and creating or
// updating one (annotations beyond GitHub's 50 a request sent in further updates).
// Every Octokit error becomes a GitHubError here.
import { z } from 'zod';
import type { CheckRunName } from '../core/actions.ts';
import type { Octokit } from '../deps.ts';
import { callGitHub } from './errors.ts';
import type { CheckRunWrite } from './port.ts';
import { fitBytes } from '../core/render/byte-limit.ts';

/** The client, the repository, the app, and the own check-run names on each head read whole. */
export interface CheckRunClient {
  octokit: Octokit;
  owner: string;
  repo: string;
  appSlug: string;
  /** Arbiter's own check-run names on each head the gateway read whole in a group query. */
  ownChecksSeen: Map<string, Set<string>>;
}

const CheckRun = z.object({
  id: z.number(),
  name: z.string(),
  app: z.object({ slug: z.string() }).nullable().optional(),
});

/**
 * Arbiter's own check run of that name on a sha, if one exists. A head the gateway (one job's)
 * read in a group query, with no run of that name on it, is known to have none: no request.
 */
export async function findCheckRun(gh: CheckRunClient, sha: string, name: CheckRunName): Promise<number | null> {
  const seen = gh.ownChecksSeen.get(sha);
  if (seen && !seen.has(name)) return null;
  const { data } = await callGitHub('list check runs', () =>
    gh.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
      owner: gh.owner,
      repo: gh.repo,
      ref: sha,
      check_name: name,
      per_page: 100,
    }),
  );
  const parsed = z.object({ check_runs: z.array(CheckRun) }).safeParse(data);
  if (!parsed.success) return null;
  const mine = parsed.data.check_runs.filter((r) => r.name === name && (!r.app || r.app.slug === gh.appSlug));
  return mine.length > 0 ? Math.max(...mine.map((r) => r.id)) : null;
}

export async function writeCheckRun(gh: CheckRunClient, input: CheckRunWrite): Promise<number> {
  const output = {
    title: input.title.slice(0, 250),
    // GitHub counts bytes (65,535), not characters: cut on a character boundary, saying so.
    summary: fitBytes(input.summary),
    ...(input.text !== undefined ? { text: fitBytes(input.text) } : {}),
    annotations: input.annotations?.slice(0, 50),
  };
  const body = {
    owner: gh.owner,
    repo: gh.repo,
    name: input.name,
    status: input.status,
    ...(input.status === 'completed' ? { conclusion: input.conclusion ?? ('neutral' as const) } : {}),
    output,
    // Without buttons, none: an update that leaves `actions` out keeps the earlier ones on GitHub.
    actions: input.buttons ?? [],
    ...(input.detailsUrl ? { details_url: input.detailsUrl } : {}),
  };
  let id = input.id;
  if (id === null) {
    // From now on a run of this name may exist on the head (an answer lost on the way back):
    // a later look asks GitHub.
    gh.ownChecksSeen.get(input.sha)?.add(input.name);
    const { data } = await callGitHub('create check run', () =>
      gh.octokit.request('POST /repos/{owner}/{repo}/check-runs', { ...body, head_sha: input.sha }),
    );
    id = z.object({ id: z.number() }).parse(data).id;
  } else {
    const checkRunId = id;
    await callGitHub('update check run', () =>
      gh.octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
        ...body,
        check_run_id: checkRunId,
      }),
    );
  }
  // GitHub takes at most 50 annotations a request: send the rest in further updates.
  const rest = input.annotations?.slice(50) ?? [];
  for (let i = 0; i < rest.length; i += 50) {
    const checkRunId = id;
    await callGitHub('annotate check run', () =>
      gh.octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
        owner: gh.owner,
        repo: gh.repo,
        check_run_id: checkRunId,
        output: { title: output.title, summary: output.summary, annotations: rest.slice(i, i + 50) },
      }),
    );
  }
  return id;
}
