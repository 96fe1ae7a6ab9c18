/**
 * Holds that end (docs/lifecycle.md, "Holds"), through test mode's public surface: a test deposit
 * from a listed test address (docs/test-mode.md) holds its order with a deadline; at the deadline
 * the category's policy happens — a refund for risk and issuer matches, an operator's review (and
 * no money moving) for sanctions; the operator's release resumes the order, an extension goes once
 * and is audited; `order.held` / `order.released` are each sent once; the order list's rows (the
 * order index) carry the hold and its moved deadline. On a UTXO chain the listed source is an input
 * address, which is never sent anything back.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { OrderHold } from "../../src/domain/holds";
import { maskAddress } from "../../src/domain/order-status";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../helpers";
import { BTC_REFUND, BTC_TO_USDT, createOrder, type Order, TRON_ADDR } from "../support/orders";

/** Test mode's listed addresses (src/domain/screening.ts TEST_LISTED). */
const SANCTIONED_BTC = "bc1qt3w9chzut3w9chzut3w9chzut3w9chzufdsq3l";
const RISK_EVM = "0x5C12EE000000000000000000000000000000715C";
const CLEAR_ETH = "0x52908400098527886E0F7030069857D2E4169EE7";
const CLEAR_BTC = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const ISSUER_BLOCKED_TRON = "TJPZp3h26cfFoz7mzyxNofcNR7GGenKf8V";

type Held = Order & { hold: OrderHold | null; refund_address: string | null; refund_txid: string | null };

let p: TestPartner;

beforeAll(async () => {
  await setPrices();
  const live = await createPartner({ name: "screening-holds", rate_limit_per_minute: 100_000 });
  const res = await admin(`/partners/${live.id}/keys`, { method: "POST", json: { mode: "test" } });
  p = { ...live, key: (await json<{ key: string }>(res)).key };
});

