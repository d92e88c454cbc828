// The store's room for the Change's one repair and the model budgets: single conditional statements,
// so two replicas never both take the repair or overspend a budget.
import type { Db } from './db.ts';
import { parseRow, parseRows, RepairRow, BudgetRow } from './rows.ts';
import type { Store } from './types.ts';
import { changeId } from '../core/keys.ts';

export function budgetStore(db: Db): Pick<Store, 'claimRepair' | 'getRepair' | 'takeModelBudget'> {
  const one = async (text: string, params: unknown[]) => (await db.query(text, params)).rows[0];
  return {
    async claimRepair(repo, change, pr, at) {
      const res = await db.query(
        `INSERT INTO repairs (repo, change, pr, at) VALUES ($1, $2, $3, $4::timestamptz)
         ON CONFLICT (repo, change) DO NOTHING`,
        [repo, change, pr, at],
      );
      return res.rowCount === 1;
    },
    async getRepair(repo, change) {
      const r = await one('SELECT pr, at FROM repairs WHERE repo = $1 AND change = $2', [repo, change]);
      return r ? parseRow(RepairRow, r, 'repair') : null;
    },
    async takeModelBudget(input, limits) {
      const changeKey = changeId(input.repo, input.change);
      const installKey = `${input.installationId}@${input.day}`;
      // Both counters move together, and only when both stay within their limits. The rows
      // are locked in a fixed order (FOR UPDATE), so concurrent callers queue and never deadlock.
      return db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO model_budgets (scope, key, calls) VALUES ('change', $1, 0), ('installation', $2, 0)
           ON CONFLICT (scope, key) DO NOTHING`,
          [changeKey, installKey],
        );
        const res = await tx.query(
          `SELECT scope, calls FROM model_budgets
           WHERE (scope = 'change' AND key = $1) OR (scope = 'installation' AND key = $2)
           ORDER BY scope, key FOR UPDATE`,
          [changeKey, installKey],
        );
        const rows = parseRows(BudgetRow, res.rows, 'model budget');
        const used = (scope: string) => rows.find((r) => r.scope === scope)?.calls ?? 0;
        if (used('change') + input.calls > limits.perChange) return false;
        if (used('installation') + input.calls > limits.dailyPerInstallation) return false;
        await tx.query(
          `UPDATE model_budgets SET calls = calls + $3
           WHERE (scope = 'change' AND key = $1) OR (scope = 'installation' AND key = $2)`,
          [changeKey, installKey, input.calls],
        );
        return true;
      });
    },
  };
}
