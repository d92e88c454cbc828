// GitHub's rate limit as the latest answers reported it, per installation (x-ratelimit-*), so
// work that can wait is deferred when an installation runs low and /arbiter/health can show it.

export interface RateBudget {
  remaining: number;
  limit: number;
  /** When the window resets (ms since the epoch, GitHub's x-ratelimit-reset). */
  resetAtMs: number;
}

/** Below this share of its limit an installation is low: deferrable work waits for the reset. */
export const LOW_BUDGET_SHARE = 0.1;

/** Header values as Octokit gives them (lower-case names). */
type Headers = Record<string, string | number | undefined>;

const num = (v: string | number | undefined): number | null => {
  const n = Number(v);
  return v === undefined || v === '' || !Number.isFinite(n) ? null : n;
};

export class RateBudgets {
  private readonly budgets = new Map<number, RateBudget>();

  /** Records an answer's headers for an installation (0: requests as the app itself). */
  record(installation: number, headers: Headers): void {
    const remaining = num(headers['x-ratelimit-remaining']);
    const limit = num(headers['x-ratelimit-limit']);
    if (remaining === null || limit === null) return;
    const reset = num(headers['x-ratelimit-reset']);
    this.budgets.set(installation, { remaining, limit, resetAtMs: reset === null ? 0 : reset * 1000 });
  }

  get(installation: number): RateBudget | undefined {
    return this.budgets.get(installation);
  }

  all(): [number, RateBudget][] {
    return [...this.budgets];
  }

  /** True when the installation's last answer left less than LOW_BUDGET_SHARE of its limit, before the reset. */
  isLow(installation: number, nowMs: number): boolean {
    const b = this.budgets.get(installation);
    if (!b || b.limit <= 0) return false;
    if (b.resetAtMs > 0 && nowMs >= b.resetAtMs) return false;
    return b.remaining < b.limit * LOW_BUDGET_SHARE;
  }

  clear(): void {
    this.budgets.clear();
  }
}

/** The process's budgets, fed by the request meter (src/github/request-meter.ts). */
export const rateBudgets = new RateBudgets();
