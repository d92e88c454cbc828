// The Store (src/store/types.ts) over one SQL dialect, on PGlite or PostgreSQL, composed of its
// rooms, one file each. Claims are single conditional statements so replicas sharing one
// PostgreSQL never both win.
import { openDb, type Db, type OpenDbOptions } from './db.ts';
import { migrate } from './migrations.ts';
import { budgetStore } from './budget-store.ts';
import { changeStore } from './change-store.ts';
import { configStore } from './config-store.ts';
import { dashboardStore } from './dashboard-store.ts';
import { deliveryStore } from './delivery-store.ts';
import { evidenceStore } from './evidence-store.ts';
import { keptCheckStore } from './kept-check-store.ts';
import { ledgerStore } from './ledger-store.ts';
import { portfolioStore } from './portfolio-store.ts';
import { roundStore } from './round-store.ts';
import type { Store } from './types.ts';

export type StoreWithDb = Store & { db: Db };

/** Opens the database (PGlite when no URL), applies migrations, and returns the store. */
export async function createStore(opts: OpenDbOptions = {}): Promise<StoreWithDb> {
  const db = await openDb(opts);
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return storeOver(db);
}

/** The store over an already migrated database. */
export function storeOver(db: Db): StoreWithDb {
  return {
    db,
    ...deliveryStore(db),
    ...changeStore(db),
    ...evidenceStore(db),
    ...roundStore(db),
    ...ledgerStore(db),
    ...portfolioStore(db),
    ...budgetStore(db),
    ...configStore(db),
    ...keptCheckStore(db),
    ...dashboardStore(db),
    async close() {
      await db.close();
    },
  };
}
