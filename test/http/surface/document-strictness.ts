// The document is as strict as the routes (issue 31, §4): what a fuzzer found looser is stated,
// refused with a clear 400, and changes nothing.
import { describe, expect, it } from "vitest";
import { admin, call, createPartner, expectError, json, setPrices } from "../../helpers";
import { BTC_TO_USDT } from "../../support/orders";

type Doc = {
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};
const doc = async () => json<Doc>(await call("/api/v1/openapi.json"));
const operation = (d: Doc, id: string) =>
  Object.values(d.paths)
    .flatMap((item) => Object.values(item))
    .find((op) => op.operationId === id);

const as = (key: string, init: RequestInit = {}) => ({
  ...init,
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
});

describe("the document states what the routes refuse", () => {
  it("TestDeposit.amount is above 0, UpdateWebhookEndpoint has a property, and every 400 is declared", async () => {
    const d = await doc();
    const schema = d.components.schemas.TestDeposit as { properties: Record<string, { anyOf: unknown[] }> };
    const [text, number] = (schema.properties.amount ?? { anyOf: [] }).anyOf as [
      { pattern: string },
      { exclusiveMinimum: number },
    ];
    const pattern = new RegExp(text.pattern);
    for (const bad of ["0", "0.0", "-1", "-0.01", "00"]) expect(pattern.test(bad), bad).toBe(false);
    for (const good of ["0.01", "1", "10.5"]) expect(pattern.test(good), good).toBe(true);
    expect(number.exclusiveMinimum).toBe(0);
    expect(d.components.schemas.UpdateWebhookEndpoint?.minProperties).toBe(1);
    for (const id of ["getOrder", "getIcon", "resendWebhookEvent"])
      expect(Object.keys(operation(d, id)?.responses ?? {}), id).toContain("400");
  });

  it("answers those cases 400 and changes nothing", async () => {
    await setPrices();
    const p = await createPartner();
    const res = await admin(`/partners/${p.id}/keys`, { method: "POST", json: { mode: "test" } });
    const key = (await json<{ key: string }>(res)).key;
    const created = await call(
      "/api/v1/partner/orders",
      as(key, { method: "POST", body: JSON.stringify({ ...BTC_TO_USDT, rate_type: "float" }) }),
    );
    const order = await json<{ id: string }>(created);
    for (const amount of [0, -1, "0", "-0.5", "0.000"])
      await expectError(
        await call(
          `/api/v1/partner/test/orders/${order.id}/deposit`,
          as(key, { method: "POST", body: JSON.stringify({ amount }) }),
        ),
        400,
        "invalid_request",
      );
    const after = await json<{ status: string; amount_from_received: unknown }>(
      await call(`/api/v1/partner/orders/${order.id}`, as(key)),
    );
    expect(after.status).toBe("waiting_deposit");

    const before = await json(await call("/api/v1/partner/webhook", as(key)));
    await expectError(
      await call("/api/v1/partner/webhook", as(key, { method: "PUT", body: "{}" })),
      400,
      "invalid_request",
    );
    expect(await json(await call("/api/v1/partner/webhook", as(key)))).toEqual(before);

    const long = "x".repeat(16_385);
    await expectError(await call(`/api/v1/partner/orders/${long}`, as(key)), 400, "invalid_request");
    await expectError(await call(`/api/v1/icons/${long}`), 400, "invalid_request");
    await expectError(
      await call(`/api/v1/partner/webhook/deliveries/${"e".repeat(65)}/resend`, as(key, { method: "POST" })),
      400,
      "invalid_request",
    );
  });
});
