// Retrying one GitHub write: transient errors a bounded number of times, with backoff.
import { GitHubError } from '../github/errors.ts';
import type { RepoContext } from './context.ts';

const MAX_ATTEMPTS = 4;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a write, retrying transient GitHub errors a bounded number of times. A rate limit is not
 * slept on here: it propagates, and the delivery job waits it out as a deferred job.
 */
export async function withRetry<T>(ctx: RepoContext, what: string, write: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(attempt);
    } catch (error) {
      if (!(error instanceof GitHubError) || !error.transient || error.rateLimited || attempt >= MAX_ATTEMPTS)
        throw error;
      const wait = 250 * 2 ** attempt;
      ctx.log.warn({ what, status: error.status, attempt, wait }, 'GitHub write failed; retrying');
      await sleep(wait);
    }
  }
}