async function help(orderId: string, name: string, body?: unknown): Promise<Held> {
  const res = await call(`/api/v1/partner/test/orders/${orderId}/${name}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${p.key}`, "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return json<Held>(res);
}

const get = async (id: string) =>
  json<Held>(await call(`/api/v1/partner/orders/${id}`, { headers: { Authorization: `Bearer ${p.key}` } }));

/** The order's row in GET /partner/orders (from the order index). */
const listed = async (id: string) =>
  (
    await json<{ data: { id: string; hold: OrderHold | null }[] }>(
      await call("/api/v1/partner/orders?limit=100", { headers: { Authorization: `Bearer ${p.key}` } }),
    )
  ).data.find((r) => r.id === id);

/** The order's webhook event types, in order. */
const webhookTypes = async (id: string) =>
  (await env.ORDERS.getByName(id).webhookEvents()).map((e) => e.message.type);

const HOURS = 3_600_000;

/** A float order of a network's own coin to BTC, without a refund address. */
const toBtc = (network: string, amount: number) => ({
  coin_from: network,
  network_from: network,
  coin_to: "BTC",
  network_to: "BTC",
  amount_from: amount,
  rate_type: "float" as const,
  recipient_address: CLEAR_BTC,
});

describe("the policy page", () => {
  it("/compliance states each list's deadline and outcome, as HOLD_POLICY sets them", async () => {
    const res = await call("/compliance");
    expect(res.status).toBe(200);
    const html = await res.text();
    const row = (category: string) =>
      html.match(new RegExp(`<tr data-category="${category}">(.*?)</tr>`))?.[1];
    expect(row("sanctions")).toMatch(/3 days \(72 hours\).*a person decides/);
    expect(row("risk")).toMatch(/3 days \(72 hours\).*sent back/);
  });
});

describe("a deposit from a listed source", () => {
  it("sanctions: held with a deadline where it was; at the deadline the operator reviews, and nothing moves", async () => {
    const o = await createOrder(p, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    const seen = await help(o.id, "deposit", { from: SANCTIONED_BTC, confirmations: 2 });
    expect(seen.status).toBe("confirming");
    expect(seen.hold).toMatchObject({
      category: "sanctions",
      at_deadline: "operator_review",
      extended: null,
    });
    const hold = seen.hold as OrderHold;
    expect(Date.parse(hold.deadline_at) - Date.parse(hold.since)).toBe(72 * HOURS);
    // The tracking page says so in plain words, with the deadline, and links the policy.
    const page = await (await call(new URL(o.tracking_url).pathname)).text();
    expect(page).toContain('data-testid="hold"');
    expect(page).toContain(`${hold.deadline_at.replace("T", " ").slice(0, 16)} UTC`);
    expect(page).toContain('href="/compliance"');
    // The keyless status API carries it too.
    const status = await json<{ hold: OrderHold | null }>(await call(new URL(o.status_url).pathname));
    expect(status.hold).toEqual(hold);

    // The index marks it for the operator's review queue (which lists live orders), and carries the
    // hold: the order list's row shows it as the order does.
    await env.ORDERS.getByName(o.id).tick();
    const row = await env.DB.prepare("SELECT needs_action FROM orders WHERE id = ?").bind(o.id).first();
    expect(row).toEqual({ needs_action: 1 });
    expect((await listed(o.id))?.hold).toEqual(hold);
    const after = await help(o.id, "pass-hold-deadline");
    expect(after).toMatchObject({ status: "confirming", payout_txid: null, refund_txid: null });
    expect(after.hold).toEqual(hold);
    const alerts = await json<{ data: { order_id: string; kind: string }[] }>(await admin("/alerts"));
    expect(alerts.data).toContainEqual(expect.objectContaining({ order_id: o.id, kind: "hold_review" }));
    // A held order never pays out: another run changes nothing.
    expect(await help(o.id, "confirm", { blocks: 1 })).toMatchObject({
      status: "confirming",
      payout_txid: null,
    });
    expect(await webhookTypes(o.id)).toEqual(["order.status_changed", "order.held"]);
  });

  it("a UTXO deposit from an operator-listed input: refunded to the refund address at the deadline; without one, nobody to send it back to, a person decides", async () => {
    // On BTC the helper's `from` is the deposit's one input address (docs/test-mode.md).
    const input = "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa";
    const res = await admin("/screening/entries", {
      method: "POST",
      json: { network: "BTC", address: input, category: "operator", note: "utxo input test" },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const entry = await json<{ id: string }>(res);
    try {
      const back = await createOrder(p, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
      const held = await help(back.id, "deposit", { from: input, confirmations: 2 });
      expect(held).toMatchObject({
        status: "confirming",
        hold: { category: "operator", at_deadline: "refund" },
      });
      // Named as every address in the keyless status is: enough to recognise, not to learn.
      expect(held.hold?.reason).toContain(maskAddress(input));
      const status = await (await call(new URL(back.status_url).pathname)).text();
      expect(status).toContain('"hold"');
      expect(status).not.toContain(input);
      expect(await help(back.id, "pass-hold-deadline")).toMatchObject({
        status: "refunded",
        status_reason: "source_screened",
        refund_address: BTC_REFUND,
        payout_txid: null,
      });

      const none = await createOrder(p, BTC_TO_USDT);
      const seen = await help(none.id, "deposit", { from: input, confirmations: 2 });
      expect(seen.hold).toMatchObject({ category: "operator", at_deadline: "operator_review" });
      expect(await help(none.id, "pass-hold-deadline")).toMatchObject({
        status: "confirming",
        refund_address: null,
        refund_txid: null,
        payout_txid: null,
      });
    } finally {
      await admin(`/screening/entries/${entry.id}`, { method: "DELETE" });
    }
  });

  it("risk: at the deadline the deposit goes back to the refund address", async () => {
    const o = await createOrder(p, { ...toBtc("ETH", 0.5), refund_address: CLEAR_ETH });
    const seen = await help(o.id, "deposit", { from: RISK_EVM, confirmations: 64 });
    expect(seen).toMatchObject({ status: "confirming", hold: { category: "risk", at_deadline: "refund" } });
    const done = await help(o.id, "pass-hold-deadline");
    expect(done).toMatchObject({
      status: "refunded",
      status_reason: "source_screened",
      refund_address: CLEAR_ETH,
      payout_txid: null,
      hold: null,
    });
    expect(done.refund_txid).not.toBeNull();
  });

  it("risk, no refund address on an account chain: at the deadline the deposit goes back to its sender", async () => {
    const o = await createOrder(p, toBtc("ETH", 0.5));
    const seen = await help(o.id, "deposit", { from: RISK_EVM, confirmations: 64 });
    expect(seen.hold).toMatchObject({ category: "risk", at_deadline: "refund" });
    const done = await help(o.id, "pass-hold-deadline");
    expect(done).toMatchObject({ status: "refunded", status_reason: "source_screened", payout_txid: null });
    expect(done.refund_address?.toLowerCase()).toBe(RISK_EVM.toLowerCase());
    expect(done.refund_txid).not.toBeNull();
  });

  it("issuer-blocked sender, no refund address: a person decides at the deadline (a transfer back would revert)", async () => {
    const o = await createOrder(p, toBtc("TRX", 1000));
    const seen = await help(o.id, "deposit", { from: ISSUER_BLOCKED_TRON, confirmations: 40 });
    expect(seen.hold).toMatchObject({ category: "issuer_blocked", at_deadline: "operator_review" });
    const after = await help(o.id, "pass-hold-deadline");
    expect(after).toMatchObject({ status: "confirming", payout_txid: null, refund_txid: null });
  });

  it("a clear sender is not held; the operator's release resumes a held order, webhooks once each", async () => {
    const clear = await createOrder(p, BTC_TO_USDT);
    expect((await help(clear.id, "deposit", { from: CLEAR_BTC })).hold).toBeNull();

    const o = await createOrder(p, { ...BTC_TO_USDT, recipient_address: TRON_ADDR });
    await help(o.id, "deposit", { from: SANCTIONED_BTC });
    // A confirmation while held moves the order's record, not its hold: no second `order.held`.
    expect(await help(o.id, "confirm", { blocks: 1 })).toMatchObject({
      status: "confirming",
      deposit_confirmations: 1,
    });
    const released = await admin(`/orders/${o.id}/hold`, { method: "DELETE" });
    expect(released.status).toBe(200);
    expect((await json<Held>(released)).hold).toBeNull();
    const resumed = await help(o.id, "confirm");
    expect(resumed).toMatchObject({ status: "completed", hold: null });
    const types = await webhookTypes(o.id);
    expect(types.filter((t) => t === "order.held")).toHaveLength(1);
    expect(types.filter((t) => t === "order.released")).toHaveLength(1);
  });

  it("the operator extends the deadline once, with a reason, audited; a second extension is refused", async () => {
    const o = await createOrder(p, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    const { hold } = await help(o.id, "deposit", { from: SANCTIONED_BTC });
    const extend = (reason: string) =>
      admin(`/orders/${o.id}/hold/extend`, { method: "POST", json: { hours: 24, reason } });
    const res = await extend("waiting for the sender's documents");
    expect(res.status).toBe(200);
    const moved = (await get(o.id)).hold as OrderHold;
    expect(Date.parse(moved.deadline_at) - Date.parse((hold as OrderHold).deadline_at)).toBe(24 * HOURS);
    expect(moved.extended?.reason).toBe("waiting for the sender's documents");
    // The moved deadline reaches the list's row too (the status did not change).
    await env.ORDERS.getByName(o.id).tick();
    expect((await listed(o.id))?.hold).toEqual(moved);
    await expectError(await extend("again"), 409, "action_not_available");
    const audit = await json<{ data: { action: string; entity_id: string }[] }>(
      await admin(`/audit?entity_type=order&entity_id=${o.id}`),
    );
    expect(audit.data.filter((a) => a.action === "order.hold_extend")).toHaveLength(1);
  });
});
