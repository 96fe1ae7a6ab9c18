/**
 * The order object's schema (src/objects/order-migrations.ts): created up front, in the
 * constructor, at the latest version; a later migration runs once over an existing store.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { migrate, ORDER_MIGRATIONS, schemaVersion } from "../../src/objects/order-migrations";

const tables = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' ORDER BY name",
    )
    .toArray()
    .map((r) => r.name);

describe("order object migrations", () => {
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
});
