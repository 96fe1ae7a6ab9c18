import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createClient } from "../../../sdk/src/index";

/**
 * The SDK method for an operationId: the same name, or under `test.` for the test helpers
 * (`testDeposit` → `test.deposit`) and `orders.` for an order's streams (`orderEvents` → `orders.events`).
 */
function sdkMethod(client: ReturnType<typeof createClient>, operationId: string): unknown {
  for (const [prefix, group] of [
    ["test", client.test],
    ["order", client.orders],
  ] as const) {
    const rest = new RegExp(`^${prefix}([A-Z]\\w*)$`).exec(operationId)?.[1];
    if (rest) return (group as Record<string, unknown>)[rest[0]?.toLowerCase() + rest.slice(1)];
  }
  return (client as unknown as Record<string, unknown>)[operationId];
}

describe("SDK coverage", () => {
  it("has a method for every operation of the partner document the Worker serves", async () => {
    // The document the code serves now, not sdk/openapi.json: an operation added without
    // regenerating is caught too.
    const doc = await (await exports.default.fetch("http://localhost/api/v1/openapi.json")).json<{
      paths: Record<string, Record<string, { operationId?: string }>>;
    }>();
    const operationIds = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : [])),
    );
    expect(operationIds.length).toBeGreaterThanOrEqual(20);
    const client = createClient({ baseUrl: "http://localhost", apiKey: "pk_x.y" });
    const missing = operationIds.filter((id) => typeof sdkMethod(client, id) !== "function");
    expect(missing, "partner operations without an SDK method").toEqual([]);
  });
});
