// Typed errors of the GitHub boundary: every Octokit error is wrapped here, once.

export class GitHubError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    message: string,
    readonly retryAfterSeconds: number | null,
  ) {
    super(`${operation}: ${status} ${message}`);
    this.name = 'GitHubError';
  }

  /** Worth another try: server errors, rate limits (429, or 403 with retry-after). */
  get transient(): boolean {
    return this.status >= 500 || this.status === 429 || (this.status === 403 && this.retryAfterSeconds !== null) || (this.status === 0 && this.network);
  }

  /** No HTTP answer at all (connection refused or reset, DNS): worth another try. */
  get network(): boolean {
    return /fetch failed|ECONNRE|ETIMEDOUT|EAI_AGAIN|socket hang up|other side closed/i.test(this.message);
  }
}

function headerOf(error: unknown, name: string): string | undefined {
  const headers = (error as { response?: { headers?: Record<string, string | undefined> } })?.response?.headers;
  return headers?.[name];
}

export function wrapGitHubError(operation: string, error: unknown): GitHubError {
  if (error instanceof GitHubError) return error;
  const status = typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : 0;
  const retryAfter = headerOf(error, 'retry-after');
  const message = error instanceof Error ? error.message.split('\n')[0].slice(0, 200) : 'request failed';
  const secondary = status === 403 && /secondary rate limit|abuse/i.test(message);
  const seconds = retryAfter !== undefined && Number.isFinite(Number(retryAfter)) ? Number(retryAfter) : secondary ? 60 : null;
  return new GitHubError(operation, status, message, seconds);
}
