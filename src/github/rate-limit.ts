// Rate limits per installation: when GitHub answers a write with a rate limit, every job of that
// installation waits as told, on the app's clock, as a deferred job (never a sleep inside a job).
import { GitHubError } from './errors.ts';

/** A wait longer than this is taken as this (a reset hours away is a broken header, not a plan). */
export const MAX_RATE_LIMIT_WAIT_SECONDS = 2 * 3600;

/**
 * Thrown by a step that must try again later, on the app's clock (GitHub computing whether a
 * pull request can merge): the delivery job defers itself by `seconds`, without a sleep.
 */
export class RetryLater extends Error {
  constructor(
    readonly seconds: number,
    message: string,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

export function retryLaterOf(error: unknown): RetryLater | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof RetryLater) return e;
  return null;
}

/** The rate-limit answer behind an error (itself or a cause), if there is one. */
export function rateLimitOf(error: unknown): GitHubError | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof GitHubError && e.rateLimited && e.retryAfter !== null) return e;
  }
  return null;
}

/** Until when each installation's writes wait (this process's view; every replica learns on its own first refusal). */
export class InstallationBlocks {
  private readonly until = new Map<number, number>();

  /** The end of the installation's wait, or null when it is not waiting at `now`. */
  blockedUntil(installationId: number, now: Date): Date | null {
    const until = this.until.get(installationId);
    if (until === undefined) return null;
    if (until <= now.getTime()) {
      this.until.delete(installationId);
      return null;
    }
    return new Date(until);
  }

  /** Records GitHub's answer; a later end extends the wait, an earlier one never shortens it. */
  block(installationId: number, now: Date, seconds: number): Date {
    const end = now.getTime() + Math.min(seconds, MAX_RATE_LIMIT_WAIT_SECONDS) * 1000;
    const until = Math.max(end, this.until.get(installationId) ?? 0);
    this.until.set(installationId, until);
    return new Date(until);
  }
}
