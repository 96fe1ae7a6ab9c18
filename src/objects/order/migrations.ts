import { ALERTS_TABLE, addAlertSubjects } from "./alerts";
import { OUTBOX_TABLE } from "./outbox";
import { SCHEDULE_TABLE } from "./schedule";
import { moveVenueLegs, SENDS_NUMBER_AND_PROGRESS, SENDS_TABLE } from "./sends-ledger";

/** One schema step: its statements, and what moves data the statements cannot reach (key-value storage). */
export type Migration = string | { sql: string; data(storage: DurableObjectStorage): void };

const META_TABLE = "CREATE TABLE meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL)";

const EVENTS_TABLE = `CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  from_status TEXT,
  to_status TEXT NOT NULL,
  reason TEXT NOT NULL,
  data TEXT
)`;

/**
 * The order object's SQLite schema, as an append-only list of migrations: entry i moves the schema
 * from version i to i + 1. Durable Objects refuse `PRAGMA user_version`, so the version is a row
 * of `meta`. Each entry is one string of statements, run in one `exec` (with, where data moves out of
 * the key-value storage, the code that moves it), all missing entries in one transaction.
 */
export const ORDER_MIGRATIONS: readonly Migration[] = [
  `${META_TABLE}; ${EVENTS_TABLE}; ${SENDS_TABLE}; ${OUTBOX_TABLE}; ${SCHEDULE_TABLE};`,
  { sql: SENDS_NUMBER_AND_PROGRESS, data: moveVenueLegs },
  // Operator alerts, one per problem and kind (src/objects/order/alerts.ts).
  `${ALERTS_TABLE};`,
  // …and per ledger key (the send an alert is about).
  { sql: "SELECT 1", data: addAlertSubjects },
];

/**
 * A new store (every order is one), in one `exec`: what ORDER_MIGRATIONS leave, less what a new
 * order does not use, made as cheap to create as SQLite allows (docs/performance.md, "What
 * bounds each endpoint"). The migrations' steps were 14 % of a creation's CPU in one profile, the
 * six tables' DDL in one step ≈ 7 %.
 * - **Made on first write**: `sends` (SENDS_TABLE_LATEST), `outbox` and `alerts` (ALERTS_TABLE)
 *   are created by their first write, through their `LazyTable` (src/objects/order/lazy-table.ts),
 *   at the latest shape; a read before answers no rows. A later migration that changes one of
 *   them must skip a store that has not made it yet (its first write makes the new shape).
 * - `meta` and `schedule` are `WITHOUT ROWID` (their text key is the table: no second b-tree for
 *   its index); `events` numbers its rows without `AUTOINCREMENT` (no `sqlite_sequence` table and
 *   no write to it per row): the log never deletes a row, so `seq` is the same max + 1 either way.
 * A store that has any version still takes the steps it lacks, and keeps its tables as they are
 * (every reader and writer works on either). A new migration changes this script too:
 * test/objects/storage/order-migrations.ts checks that both leave the same columns.
 */
export const ORDER_SCHEMA = `${META_TABLE} WITHOUT ROWID; ${EVENTS_TABLE.replace(" AUTOINCREMENT", "")};
  ${SCHEDULE_TABLE} WITHOUT ROWID;`;

/** The schema version the storage is at (0: nothing created yet). */
export function schemaVersion(sql: SqlStorage): number {
  const created = sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").toArray();
  if (created.length === 0) return 0;
  return sql.exec<{ v: number }>("SELECT v FROM meta WHERE k = 'schema'").toArray()[0]?.v ?? 0;
}

/**
 * Brings the storage to the latest schema: the missing migrations and the new version, at once.
 * `latest` (the script the migrations add up to) creates an empty store in one step.
 */
export function migrate(
  storage: DurableObjectStorage,
  migrations: readonly Migration[] = ORDER_MIGRATIONS,
  latest?: string,
): void {
  const from = schemaVersion(storage.sql);
  if (from >= migrations.length) return;
  const steps = from === 0 && latest !== undefined ? [latest] : migrations.slice(from);
  storage.transactionSync(() => {
    for (const m of steps) {
      storage.sql.exec(typeof m === "string" ? m : m.sql);
      if (typeof m !== "string") m.data(storage);
    }
    storage.sql.exec(
      `INSERT INTO meta (k, v) VALUES ('schema', ${migrations.length})
        ON CONFLICT (k) DO UPDATE SET v = excluded.v;`,
    );
  });
}
