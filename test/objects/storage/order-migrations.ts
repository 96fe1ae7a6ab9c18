/**
 * The order object's schema (src/objects/order/migrations.ts): created up front, in the
 * constructor, at the latest version and in one step (ORDER_SCHEMA), which leaves what the
 * migrations leave less the tables made on first write (src/objects/order/lazy-table.ts); a later
 * migration runs once over an existing store.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orderTables } from "../../../src/objects/order/context";
import {
  migrate,
  ORDER_MIGRATIONS,
  ORDER_SCHEMA,
  schemaVersion,
} from "../../../src/objects/order/migrations";

const tables = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' ORDER BY name",
    )
    .toArray()
    .map((r) => r.name);

/**
 * Every table's columns (with its primary key) and the indexes made by CREATE INDEX, as SQLite
 * describes them. Not a primary key's own index, and a key column counts as NOT NULL: a WITHOUT
 * ROWID table (ORDER_SCHEMA's) has no such index and makes its key NOT NULL, where a rowid table
 * would take a NULL key.
 */
const shape = (sql: SqlStorage) =>
  tables(sql).map((table) => ({
    table,
    columns: sql
      .exec<{ name: string; pk: number; notnull: number }>(`PRAGMA table_info(${table})`)
      .toArray()
      .map((c) => ({ ...c, notnull: c.pk > 0 ? 1 : c.notnull })),
    indexes: sql
      .exec<{ name: string; origin: string }>(`PRAGMA index_list(${table})`)
      .toArray()
      .filter((index) => index.origin === "c")
      .map((index) => ({ ...index, columns: sql.exec(`PRAGMA index_info(${index.name})`).toArray() })),
  }));

const DROP_ALL = ["meta", "events", "sends", "outbox", "schedule", "alerts"]
  .map((t) => `DROP TABLE IF EXISTS ${t};`)
  .join(" ");

/** Makes each table a new order does not write yet, through its accessor's first write. */
function firstWrites(sql: SqlStorage): void {
  const t = orderTables(sql);
  t.sends.write("DELETE FROM sends");
  t.outbox.write("DELETE FROM outbox");
  t.alerts.write("DELETE FROM alerts");
}

