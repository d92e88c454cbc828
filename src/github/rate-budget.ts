// GitHub's rate limit as the latest answers reported it, per installation (x-ratelimit-*), so
// work that can wait is deferred when an installation runs low and /arbiter/health can show it.

export interface RateBudget {
  /** GitHub's `x-ratelimit-resource`: `core` (REST), `graphql`, `search`, ... Each has its own budget. */
  resource: string;
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

const share = (b: RateBudget): number => (b.limit > 0 ? b.remaining / b.limit : 1);

/** Budgets per installation and resource: REST (`core`) and GraphQL are counted apart, as GitHub counts them. */
export class RateBudgets {
  private readonly budgets = new Map<number, Map<string, RateBudget>>();

  /** Records an answer's headers for an installation (0: requests as the app itself). */
  record(installation: number, headers: Headers): void {
    const remaining = num(headers['x-ratelimit-remaining']);
    const limit = num(headers['x-ratelimit-limit']);
    if (remaining === null || limit === null) return;
    const reset = num(headers['x-ratelimit-reset']);
    const resource = String(headers['x-ratelimit-resource'] ?? '') || 'core';
    const mine = this.budgets.get(installation) ?? new Map<string, RateBudget>();
    mine.set(resource, { resource, remaining, limit, resetAtMs: reset === null ? 0 : reset * 1000 });
    this.budgets.set(installation, mine);
  }

  /** The installation's budget of `resource`; without one, its scarcest budget (the smallest share left). */
  get(installation: number, resource?: string): RateBudget | undefined {
    const mine = this.budgets.get(installation);
    if (!mine) return undefined;
    if (resource !== undefined) return mine.get(resource);
    let scarcest: RateBudget | undefined;
    for (const b of mine.values()) if (!scarcest || share(b) < share(scarcest)) scarcest = b;
    return scarcest;
  }

  /** Every installation's budgets, by resource. */
  all(): [number, RateBudget[]][] {
    return [...this.budgets].map(([installation, mine]) => [installation, [...mine.values()]]);
  }

  /**
   * True when one of the installation's budgets (or the one of `resource`) had less than
   * LOW_BUDGET_SHARE of its limit left at its last answer, before its reset.
   */
  isLow(installation: number, nowMs: number, resource?: string): boolean {
    const mine = this.budgets.get(installation);
    if (!mine) return false;
    const low = (b: RateBudget): boolean =>
      b.limit > 0 && !(b.resetAtMs > 0 && nowMs >= b.resetAtMs) && b.remaining < b.limit * LOW_BUDGET_SHARE;
    if (resource !== undefined) {
      const b = mine.get(resource);
      return b !== undefined && low(b);
    }
    return [...mine.values()].some(low);
  }

  clear(): void {
    this.budgets.clear();
  }
}

/** The process's budgets, fed by the request meter (src/github/request-meter.ts). */
export const rateBudgets = new RateBudgets();
