/**
 * One send through the ledger (src/objects/order/send-once.ts), over an order object's real storage and
 * a scripted gateway that records every call: the request is frozen before the first send and sent
 * exactly so on every retry; after any attempt the gateway is asked before anything goes out again;
 * nothing happens before the row's next moment.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type {
  PayoutGateway,
  PayoutLookup,
  PayoutRequest,
  PayoutResult,
} from "../../../src/adapters/payout/types";
import type { SendAlert, SendPolicy } from "../../../src/domain/send-step";
import { orderTables } from "../../../src/objects/order/context";
import { DUE, OrderSchedule } from "../../../src/objects/order/schedule";
import { sendOnce } from "../../../src/objects/order/send-once";
import { SendsLedger } from "../../../src/objects/order/sends-ledger";
import { TRON_ADDR } from "../../support/orders";

const KEY = "order-1:payout";
const policy: SendPolicy = { maxAttempts: 3, retryBaseMs: 1_000, retryCapMs: 8_000 };
const T = 1_700_000_000_000;

function request(amount: string): PayoutRequest {
  return {
    idempotencyKey: KEY,
    orderId: "order-1",
    kind: "payout",
    network: "TRX",
    coin: "USDT",
    contract: TRON_ADDR,
    to: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
    tag: null,
    amount,
  };
}

/** Answers from the script, in order; records each call. */
function scriptedGateway(sends: PayoutResult[], lookups: (PayoutLookup | Error)[]) {
  const calls: string[] = [];
  const sent: PayoutRequest[] = [];
  const gateway: PayoutGateway = {
    async send(req) {
      calls.push("send");
      sent.push(req);
      const next = sends.shift();
      if (!next) throw new Error("unexpected send");
      return next;
    },
    async lookup(req) {
      calls.push("lookup");
      // Asked about the last try: the first under the ledger key itself.
      expect(req.idempotencyKey).toBe(sent.at(-1)?.idempotencyKey);
      const next = lookups.shift();
      if (!next) throw new Error("unexpected lookup");
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return { gateway, calls, sent };
}

/** Runs `fn` over a fresh order object's storage (its constructor has made the tables). */
function withLedger(
  fn: (t: { ledger: SendsLedger; schedule: OrderSchedule }) => Promise<void>,
): Promise<void> {
  return runInDurableObject(env.ORDERS.getByName(crypto.randomUUID()), async (_obj, state) => {
    const schedule = new OrderSchedule(state.storage.sql);
    await fn({ ledger: new SendsLedger(orderTables(state.storage.sql).sends, schedule), schedule });
  });
}

function outcomes() {
  const log: string[] = [];
  return {
    log,
    sent: (txid: string) => void log.push(`sent ${txid}`),
    failed: async (error: string, attempts: number) => void log.push(`failed ${error} after ${attempts}`),
    retrying: (error: string, attempts: number) => void log.push(`retrying ${error} after ${attempts}`),
    alerts: (raise: SendAlert | null) => void (raise && log.push(`alert ${raise.message}`)),
  };
}

describe("sendOnce", () => {
  it("a paid first send: the request built once, sent, and the row finished with its txid", async () => {
    await withLedger(async ({ ledger, schedule }) => {
      const gw = scriptedGateway([{ status: "sent", txid: "tx1" }], [{ status: "sent", txid: "tx1" }]);
      const o = outcomes();
      let built = 0;
      const build = async () => {
        built++;
        return request("100");
      };
      await sendOnce(ledger, gw.gateway, policy, KEY, build, o, T);
      expect(built).toBe(1);
      expect(gw.calls).toEqual(["send"]);
      expect(o.log).toEqual(["sent tx1"]);
      expect(ledger.get(KEY)).toMatchObject({ attempts: 1, outcome: "sent", txid: "tx1" });
      expect(schedule.get(DUE.send(KEY))).toBeNull();
      // Stepped again (an event that did not apply, say): the gateway is asked, nothing is re-sent.
      await sendOnce(ledger, gw.gateway, policy, KEY, build, o, T + 60_000);
      expect(gw.calls).toEqual(["send", "lookup"]);
      expect(built).toBe(1);
      expect(o.log).toEqual(["sent tx1", "sent tx1"]);
    });
  });

  it("after a timed-out send: nothing before the next moment, then a lookup, then exactly the frozen request", async () => {
    await withLedger(async ({ ledger, schedule }) => {
      const gw = scriptedGateway(
        [
          { status: "unknown", error: "timeout" },
          { status: "sent", txid: "tx2" },
        ],
        [{ status: "unknown_key" }],
      );
      const o = outcomes();
      let amount = "100";
      // The amount a retry would compute has changed (a fee moved): the frozen one must go out.
      const build = async () => request(amount);
      await sendOnce(ledger, gw.gateway, policy, KEY, build, o, T);
      expect(o.log).toEqual(["retrying timeout after 1"]);
      expect(schedule.get(DUE.send(KEY))).toBe(T + 1_000);
      amount = "99";
      await sendOnce(ledger, gw.gateway, policy, KEY, build, o, T + 999);
      expect(gw.calls).toEqual(["send"]);
      await sendOnce(ledger, gw.gateway, policy, KEY, build, o, T + 1_000);
      expect(gw.calls).toEqual(["send", "lookup", "send"]);
      expect(gw.sent.map((r) => r.amount)).toEqual(["100", "100"]);
      // The second try under its own key: the gateway refuses the first from its "unknown key" on.
      expect(gw.sent.map((r) => r.idempotencyKey)).toEqual([KEY, `${KEY}~2`]);
      expect(o.log.at(-1)).toBe("sent tx2");
      expect(ledger.get(KEY)).toMatchObject({ attempts: 2, failures: 1, outcome: "sent", txid: "tx2" });
    });
  });

  it("a timed-out send the gateway did pay is settled by the lookup, never sent again", async () => {
    await withLedger(async ({ ledger }) => {
      const gw = scriptedGateway(
        [{ status: "unknown", error: "socket closed" }],
        [{ status: "sent", txid: "tx3" }],
      );
      const o = outcomes();
      await sendOnce(ledger, gw.gateway, policy, KEY, async () => request("100"), o, T);
      await sendOnce(ledger, gw.gateway, policy, KEY, async () => request("100"), o, T + 1_000);
      expect(gw.calls).toEqual(["send", "lookup"]);
      expect(o.log).toEqual(["retrying socket closed after 1", "sent tx3"]);
    });
  });

  it("a lookup that cannot tell sends nothing: the order keeps asking, alerted past the budget", async () => {
    await withLedger(async ({ ledger }) => {
      const down = new Error("gateway 503");
      const gw = scriptedGateway([{ status: "unknown", error: "timeout" }], [down, down, down]);
      const o = outcomes();
      let now = T;
      await sendOnce(ledger, gw.gateway, policy, KEY, async () => request("100"), o, now);
      for (let i = 0; i < 3; i++) {
        now = ledger.get(KEY)?.nextAt ?? now;
        await sendOnce(ledger, gw.gateway, policy, KEY, async () => request("100"), o, now);
      }
      expect(gw.calls).toEqual(["send", "lookup", "lookup", "lookup"]);
      expect(o.log.slice(-2)).toEqual([
        "alert payout outcome unknown: needs an operator",
        "retrying lookup failed: Error: gateway 503 after 1",
      ]);
      expect(ledger.get(KEY)).toMatchObject({ attempts: 1, unknownLookups: 3, outcome: null });
    });
  });

  it("a request that cannot be built fails the send before the gateway is called", async () => {
    await withLedger(async ({ ledger }) => {
      const gw = scriptedGateway([], []);
      const o = outcomes();
      await sendOnce(ledger, gw.gateway, policy, KEY, async () => "no refund address", o, T);
      expect(gw.calls).toEqual([]);
      expect(o.log).toEqual(["failed no refund address after 0"]);
      // Nothing was frozen, since nothing can have gone out: the failure is the order's to record.
      expect(ledger.get(KEY)).toBeNull();
    });
  });

  it("a configuration error is retried and alerted on, never counted against the order", async () => {
    await withLedger(async ({ ledger }) => {
      const gw = scriptedGateway([{ status: "unknown", error: "401 unsigned", config: true }], []);
      const o = outcomes();
      await sendOnce(ledger, gw.gateway, policy, KEY, async () => request("100"), o, T);
      expect(o.log).toEqual([
        "alert payout gateway configuration error: needs an operator",
        "retrying 401 unsigned after 1",
      ]);
      expect(ledger.get(KEY)).toMatchObject({ attempts: 1, failures: 0, outcome: null });
    });
  });
});
