// GitHub's side of the configuration: `.github/arbiter.yml` as raw text, the layers Probot's
// config plugin resolves (`_extends`, the organisation's `.github`), the `Arbiter / config` check
// runs, and which commit is a branch's head. Every failure is a GitHubError; the caller parses.
import { z } from 'zod';
import type { ConfigPort, ConfigRunBody } from '../config/port.ts';
import type { Octokit } from '../deps.ts';
import { callGitHub, wrapGitHubError } from './errors.ts';
import { CONFIG_PATH } from '../core/config-file.ts';
import { fitBytes } from '../core/render/byte-limit.ts';

const RawText = z.union([z.string(), z.instanceof(ArrayBuffer).transform((bytes) => new TextDecoder().decode(bytes))]);
const RepoInfo = z.object({ default_branch: z.string() });
const BranchHead = z.object({ commit: z.object({ sha: z.string() }) });

const statusOf = (error: unknown): number | null => {
  const parsed = z.object({ status: z.number() }).safeParse(error);
  return parsed.success ? parsed.data.status : null;
};

/** The summary within GitHub's 65,535 bytes (it counts bytes; config errors may quote any text). */
const withinBytes = (body: ConfigRunBody): ConfigRunBody => ({
  ...body,
  output: { ...body.output, summary: fitBytes(body.output.summary) },
});

/** The config port over an installation's Octokit. */
export function configReads(octokit: Octokit): ConfigPort {
  return {
    async readConfigText({ owner, repo, ref }) {
      try {
        const response = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
          owner,
          repo,
          path: CONFIG_PATH,
          mediaType: { format: 'raw' },
          ...(ref === undefined ? {} : { ref }),
        });
        // GitHub labels raw files `application/vnd.github.raw; charset=utf-8` (text); without the
        // charset Octokit hands over bytes. A JSON answer (directory listing, submodule) is no file.
        const text = RawText.safeParse(response.data);
        return text.success ? text.data : 'not a file';
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw wrapGitHubError(`read ${CONFIG_PATH} of ${owner}/${repo}`, error);
      }
    },
    async readConfigLayers({ owner, repo, ref }) {
      try {
        return {
          ok: true,
          files: (
            await octokit.config.get({ owner, repo, path: CONFIG_PATH, ...(ref === undefined ? {} : { branch: ref }) })
          ).files,
        };
      } catch (error) {
        if (statusOf(error) !== null) throw wrapGitHubError(`read the configuration of ${owner}/${repo}`, error);
        // The plugin throws plain errors for content problems: bad YAML, a bad `_extends`, a loop.
        const message = error instanceof Error ? error.message : String(error);
        return { ok: false, message: message.replace(/^\[@probot\/octokit-plugin-config\]\s*/, '') };
      }
    },
    async listCheckRunsNamed({ owner, repo, sha, name }) {
      const response = await callGitHub(`list ${name} runs on ${sha}`, () =>
        octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
          owner,
          repo,
          ref: sha,
          check_name: name,
        }),
      );
      return response.data;
    },
    async createConfigRun({ owner, repo, sha }, body) {
      await callGitHub(`create ${body.name} on ${sha}`, () =>
        octokit.request('POST /repos/{owner}/{repo}/check-runs', { owner, repo, head_sha: sha, ...withinBytes(body) }),
      );
    },
    async updateConfigRun({ owner, repo, id }, body) {
      await callGitHub(`update ${body.name}`, () =>
        octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
          owner,
          repo,
          check_run_id: id,
          ...withinBytes(body),
        }),
      );
    },
    async defaultBranch({ owner, repo }) {
      const response = await callGitHub(`read ${owner}/${repo}`, () =>
        octokit.request('GET /repos/{owner}/{repo}', { owner, repo }),
      );
      const parsed = RepoInfo.safeParse(response.data);
      if (!parsed.success)
        throw wrapGitHubError(`read ${owner}/${repo}`, new Error('answered without a default branch'));
      return parsed.data.default_branch;
    },
    async branchHead({ owner, repo, branch }) {
      const response = await callGitHub(`read branch ${branch} of ${owner}/${repo}`, () =>
        octokit.request('GET /repos/{owner}/{repo}/branches/{branch}', { owner, repo, branch }),
      );
      const parsed = BranchHead.safeParse(response.data);
      if (!parsed.success)
        throw wrapGitHubError(`read branch ${branch} of ${owner}/${repo}`, new Error('answered without a head commit'));
      return parsed.data.commit.sha;
    },
  };
}
