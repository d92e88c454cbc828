// Typed errors of the GitHub boundary: every Octokit error is wrapped here, once, into one
// GitHubError that says whether another try is worth it and how long GitHub asked us to wait.

export class GitHubError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    message: string,
    /** Seconds GitHub asked us to wait (retry-after, or until x-ratelimit-reset); null when it did not ask. */
    readonly retryAfter: number | null,
    /** A rate limit (primary or secondary): every write of the installation waits `retryAfter`. */
    readonly rateLimited = false,
  ) {
    super(`${operation}: ${status} ${message}`);
    this.name = 'GitHubError';
  }

  /** Worth another try: server errors, rate limits, and no HTTP answer at all. */
  get transient(): boolean {
    return this.status >= 500 || this.rateLimited || (this.status === 0 && this.network);
  }

  /** No HTTP answer at all (connection refused or reset, DNS): worth another try. */
  get network(): boolean {
    return /fetch failed|ECONNRE|ETIMEDOUT|EAI_AGAIN|socket hang up|other side closed/i.test(this.message);
  }
}

/**
 * GitHub's answer to a comment on a locked conversation (403 "Unable to create comment because
 * issue is locked"): no retry will change it, and nothing else of the decision depends on it.
 */
export const lockedConversation = (error: unknown): boolean =>
  error instanceof GitHubError && error.status === 403 && !error.rateLimited && /locked/i.test(error.message);

/** Without a retry-after, GitHub's documentation says to wait at least a minute. */
export const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 60;

type Headers = Record<string, string | number | undefined>;

/** A property of an unknown value (an error thrown by Octokit or fetch), or undefined. */
export const propertyOf = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;

/** The headers of an error's answer (string and number values), or none. */
export function headersOf(error: unknown): Headers {
  const headers = propertyOf(propertyOf(error, 'response'), 'headers');
  const found: Headers = {};
  if (typeof headers !== 'object' || headers === null) return found;
  for (const [name, value] of Object.entries(headers))
    if (typeof value === 'string' || typeof value === 'number') found[name] = value;
  return found;
}

const numberOf = (value: string | number | undefined): number | null => {
  if (value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/**
 * The wait a rate-limit answer asks for, in seconds, or null when the answer is no rate limit:
 * 403 or 429 with retry-after; x-ratelimit-remaining 0 with x-ratelimit-reset (counted from the
 * answer's own Date header when it has one, so the wait is on GitHub's clock); a 403 or 429 that
 * names a secondary rate limit without saying how long.
 */
export function rateLimitWait(status: number, headers: Headers, message: string): number | null {
  if (status !== 403 && status !== 429) return null;
  const retryAfter = numberOf(headers['retry-after']);
  if (retryAfter !== null) return Math.max(0, retryAfter);
  const reset = numberOf(headers['x-ratelimit-reset']);
  if (numberOf(headers['x-ratelimit-remaining']) === 0 && reset !== null) {
    const date = Date.parse(String(headers['date'] ?? ''));
    const nowSeconds = (Number.isFinite(date) ? date : Date.now()) / 1000;
    return Math.max(1, Math.ceil(reset - nowSeconds));
  }
  if (status === 429 || /secondary rate limit|abuse|rate limit exceeded/i.test(message))
    return DEFAULT_RATE_LIMIT_WAIT_SECONDS;
  return null;
}

export function wrapGitHubError(operation: string, error: unknown): GitHubError {
  if (error instanceof GitHubError) return error;
  const status = propertyOf(error, 'status');
  const message = error instanceof Error ? error.message.split('\n')[0].slice(0, 200) : 'request failed';
  const code = typeof status === 'number' ? status : 0;
  const wait = rateLimitWait(code, headersOf(error), message);
  return new GitHubError(operation, code, message, wait, wait !== null);
}

/** Calls GitHub, turning whatever it throws into a GitHubError named after `operation`. */
export async function callGitHub<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw wrapGitHubError(operation, error);
  }
}
