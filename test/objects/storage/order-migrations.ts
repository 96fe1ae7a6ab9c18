/**
 * The order object's schema (src/objects/order/migrations.ts): created up front, in the
 * constructor, at the latest version and in one step (ORDER_SCHEMA), which leaves what the
 * migrations leave; a later migration runs once over an existing store.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
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

/** Every table's columns and indexes (with their columns), as SQLite describes them. */
const shape = (sql: SqlStorage) =>
  tables(sql).map((table) => ({
    table,
    columns: sql.exec(`PRAGMA table_info(${table})`).toArray(),
    indexes: sql
      .exec<{ name: string }>(`PRAGMA index_list(${table})`)
      .toArray()
      .map((index) => ({ ...index, columns: sql.exec(`PRAGMA index_info(${index.name})`).toArray() })),
  }));

const DROP_ALL =
  "DROP TABLE meta; DROP TABLE events; DROP TABLE sends; DROP TABLE outbox; DROP TABLE schedule; DROP TABLE alerts;";

describe("order object migrations", () => {
  it("creates a new store in one step with the tables, columns and indexes the migrations leave", async () => {
    const fresh = env.ORDERS.getByName(`migrations-${crypto.randomUUID()}`);
    const latest = await runInDurableObject(fresh, (_obj, state) => shape(state.storage.sql));
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

  it("a new object has every table at the latest version before its first call", async () => {
    const stub = env.ORDERS.getByName(`migrations-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_obj, state) => {
      expect(schemaVersion(state.storage.sql)).toBe(ORDER_MIGRATIONS.length);
      expect(tables(state.storage.sql)).toEqual(["alerts", "events", "meta", "outbox", "schedule", "sends"]);
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
