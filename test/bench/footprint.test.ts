// The bench's footprint parts: the process tree whose memory `--only=memory` sums, and the
// requests by route the end-to-end section reads from the app's /metrics.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { requestsByRoute } from '../../bench/e2e.ts';
import { processTree } from '../../bench/memory.ts';

describe('processTree', () => {
  it('holds the root and its children, each with its resident memory', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      const tree = processTree(process.pid);
      expect(tree.map((p) => p.pid)).toEqual(expect.arrayContaining([process.pid, child.pid]));
      expect(tree.every((p) => p.rssMb > 0)).toBe(true);
      expect(processTree(child.pid!).map((p) => p.pid)).toEqual([child.pid]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('requestsByRoute', () => {
  it('sums the statuses of each route and ignores other metrics', () => {
    const text = [
      '# HELP arbiter_github_requests_total GitHub API requests',
      'arbiter_github_requests_total{route="GET /repos/{owner}/{repo}/pulls/{pull_number}",status="200"} 7',
      'arbiter_github_requests_total{route="GET /repos/{owner}/{repo}/pulls/{pull_number}",status="404"} 1',
      'arbiter_github_requests_total{route="POST /graphql",status="200"} 3',
      'arbiter_model_calls_total{tier="small",outcome="ok"} 9',
    ].join('\n');
    expect(requestsByRoute(text)).toEqual({ 'GET /repos/{owner}/{repo}/pulls/{pull_number}': 8, 'POST /graphql': 3 });
  });
});
