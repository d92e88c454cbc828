// Versioned schema migrations, applied at start in one transaction under an advisory lock and
// recorded in `schema_migrations`, so replicas starting together apply each version once.
import type { Db } from './db.ts';
import { StoreError } from './errors.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE deliveries (
        id text PRIMARY KEY,
        event text NOT NULL,
        payload jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        done_at timestamptz,
        error text
      );
      CREATE INDEX deliveries_pending ON deliveries (received_at) WHERE done_at IS NULL;

      CREATE TABLE changes (
        repo text NOT NULL,
        number integer NOT NULL,
        installation_id bigint NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        criteria jsonb NOT NULL,
        state text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (repo, number)
      );

      CREATE TABLE candidates (
        repo text NOT NULL,
        pr integer NOT NULL,
        change integer NOT NULL,
        base text NOT NULL,
        head_sha text NOT NULL,
        author text NOT NULL,
        state text NOT NULL,
        reason text NOT NULL DEFAULT '',
        head_seen_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (repo, pr)
      );
      CREATE INDEX candidates_group ON candidates (repo, change, base);
      CREATE INDEX candidates_verifying ON candidates (head_seen_at) WHERE state = 'verifying';

      CREATE TABLE rounds (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        repo text NOT NULL,
        change integer NOT NULL,
        base text NOT NULL,
        number integer NOT NULL,
        selection text NULL,
        decision jsonb NULL,
        opened_at timestamptz NOT NULL,
        decided_at timestamptz NULL,
        UNIQUE (repo, change, base, number)
      );

      CREATE TABLE patches (
        repo text NOT NULL,
        pr integer NOT NULL,
        head_sha text NOT NULL,
        merge_base text NOT NULL,
        patch text NOT NULL,
        truncated boolean NOT NULL,
        files jsonb NOT NULL,
        PRIMARY KEY (repo, pr, head_sha)
      );

      CREATE TABLE evidence (
        repo text NOT NULL,
        pr integer NOT NULL,
        head_sha text NOT NULL,
        kind text NOT NULL,
        data jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (repo, pr, head_sha, kind)
      );

      CREATE TABLE receipts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        kind text NOT NULL,
        repo text NOT NULL,
        change integer NOT NULL,
        round integer NOT NULL,
        at timestamptz NOT NULL,
        data jsonb NOT NULL
      );
      CREATE INDEX receipts_change ON receipts (repo, change);

      CREATE TABLE events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        repo text NOT NULL,
        kind text NOT NULL,
        data jsonb NOT NULL,
        at timestamptz NOT NULL
      );
      CREATE INDEX events_repo ON events (repo, id);

      CREATE TABLE applied_actions (
        key text PRIMARY KEY,
        result jsonb NOT NULL,
        at timestamptz NOT NULL
      );

      CREATE TABLE repairs (
        repo text NOT NULL,
        change integer NOT NULL,
        pr integer NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (repo, change)
      );

      -- scope 'change' (key: owner/name#number) or 'installation' (key: id@YYYY-MM-DD)
      CREATE TABLE model_budgets (
        scope text NOT NULL,
        key text NOT NULL,
        calls integer NOT NULL DEFAULT 0,
        PRIMARY KEY (scope, key)
      );

      CREATE TABLE repo_config (
        repo text PRIMARY KEY,
        valid boolean NOT NULL,
        detail text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 2,
    name: 'repo-config-cache',
    // The default branch's parsed configuration, shared by replicas; `loaded_at` is app-clock
    // time (the TTL is read on that clock). `generation` moves on every invalidation, so a load
    // that started before it never stores what it read.
    sql: `
      ALTER TABLE repo_config
        ADD COLUMN config jsonb NULL,
        ADD COLUMN loaded_at timestamptz NULL,
        ADD COLUMN generation integer NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 3,
    name: 'delivery-payload-text',
    // A payload is stored as it came and read back whole, never queried inside: as jsonb,
    // PostgreSQL spent about 0.9 ms of CPU per 24 KB payload converting it at intake.
    sql: `ALTER TABLE deliveries ALTER COLUMN payload TYPE text USING payload::text;`,
  },
  {
    version: 4,
    name: 'portfolio',
    // Portfolio search (src/workflows/portfolio.ts): one row per explore of a Change, its slots
    // (composing until a PR names them), the candidates sent to the deep round, and every reading
    // of the scoring check the wide round used.
    sql: `
      CREATE TABLE portfolios (
        repo text NOT NULL,
        change integer NOT NULL,
        number integer NOT NULL,
        base text NOT NULL,
        base_sha text NOT NULL,
        policy text NOT NULL,
        k integer NOT NULL,
        phase text NOT NULL,
        wide_round integer NOT NULL,
        requested_by text NOT NULL,
        token text NOT NULL,
        started_at timestamptz NOT NULL,
        PRIMARY KEY (repo, change, number)
      );
      CREATE TABLE portfolio_slots (
        repo text NOT NULL,
        change integer NOT NULL,
        slot text NOT NULL,
        portfolio integer NOT NULL,
        approach text NOT NULL,
        state text NOT NULL,
        pr integer NULL,
        reason text NOT NULL DEFAULT '',
        dispatched_at timestamptz NOT NULL,
        PRIMARY KEY (repo, change, slot)
      );
      CREATE INDEX portfolio_slots_composing ON portfolio_slots (dispatched_at) WHERE state = 'composing';
      CREATE TABLE portfolio_deep (
        repo text NOT NULL,
        change integer NOT NULL,
        portfolio integer NOT NULL,
        pr integer NOT NULL,
        head_sha text NOT NULL,
        state text NOT NULL,
        dispatched_at timestamptz NOT NULL,
        PRIMARY KEY (repo, change, portfolio, pr)
      );
      CREATE TABLE portfolio_readings (
        repo text NOT NULL,
        change integer NOT NULL,
        portfolio integer NOT NULL,
        pr integer NOT NULL,
        run bigint NOT NULL,
        value double precision NOT NULL,
        PRIMARY KEY (repo, change, portfolio, pr, run)
      );
    `,
  },
  {
    version: 5,
    name: 'delivery-reruns',
    // A delivery whose job failed for good is marked `failed_at` (besides done): when GitHub
    // delivers it again (same X-GitHub-Delivery, e.g. "Redeliver" in its UI) it runs again, as
    // re-run number `reruns`, whose job has its own key. A processed delivery stays deduplicated.
    sql: `
      ALTER TABLE deliveries
        ADD COLUMN failed_at timestamptz NULL,
        ADD COLUMN reruns integer NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 6,
    name: 'kept-check-events',
    // A check event whose head no candidate has recorded yet (its synchronize webhook comes
    // later): kept here and taken when the head is recorded (src/store/kept-check-store.ts).
    sql: `
      CREATE TABLE kept_check_events (
        repo text NOT NULL,
        head_sha text NOT NULL,
        events integer NOT NULL,
        kept_at timestamptz NOT NULL,
        PRIMARY KEY (repo, head_sha)
      );
      CREATE INDEX kept_check_events_age ON kept_check_events (kept_at);
    `,
  },
  {
    version: 7,
    name: 'delivery-subjects',
    // A check event's head (`subject`, src/core/check-subject.ts): of pending deliveries on one
    // head only the last reads GitHub. `evaluated_at`: this delivery's run went past that point
    // (it may hold claims), so a retry of it never leaves its work to a later one.
    sql: `
      ALTER TABLE deliveries
        ADD COLUMN subject text NULL,
        ADD COLUMN evaluated_at timestamptz NULL;
      CREATE INDEX deliveries_subject_pending ON deliveries (subject, received_at) WHERE done_at IS NULL AND subject IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: 'delivery-check-names',
    // The name of the check a check event concludes (src/core/check-subject.ts `intakeCheckName`):
    // a delivery leaves its read only to a later one whose check decides something, since a check
    // nobody decides on may be recorded without a read (src/core/plan/check-read.ts).
    sql: `ALTER TABLE deliveries ADD COLUMN check_name text NULL;`,
  },
  {
    version: 9,
    name: 'delivery-check-names-by-head',
    // The checks whose conclusions were delivered on a head, done or not: a required check that
    // passes while another required one has sent nothing yet leaves its read to that one
    // (src/core/plan/check-read.ts).
    sql: `CREATE INDEX deliveries_subject_checks ON deliveries (subject, check_name) WHERE subject IS NOT NULL AND check_name IS NOT NULL;`,
  },
];

/** Applies every migration not yet recorded. Safe to call from several processes at once. */
export async function migrate(db: Db, migrations: Migration[] = MIGRATIONS): Promise<number[]> {
  try {
    return await db.transaction(async (tx) => {
      // The lock comes first: even CREATE TABLE IF NOT EXISTS races between two sessions.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':arbiter-migrations'))`);
      await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const done = await tx.query('SELECT version FROM schema_migrations');
      const applied = new Set(done.rows.map((r) => Number(r.version)));
      const ran: number[] = [];
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (applied.has(m.version)) continue;
        await tx.exec(m.sql);
        await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        ran.push(m.version);
      }
      return ran;
    });
  } catch (err) {
    throw new StoreError('migration', `migrations failed: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}
