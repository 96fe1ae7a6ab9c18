import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPartner, setPrices, type TestPartner } from "./helpers";
import { cli } from "./support/cli";
import {
  BTC_TO_USDT,
  createOrder,
  events,
  type Order,
  read,
  simMine,
  simSend,
  startClock,
  step,
} from "./support/orders";

const NEW_BTC = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const NEW_TRON = "TZ1RFjs5gov1Qse96dMz7uCuMvabw7X72i";

let partner: TestPartner;

beforeAll(async () => {
  partner = await createPartner({ name: "cli-orders", rate_limit_per_minute: 100_000 });
  await setPrices();
  startClock();
});

afterAll(() => {
  vi.useRealTimers();
});

/** An underpaid order without a refund address: failed, holding its deposit. */
async function held(): Promise<Order> {
  const o = await createOrder(partner, BTC_TO_USDT);
  await simSend("BTC", o.deposit_address, "0.0003");
  await simMine("BTC", 2);
  await step(o.id);
  await step(o.id); // the projection into the index
  return o;
}

describe("CLI: orders", () => {
  it("review lists the held orders; show says what can be done; refund and resolve take them off", async () => {
    const a = await held();
    const b = await held();
    const review = await cli("orders", "review");
    expect(review.code).toBe(0);
    expect(review.stdout.indexOf(a.short_id)).toBeGreaterThan(-1);
    expect(review.stdout.indexOf(a.short_id)).toBeLessThan(review.stdout.indexOf(b.short_id));
    const listed = JSON.parse((await cli("--json", "orders", "review")).stdout) as { data: { id: string }[] };
    expect(listed.data.map((r) => r.id)).toEqual(expect.arrayContaining([a.id, b.id]));

    const show = await cli("orders", "show", a.short_id);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("Waits for a decision (amount_below_min)");
    expect(show.stdout).toMatch(/refund\s+0\.0002 BTC to an address you give/);

    // The API's refusal is printed with its code; usage errors never reach the API.
    const noAddress = await cli("orders", "refund", a.short_id);
    expect(noAddress.code).toBe(1);
    expect(noAddress.stderr).toContain("invalid_address, HTTP 422");
    expect((await cli("orders", "refund", a.short_id, "--tag", "1")).code).toBe(2);
    expect((await cli("orders", "payout", a.short_id)).code).toBe(2);
    const notOffered = await cli("orders", "payout", a.short_id, "--address", NEW_TRON);
    expect(notOffered.stderr).toContain("action_not_available, HTTP 409");

    const refund = await cli("orders", "refund", a.short_id, "--address", NEW_BTC);
    expect(refund.code).toBe(0);
    expect(refund.stdout).toContain(`Refund chosen for order ${a.short_id}: it is refunding.`);
    expect((await read(partner, a.id)).refund_address).toBe(NEW_BTC);
    const decided = (await events(a.id)).find((e) => e.data?.event === "refund_chosen");
    expect(decided?.data).toMatchObject({ decided_by: "operator", refund_address: NEW_BTC });

    expect(
      (await cli("orders", "resolve", b.id, "--kind", "exchange", "--txid", "t", "--note", "n")).code,
    ).toBe(2);
    expect((await cli("orders", "resolve", b.id, "--kind", "refund", "--txid", "t")).code).toBe(2);
    const onHold = await cli("orders", "hold", b.id, "--note", "settling by hand");
    expect(onHold.code).toBe(0);
    expect(onHold.stdout).toContain(`Order ${b.short_id} is on hold.`);
    const resolved = await cli(
      "orders",
      "resolve",
      b.id,
      "--kind",
      "refund",
      "--txid",
      "c".repeat(64),
      "--note",
      "by hand",
    );
    expect(resolved.code).toBe(0);
    expect(resolved.stdout).toContain(`Recorded the refund ${"c".repeat(64)} on order ${b.short_id}.`);
    expect(await read(partner, b.id)).toMatchObject({ status: "refunded", refund_txid: "c".repeat(64) });

    await step(a.id);
    await step(b.id);
    const after = await cli("--json", "orders", "review");
    const ids = (JSON.parse(after.stdout) as { data: { id: string }[] }).data.map((r) => r.id);
    expect(ids).not.toContain(a.id);
    expect(ids).not.toContain(b.id);
  });

  it("continue on a held order that fits the limits now", async () => {
    await setPrices(); // the first test's simulated minutes made the prices stale
    const o = await createOrder(partner, { ...BTC_TO_USDT, rate_type: "fixed" });
    await simSend("BTC", o.deposit_address, "0.0102");
    await simMine("BTC", 2);
    await step(o.id);
    expect((await read(partner, o.id)).status_reason).toBe("fixed_amount_mismatch");
    const r = await cli("orders", "continue", o.short_id);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Continue chosen for order ${o.short_id}: it is exchanging.`);
  });
});
