// Typed errors of the GitHub boundary: every Octokit error is wrapped here, once, into one
// GitHubError that says whether another try is worth it and how long GitHub asked us to wait.

/** One entry of a GraphQL answer's `errors[]`, as GitHub wrote it. */
export interface GraphqlErrorEntry {
  message: string;
  type: string | null;
  path: (string | number)[] | null;
}

export class GitHubError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    message: string,
    /** Seconds GitHub asked us to wait (retry-after, or until x-ratelimit-reset); null when it did not ask. */
    readonly retryAfter: number | null,
    /** A rate limit (primary or secondary): every write of the installation waits `retryAfter`. */
    readonly rateLimited = false,
    /** Every entry of a GraphQL answer's `errors[]` (a refusal GitHub answers with HTTP 200); empty for REST. */
    readonly graphqlErrors: GraphqlErrorEntry[] = [],
  ) {
    super(`${operation}: ${status} ${message}`);
    this.name = 'GitHubError';
  }

  /** GitHub's own words: every GraphQL error message, else the REST message. */
  get githubWords(): string {
    if (this.graphqlErrors.length > 0) return this.graphqlErrors.map((e) => e.message).join('; ');
    return this.message.replace(`${this.operation}: ${this.status} `, '');
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
  // A REST error carries its answer's headers on `response`; Octokit's GraphqlResponseError on itself.
  const headers = propertyOf(propertyOf(error, 'response'), 'headers') ?? propertyOf(error, 'headers');
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
 * Seconds until x-ratelimit-reset when x-ratelimit-remaining is 0 (counted from the answer's own Date
 * header when it has one, so the wait is on GitHub's clock), else null.
 */
function resetWait(headers: Headers): number | null {
  const reset = numberOf(headers['x-ratelimit-reset']);
  if (numberOf(headers['x-ratelimit-remaining']) !== 0 || reset === null) return null;
  const date = Date.parse(String(headers['date'] ?? ''));
  const nowSeconds = (Number.isFinite(date) ? date : Date.now()) / 1000;
  return Math.max(1, Math.ceil(reset - nowSeconds));
}

/**
 * GitHub's GraphQL rate limit answers HTTP 200 with an `errors[]` entry of type RATE_LIMITED ("API
 * rate limit exceeded for installation ID …"): the wait until x-ratelimit-reset, else a minute; null
 * for any other GraphQL answer.
 */
export function graphqlRateLimitWait(errors: GraphqlErrorEntry[], headers: Headers): number | null {
  if (!errors.some((e) => e.type === 'RATE_LIMITED')) return null;
  return resetWait(headers) ?? DEFAULT_RATE_LIMIT_WAIT_SECONDS;
}

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
  const reset = resetWait(headers);
  if (reset !== null) return reset;
  if (status === 429 || /secondary rate limit|abuse|rate limit exceeded/i.test(message))
    return DEFAULT_RATE_LIMIT_WAIT_SECONDS;
  return null;
}

/** The longest message kept of an answer (GitHub's whole words; a runaway body is cut here). */
export const MAX_ERROR_MESSAGE = 4_000;

/** The `errors[]` of a GraphQL answer Octokit threw (GraphqlResponseError, or the throttling plugin's rate-limit error), each as GitHub wrote it. */
export function graphqlErrorsOf(error: unknown): GraphqlErrorEntry[] {
  // Octokit's throttling plugin throws its own "GraphQL Rate Limit Exceeded" for an answer whose
  // errors say RATE_LIMITED, with GitHub's answer as `data`: GitHub's entries are read from there.
  const errors = propertyOf(error, 'errors') ?? propertyOf(propertyOf(error, 'data'), 'errors');
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((e: unknown) => {
    const message = propertyOf(e, 'message');
    if (typeof message !== 'string') return [];
    const type = propertyOf(e, 'type');
    const path = propertyOf(e, 'path');
    return [
      {
        message,
        type: typeof type === 'string' ? type : null,
        path: Array.isArray(path)
          ? path.filter((p: unknown): p is string | number => typeof p === 'string' || typeof p === 'number')
          : null,
      },
    ];
  });
}

/** One line per GraphQL error: `TYPE at a.b: message`. */
const graphqlLine = (e: GraphqlErrorEntry): string =>
  `${e.type ? `${e.type} ` : ''}${e.path && e.path.length > 0 ? `at ${e.path.join('.')}: ` : ''}${e.message}`;

export function wrapGitHubError(operation: string, error: unknown): GitHubError {
  if (error instanceof GitHubError) return error;
  const status = propertyOf(error, 'status');
  const graphql = graphqlErrorsOf(error);
  // GitHub's whole message: every GraphQL error (Octokit's first line only says there were some),
  // else the REST answer's message, every line of it.
  const raw =
    graphql.length > 0
      ? graphql.map(graphqlLine).join('; ')
      : error instanceof Error
        ? error.message.replace(/\s*\n\s*/g, ' ').trim()
        : 'request failed';
  const message = raw.slice(0, MAX_ERROR_MESSAGE);
  const code = typeof status === 'number' ? status : 0;
  const headers = headersOf(error);
  const wait = graphqlRateLimitWait(graphql, headers) ?? rateLimitWait(code, headers, message);
  return new GitHubError(operation, code, message, wait, wait !== null, graphql);
}

/** Calls GitHub, turning whatever it throws into a GitHubError named after `operation`. */
export async function callGitHub<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw wrapGitHubError(operation, error);
  }
}
