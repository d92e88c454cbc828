// Fetches a candidate's patch and merge base from GitHub, once per head sha: in one request from
// the comparison base...head when its file list is complete, else the `.diff` of the pull request,
// or (when GitHub refuses it as too large, or it is over the byte bound) one assembled from the
// PR's file pages, marked truncated where it is cut. Every failure is a GitHubError.
import { z } from 'zod';
import type { PatchRow } from '../store/types.ts';
import { cutAtLineWithinBytes } from '../core/render/byte-limit.ts';
import { parseUnifiedDiff } from '../core/unified-diff.ts';
import { callGitHub, GitHubError, wrapGitHubError } from './errors.ts';
import type { PatchTarget } from './port.ts';

/** The part of an @octokit/core client this module uses. */
export interface RestClient {
  request(route: string, params?: Record<string, unknown>): Promise<{ data: unknown }>;
}

/** Default bound on a stored patch; the model receives much less (acceptance.maxBytes). */
export const PATCH_MAX_BYTES = 1_000_000;
const FILES_PER_PAGE = 100;
/** GitHub lists at most 3,000 files of a pull request. */
const MAX_FILE_PAGES = 30;
export const TRUNCATION_MARK = '\\ Arbiter: patch truncated here';

/** The three reads of a patch, each its own operation in a GitHubError. */
const OPERATION = {
  'merge-base': 'fetch patch: compare base...head',
  diff: 'fetch patch: the pull request diff',
  files: 'fetch patch: the pull request files',
} as const;
type Step = keyof typeof OPERATION;

/** An answer GitHub gave in a shape this module cannot read (no HTTP status to report). */
const unreadable = (step: Step, message: string): GitHubError => new GitHubError(OPERATION[step], 0, message, null);

const FileEntry = z.object({
  filename: z.string(),
  status: z.string(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  patch: z.string().optional(),
  previous_filename: z.string().optional(),
});
type FileEntry = z.infer<typeof FileEntry>;
const FilesPage = z.array(FileEntry);
const Compare = z.object({ merge_base_commit: z.object({ sha: z.string() }), files: z.unknown().optional() });
/** GitHub lists at most 300 files in a comparison (and gives no way to page through more). */
const COMPARE_MAX_FILES = 300;
const PLAIN_STATUSES = new Set(['added', 'removed', 'modified', 'renamed']);

/** A pull request's patch target in its repository. */
type RepoPatchTarget = PatchTarget & { owner: string; repo: string };

const call = (octokit: RestClient, step: Step, route: string, params: Record<string, unknown>): Promise<unknown> =>
  callGitHub(OPERATION[step], async () => (await octokit.request(route, params)).data);

/** The diff in GitHub's `.diff` format, or null when GitHub says it is too large (406). */
const fetchDiff = async (octokit: RestClient, t: RepoPatchTarget): Promise<string | null> => {
  let data: unknown;
  try {
    data = (
      await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        owner: t.owner,
        repo: t.repo,
        pull_number: t.pr,
        mediaType: { format: 'diff' },
      })
    ).data;
  } catch (err) {
    const wrapped = wrapGitHubError(OPERATION.diff, err);
    if (wrapped.status === 406) return null;
    throw wrapped;
  }
  const diff = z.string().safeParse(data);
  if (!diff.success) throw unreadable('diff', 'GitHub answered the diff with something other than text');
  return diff.data;
};

const fileHeader = (f: FileEntry): string => {
  const old = f.previous_filename ?? f.filename;
  const lines = [`diff --git a/${old} b/${f.filename}`];
  if (f.status === 'added') lines.push('new file mode 100644');
  if (f.status === 'removed') lines.push('deleted file mode 100644');
  if (f.previous_filename) lines.push(`rename from ${f.previous_filename}`, `rename to ${f.filename}`);
  return `${lines.join('\n')}\n`;
};

const fileBody = (f: FileEntry): string => {
  const old = f.status === 'added' ? '/dev/null' : `a/${f.previous_filename ?? f.filename}`;
  const neu = f.status === 'removed' ? '/dev/null' : `b/${f.filename}`;
  return `--- ${old}\n+++ ${neu}\n${f.patch ?? ''}\n`;
};

type Assembled = { patch: string; truncated: boolean; files: PatchRow['files'] };

/**
 * Assembles a patch from file entries (a file page, or a comparison), cut at `maxBytes`; binary
 * files are named, their content never sent.
 */
