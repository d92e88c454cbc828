// The GitHub Actions job re-run route (`POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun`):
// a job of the github-actions app is queued again as a new check run on the same head, the old run
// keeps its result, the request is recorded; any other id is not a job (404, GitHub's message).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

const OWNER = 'acme';
const NAME = 'jobs';
const REPO = `${OWNER}/${NAME}`;
let h: Harness;
let sha: string;

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({ owner: OWNER, name: NAME, files: { 'src/a.ts': 'export {};\n' } });
  sha = h.emulator.commit(REPO, 'agent/x', { files: { 'src/x.ts': 'x\n' }, from: 'main' });
  await h.emulator.startCheck(REPO, sha, 'bench', 'github-actions');
  await h.emulator.completeCheck(REPO, sha, 'bench', 'success', { title: 'score: 0.9' }, 'github-actions');
  await h.emulator.startCheck(REPO, sha, 'lint');
  await h.emulator.completeCheck(REPO, sha, 'lint', 'success');
});

afterAll(async () => {
  await h.stop();
});

describe('re-run a job', () => {
  it('queues the job again as a new check run of github-actions and records the request', async () => {
    const job = h.emulator.checkRuns(REPO).find((r) => r.name === 'bench')!;
    const res = await h.octokit.request('POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun', {
      owner: OWNER,
      repo: NAME,
      job_id: job.id,
    });
    expect(res.status).toBe(201);
    const bench = h.emulator.checkRuns(REPO).filter((r) => r.name === 'bench');
    expect(bench.map((r) => [r.app, r.status])).toEqual([
      ['github-actions', 'completed'],
      ['github-actions', 'queued'],
    ]);
    expect(h.emulator.rerequests(REPO).at(-1)).toMatchObject({
      runId: job.id,
      via: 'job-rerun',
      newRunId: bench[1].id,
      headSha: sha,
    });
    expect(h.emulator.violations).toEqual([]);
  });

  it('answers 404 Not Found for a check run that is not a GitHub Actions job', async () => {
    const lint = h.emulator.checkRuns(REPO).find((r) => r.name === 'lint')!;
    const err: unknown = await h.octokit
      .request('POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun', { owner: OWNER, repo: NAME, job_id: lint.id })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toMatchObject({ status: 404, response: { data: { message: 'Not Found' } } });
    expect(h.emulator.checkRuns(REPO).filter((r) => r.name === 'lint')).toHaveLength(1);
  });
});
