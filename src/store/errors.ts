// Typed errors of the store: every driver error (pg or PGlite) and every row that fails its
// schema is wrapped here, so callers never see a driver's own error class.

export type StoreErrorCode = 'query' | 'connect' | 'bad-row' | 'not-found' | 'migration';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly detail: { sql?: string; pgCode?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: detail.cause });
  }
}

/** The SQLSTATE of a driver error, when it has one. */
export const pgCodeOf = (err: unknown): string | undefined => {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
};

export const wrapDriverError = (err: unknown, sql: string): StoreError => {
  if (err instanceof StoreError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const firstLine = sql.trim().split('\n')[0]?.slice(0, 120) ?? '';
  return new StoreError('query', `${message} (in: ${firstLine})`, { sql, pgCode: pgCodeOf(err), cause: err });
};

/**
 * Whether an error means the database does not answer (no connection, a connection lost or timed
 * out, a statement cancelled by its timeout, the server going down, an embedded store closed),
 * rather than a statement it refused.
 */
export function storeUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (e instanceof StoreError && e.code === 'connect') return true;
    const code = pgCodeOf(e);
    if (
      code &&
      (/^(08|57P)/.test(code) ||
        code === '57014' ||
        code === '53300' ||
        /^E(CONNREFUSED|CONNRESET|TIMEDOUT|HOSTUNREACH|PIPE)$/.test(code))
    )
      return true;
    const message = e instanceof Error ? e.message : '';
    if (
      /timeout exceeded when trying to connect|Connection terminated|Query read timeout|PGlite is closed|connect ECONNREFUSED/i.test(
        message,
      )
    )
      return true;
    e = e instanceof Error ? e.cause : undefined;
  }
  return false;
}