const patchBuilder = (maxBytes: number) => {
  const parts: string[] = [];
  const files: PatchRow['files'] = [];
  let bytes = 0;
  let truncated = false;
  const add = (f: FileEntry): void => {
    // A file renamed and not changed has no patch either, and is not binary.
    const pureRename = f.status === 'renamed' && f.additions + f.deletions === 0;
    const binary = f.patch === undefined && f.additions + f.deletions === 0 && !pureRename;
    files.push({ path: f.filename, status: f.status, additions: f.additions, deletions: f.deletions, binary });
    const header = fileHeader(f);
    let body: string;
    if (binary) body = `Binary files a/${f.filename} and b/${f.filename} differ\n`;
    else if (pureRename) body = '';
    else if (f.patch === undefined) {
      // GitHub leaves out the patch of a very large file: name it, and say it is cut.
      body = `${TRUNCATION_MARK}\n`;
      truncated = true;
    } else body = fileBody(f);
    const room = maxBytes - bytes - Buffer.byteLength(header);
    if (room <= 0) {
      truncated = true;
      return;
    }
    const size = Buffer.byteLength(body);
    if (size > room) {
      body = `${cutAtLineWithinBytes(body, Math.max(0, room - TRUNCATION_MARK.length - 2))}${TRUNCATION_MARK}\n`;
      truncated = true;
    }
    parts.push(header, body);
    bytes += Buffer.byteLength(header) + Buffer.byteLength(body);
  };
  const result = (cut = false): Assembled => ({ patch: parts.join(''), truncated: truncated || cut, files });
  return { add, result };
};

/** A patch assembled from the PR's file pages. */
const assembleFromFiles = async (octokit: RestClient, t: RepoPatchTarget, maxBytes: number): Promise<Assembled> => {
  const builder = patchBuilder(maxBytes);
  for (let page = 1; page <= MAX_FILE_PAGES; page++) {
    const data = await call(octokit, 'files', 'GET /repos/{owner}/{repo}/pulls/{pull_number}/files', {
      owner: t.owner,
      repo: t.repo,
      pull_number: t.pr,
      per_page: FILES_PER_PAGE,
      page,
    });
    const parsed = FilesPage.safeParse(data);
    if (!parsed.success) throw unreadable('files', 'GitHub answered the file list in an unexpected shape');
    for (const f of parsed.data) builder.add(f);
    if (parsed.data.length < FILES_PER_PAGE) return builder.result();
  }
  // A full last page: GitHub's 3,000-file cap, more files may exist.
  return builder.result(true);
};

/**
 * A comparison's files when they are the whole diff, else null. GitHub lists at most 300 files,
 * and leaves the patch out of a large file, of a binary one, and of every file past the diff
 * limit of the answer (those also read 0 additions and 0 deletions, like a binary file). So the
 * list is used only when it is shorter than the cap and every file carries hunks that agree with
 * its counts (a pure rename may carry none); anything else is left to the `.diff`, which says
 * what is binary.
 */
const completeFiles = (files: unknown): FileEntry[] | null => {
  const parsed = FilesPage.safeParse(files);
  if (!parsed.success || parsed.data.length >= COMPARE_MAX_FILES) return null;
  const whole = parsed.data.every((f) => {
    if (!PLAIN_STATUSES.has(f.status) || f.patch === undefined) return false;
    const changed = f.additions + f.deletions > 0;
    return f.patch === '' ? !changed && f.status === 'renamed' : changed;
  });
  return whole ? parsed.data : null;
};

/**
 * The candidate's patch row: the merge base (compare base...head), the diff, and the changed
 * files: from the comparison's own file list when it is complete (one request), else from the
 * `.diff` or the file pages. The caller stores it once per head sha. Errors are `GitHubError`s
 * carrying GitHub's status and words; an answer of the wrong shape is one with status 0.
 */
export async function fetchPatch(
  octokit: RestClient,
  t: RepoPatchTarget,
  opts: { maxBytes?: number } = {},
): Promise<PatchRow> {
  const maxBytes = opts.maxBytes ?? PATCH_MAX_BYTES;
  const compare = Compare.safeParse(
    await call(octokit, 'merge-base', 'GET /repos/{owner}/{repo}/compare/{basehead}', {
      owner: t.owner,
      repo: t.repo,
      basehead: `${t.baseRef}...${t.headSha}`,
    }),
  );
  if (!compare.success) throw unreadable('merge-base', 'GitHub answered the comparison without a merge base');
  const base = {
    repo: `${t.owner}/${t.repo}`,
    pr: t.pr,
    headSha: t.headSha,
    mergeBase: compare.data.merge_base_commit.sha,
  };

  const listed = completeFiles(compare.data.files);
  if (listed) {
    const builder = patchBuilder(maxBytes);
    for (const f of listed) builder.add(f);
    return { ...base, ...builder.result() };
  }

  const diff = await fetchDiff(octokit, t);
  if (diff !== null && Buffer.byteLength(diff) <= maxBytes) {
    const files = parseUnifiedDiff(diff).map((f) => ({
      path: f.path,
      status: f.status,
      additions: f.additions,
      deletions: f.deletions,
      binary: f.binary,
    }));
    return { ...base, patch: diff, truncated: false, files };
  }
  return { ...base, ...(await assembleFromFiles(octokit, t, maxBytes)) };
}