describe("order object migrations", () => {
  it("creates a new store in one step with the tables, columns and indexes the migrations leave", async () => {
    const fresh = env.ORDERS.getByName(`migrations-${crypto.randomUUID()}`);
    const latest = await runInDurableObject(fresh, (_obj, state) => {
      firstWrites(state.storage.sql);
      return shape(state.storage.sql);
    });
    const stepped = env.ORDERS.getByName(`migrations-${crypto.randomUUID()}`);
    await runInDurableObject(stepped, (_obj, state) => {
      state.storage.sql.exec(DROP_ALL);
      expect(schemaVersion(state.storage.sql)).toBe(0);
      migrate(state.storage, ORDER_MIGRATIONS);
      expect(schemaVersion(state.storage.sql)).toBe(ORDER_MIGRATIONS.length);
      expect(shape(state.storage.sql)).toEqual(latest);
    });
    expect(latest.find((t) => t.table === "sends")?.columns.map((c) => c.name)).toContain("progress");
  });

  it("a new object has the tables a creation writes, at the latest version, before its first call", async () => {
    const stub = env.ORDERS.getByName(`migrations-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_obj, state) => {
      expect(schemaVersion(state.storage.sql)).toBe(ORDER_MIGRATIONS.length);
      expect(tables(state.storage.sql)).toEqual(["events", "meta", "schedule"]);
      // No sqlite_sequence either: the log numbers its rows without AUTOINCREMENT.
      state.storage.sql.exec("INSERT INTO events (at, to_status, reason) VALUES ('now', 'x', 'y')");
      expect(
        state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence'").toArray(),
      ).toEqual([]);
    });
  });

  it("runs only the migrations an existing store lacks, once", async () => {
    const stub = env.ORDERS.getByName(`migrations-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_obj, state) => {
      const next = [...ORDER_MIGRATIONS, "CREATE TABLE extra_thing (id INTEGER PRIMARY KEY);"];
      migrate(state.storage, next);
      expect(schemaVersion(state.storage.sql)).toBe(next.length);
      expect(tables(state.storage.sql)).toContain("extra_thing");
      // Again: nothing to do (a second CREATE TABLE would throw).
      migrate(state.storage, next);
      expect(schemaVersion(state.storage.sql)).toBe(next.length);
    });
  });

  it("schema 2 numbers the sends of each kind and moves each exchange's venue legs into its ledger row", async () => {
    const stub = env.ORDERS.getByName(`migrations-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_obj, state) => {
      const { sql, kv } = state.storage;
      // An object as schema 1 left it: two exchanges (a continue after a failed one), one with its legs beside it.
      sql.exec(DROP_ALL);
      migrate(state.storage, ORDER_MIGRATIONS.slice(0, 1));
      const row = (key: string, kind: string) =>
        sql.exec(
          "INSERT INTO sends (key, kind, request, attempts, failures, unknown_lookups, next_at, updated_at) VALUES (?, ?, '{}', 1, 0, 0, 0, 'now')",
          key,
          kind,
        );
      row("o:exchange", "exchange");
      row("o:payout", "payout");
      row("o:exchange:2", "exchange");
      const legs = { legs: [{ symbol: "BTCUSDT", clientOrderId: "o-12", state: { phase: "uncertain" } }] };
      kv.put("venue:o:exchange:2", legs);
      kv.put("order", { unrelated: true });

      // As the object's constructor does: a store at version 1 takes the steps, not the new-store script.
      migrate(state.storage, ORDER_MIGRATIONS, ORDER_SCHEMA);
      expect(schemaVersion(sql)).toBe(ORDER_MIGRATIONS.length);
      const rows = sql
        .exec<{ key: string; number: number; progress: string | null }>(
          "SELECT key, number, progress FROM sends ORDER BY rowid",
        )
        .toArray();
      expect(rows).toEqual([
        { key: "o:exchange", number: 1, progress: null },
        { key: "o:payout", number: 1, progress: null },
        { key: "o:exchange:2", number: 2, progress: JSON.stringify(legs) },
      ]);
      expect([...kv.list({ prefix: "venue:" })]).toEqual([]);
      expect(kv.get("order")).toEqual({ unrelated: true });
    });
  });
});

describe("order tables made on first write (src/objects/order/lazy-table.ts)", () => {
  const has = (sql: SqlStorage, table: string) => tables(sql).includes(table);
  /** A new store without the tables made on first write (as every new store is since 2026-11-27). */
  const withoutLazyTables = (sql: SqlStorage) =>
    sql.exec("DROP TABLE IF EXISTS sends; DROP TABLE IF EXISTS outbox; DROP TABLE IF EXISTS alerts;");

  it("a read before the first write answers no rows and makes nothing; the first write makes the table", async () => {
    const stub = env.ORDERS.getByName(`lazy-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_obj, state) => {
      const { sql } = state.storage;
      withoutLazyTables(sql);
      const t = orderTables(sql);
      expect(t.outbox.rows("SELECT * FROM outbox")).toEqual([]);
      expect(has(sql, "outbox")).toBe(false);
      t.outbox.write("INSERT INTO outbox (sequence, event_id, message) VALUES (1, 'e', '{}')");
      expect(has(sql, "outbox")).toBe(true);
      expect(t.outbox.rows("SELECT sequence FROM outbox")).toEqual([{ sequence: 1 }]);
      // Another accessor over the same store (the object restarted) finds the table and its row.
      expect(orderTables(sql).outbox.rows("SELECT sequence FROM outbox")).toEqual([{ sequence: 1 }]);
    });
  });

  it("a table made in a transaction that rolled back is gone: reads answer no rows, the next write makes it again", async () => {
    const stub = env.ORDERS.getByName(`lazy-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_obj, state) => {
      const { storage } = state;
      withoutLazyTables(storage.sql);
      const t = orderTables(storage.sql);
      expect(() =>
        storage.transactionSync(() => {
          t.sends.write(
            "INSERT INTO sends (key, kind, request, attempts, failures, unknown_lookups, next_at, updated_at) VALUES ('k', 'payout', '{}', 0, 0, 0, 0, 'now')",
          );
          throw new Error("the step failed");
        }),
      ).toThrow("the step failed");
      expect(has(storage.sql, "sends")).toBe(false);
      expect(t.sends.rows("SELECT key FROM sends")).toEqual([]);
      t.sends.write(
        "INSERT INTO sends (key, kind, request, attempts, failures, unknown_lookups, next_at, updated_at) VALUES ('k', 'payout', '{}', 0, 0, 0, 0, 'now')",
      );
      expect(t.sends.rows("SELECT key, number FROM sends")).toEqual([{ key: "k", number: 1 }]);
    });
  });

  it("schema 4 gives each alert its ledger key: a send's alert the ledger key its data names, others none", async () => {
    const stub = env.ORDERS.getByName(`migrations-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_obj, state) => {
      const { sql } = state.storage;
      sql.exec(DROP_ALL);
      migrate(state.storage, ORDER_MIGRATIONS.slice(0, 2));
      // The alerts table as schema 3 made it, before alerts had a ledger key.
      sql.exec(`CREATE TABLE alerts (kind TEXT NOT NULL, opened_at INTEGER NOT NULL, message TEXT NOT NULL,
        data TEXT NOT NULL, last_at INTEGER NOT NULL, reminders INTEGER NOT NULL, next_reminder_at INTEGER NOT NULL,
        cleared_at INTEGER, projected INTEGER NOT NULL, PRIMARY KEY (kind, opened_at));
        INSERT INTO meta (k, v) VALUES ('schema', 3) ON CONFLICT (k) DO UPDATE SET v = 3;`);
      const add = (kind: string, data: string) =>
        sql.exec(
          "INSERT INTO alerts (kind, opened_at, message, data, last_at, reminders, next_reminder_at, projected) VALUES (?, 1, 'm', ?, 1, 0, 2, 1)",
          kind,
          data,
        );
      add("extra_refund_outcome_unknown", '{"key":"o:extra:t:0"}');
      add("venue leg still pending: needs an operator", '{"key":"o:exchange","leg":1}');
      migrate(state.storage, ORDER_MIGRATIONS);
      expect(sql.exec("SELECT kind, ledger_key FROM alerts ORDER BY kind").toArray()).toEqual([
        { kind: "extra_refund_outcome_unknown", ledger_key: "o:extra:t:0" },
        { kind: "venue leg still pending: needs an operator", ledger_key: "" },
      ]);
      expect(tables(sql)).not.toContain("alerts_before_ledger_keys");
    });
  });

  it("a store an earlier version made with every table keeps its rows, read and added to through the accessors", async () => {
    const stub = env.ORDERS.getByName(`lazy-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_obj, state) => {
      const { sql } = state.storage;
      // The store as the schema's steps (and ORDER_SCHEMA before 2026-11-26) left it, with a row in each table.
      sql.exec(DROP_ALL);
      migrate(state.storage, ORDER_MIGRATIONS);
      sql.exec(
        "INSERT INTO sends (key, kind, request, attempts, failures, unknown_lookups, next_at, updated_at) VALUES ('o:refund', 'refund', '{}', 1, 0, 0, 0, 'now')",
      );
      sql.exec("INSERT INTO outbox (sequence, event_id, message) VALUES (1, 'e1', '{}')");
      sql.exec(
        "INSERT INTO alerts (kind, opened_at, message, data, last_at, reminders, next_reminder_at, projected) VALUES ('k', 1, 'm', '{}', 1, 0, 2, 0)",
      );
      const t = orderTables(sql);
      expect(t.sends.rows("SELECT key FROM sends")).toEqual([{ key: "o:refund" }]);
      expect(t.outbox.rows("SELECT MAX(sequence) AS n FROM outbox")).toEqual([{ n: 1 }]);
      expect(t.alerts.rows("SELECT kind FROM alerts WHERE projected = 0")).toEqual([{ kind: "k" }]);
      t.sends.write(
        "INSERT INTO sends (key, kind, request, attempts, failures, unknown_lookups, next_at, updated_at, number) VALUES ('o:refund:2', 'refund', '{}', 0, 0, 0, 0, 'now', 2)",
      );
      expect(t.sends.rows("SELECT key FROM sends ORDER BY rowid")).toEqual([
        { key: "o:refund" },
        { key: "o:refund:2" },
      ]);
    });
  });
});
