/**
 * A payout gateway for tests, served over MSW to the real HTTP payout adapter (PAYOUT_MODE=http),
 * that does NOT deduplicate: every POST it accepts is a payment. So "never paid twice" is the
 * lifecycle's doing (frozen request, lookup before every re-send), not the gateway's, and a test
 * fails if that protection is removed. Faults are scripted per call or drawn from a seeded PRNG.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { afterEach, beforeEach, vi } from "vitest";
import { getConfig } from "../../src/config";
import { hmacSha256Hex } from "../../src/domain/credentials";
import { setPrices } from "../helpers";
import { createMockNetwork } from "./msw";
import { startClock } from "./orders";

export const GATEWAY_URL = "https://gateway.test";
export const GATEWAY_SECRET = "fake-gateway-secret";

/** How the gateway answers one POST /payouts. */
export type SendFault =
  | "ok"
  /** Pays, then the connection drops: the caller cannot know. */
  | "pay_then_drop"
  /** Fails before paying. */
  | "5xx"
  /** Pays, then answers 502 (a proxy timed out in front of it). */
  | "pay_then_5xx"
  /** Takes the request and pays later (`settle()`); answers 504 now, lookups say "in progress". */
  | "pay_later"
  /** The gateway refuses our credentials (rotated secret): nothing paid. */
  | "401"
  /** A signed, final refusal: nothing paid. */
  | "refuse";

/** How the gateway answers one GET /payouts/{key}. */
export type LookupFault = "ok" | "unsigned_404" | "5xx";

/** How the gateway answers GET /balances: signed, unsigned, or signed with another secret. */
export type BalancesFault = "ok" | "unsigned" | "wrong_signature";

interface Op {
  op: "send" | "lookup";
  key: string;
  body?: string;
}

const sign = (text: string) => hmacSha256Hex(GATEWAY_SECRET, new TextEncoder().encode(text));

async function signed(body: object, status: number): Promise<Response> {
  const text = JSON.stringify(body);
  return new HttpResponse(text, { status, headers: { "x-signature": await sign(text) } });
}

export interface FakeGateway {
  /** Payments made per key (each accepted POST is one). */
  payments: Map<string, { txid: string; body: string }[]>;
  /** Every call, in order. */
  ops: Op[];
  sendFaults: SendFault[];
  lookupFaults: LookupFault[];
  /** When the scripts are empty: faults drawn at these rates (seeded). */
  random: { sendFault: number; lookupFault: number; seed: number } | null;
  /** Pays everything taken with `pay_later`. */
  settle(): void;
  /** Keys paid more than once (must be empty). */
  paidTwice(): string[];
  /** Every payment made for an order's keys, in order: key, destination and amount. */
  paidFor(orderId: string): { key: string; to: string; amount: string }[];
  /** Keys re-sent without a lookup since their previous send (must be empty). */
  resentWithoutLookup(): string[];
  /** What GET /balances reports, and how it answers. */
  balances: { coin: string; network: string; available: string }[];
  balancesFault: BalancesFault;
  /** Points the order's object at this gateway (PAYOUT_MODE=http); returns the undo. */
  attach(orderId: string): Promise<() => void>;
  /** Points any object (a liquidity ledger, say) at this gateway; returns the undo. */
  attachObject(stub: DurableObjectStub): Promise<() => void>;
}

export function createFakeGateway(): FakeGateway {
  const payments = new Map<string, { txid: string; body: string }[]>();
  const pending = new Map<string, string>();
  const ops: Op[] = [];
  let n = 0;
  const pay = (key: string, body: string) => {
    const txid = (++n).toString(16).padStart(64, "0");
    payments.set(key, [...(payments.get(key) ?? []), { txid, body }]);
    return txid;
  };
  let draws = 0;
  const draw = (rate: number, seed: number) => {
    // splitmix32 over (seed, n): repeatable runs.
    let x = (seed * 0x9e3779b9 + ++draws * 0x85ebca6b) >>> 0;
    x = Math.imul(x ^ (x >>> 16), 0x21f0aaad) >>> 0;
    x = Math.imul(x ^ (x >>> 15), 0x735a2d97) >>> 0;
    return ((x ^ (x >>> 15)) >>> 0) / 2 ** 32 < rate;
  };
  const gw: FakeGateway = {
    payments,
    ops,
    sendFaults: [],
    lookupFaults: [],
    random: null,
    settle() {
      for (const [key, body] of pending) pay(key, body);
      pending.clear();
    },
    paidTwice: () => [...payments].filter(([, p]) => p.length > 1).map(([k]) => k),
    paidFor: (orderId) =>
      [...payments]
        .filter(([key]) => key.startsWith(orderId))
        .flatMap(([key, ps]) =>
          ps.map((p) => {
            const b = JSON.parse(p.body) as { to: string; amount: string };
            return { key, to: b.to, amount: b.amount };
          }),
        ),
    resentWithoutLookup() {
      const bad = new Set<string>();
      const lastOp = new Map<string, Op["op"]>();
      for (const o of ops) {
        if (o.op === "send" && lastOp.get(o.key) === "send") bad.add(o.key);
        lastOp.set(o.key, o.op);
      }
      return [...bad];
    },
    balances: [],
    balancesFault: "ok",
    attach(orderId) {
      return gw.attachObject(env.ORDERS.getByName(orderId));
    },
    async attachObject(stub) {
      const config = await runInDurableObject(stub, (obj) => getConfig((obj as unknown as { env: Env }).env));
      const saved = {
        PAYOUT_MODE: config.PAYOUT_MODE,
        PAYOUT_GATEWAY_URL: config.PAYOUT_GATEWAY_URL,
        PAYOUT_GATEWAY_SECRET: config.PAYOUT_GATEWAY_SECRET,
      };
      Object.assign(config, {
        PAYOUT_MODE: "http",
        PAYOUT_GATEWAY_URL: GATEWAY_URL,
        PAYOUT_GATEWAY_SECRET: GATEWAY_SECRET,
      });
      vi.stubGlobal("fetch", net.fetch);
      return () => {
        Object.assign(config, saved);
        vi.unstubAllGlobals();
      };
    },
  };
  const nextSend = (): SendFault => {
    const scripted = gw.sendFaults.shift();
    if (scripted) return scripted;
    if (!gw.random || !draw(gw.random.sendFault, gw.random.seed)) return "ok";
    const kinds: SendFault[] = ["pay_then_drop", "5xx", "pay_then_5xx", "pay_later", "401"];
    return kinds[draws % kinds.length] ?? "ok";
  };
  const nextLookup = (): LookupFault => {
    const scripted = gw.lookupFaults.shift();
    if (scripted) return scripted;
    if (!gw.random || !draw(gw.random.lookupFault, gw.random.seed)) return "ok";
    return draws % 2 ? "unsigned_404" : "5xx";
  };
  const net = createMockNetwork(
    http.post(`${GATEWAY_URL}/payouts`, async ({ request }) => {
      const body = await request.text();
      const key = request.headers.get("idempotency-key") ?? "";
      if (request.headers.get("x-signature") !== (await sign(body)))
        return new HttpResponse(null, { status: 401 });
      ops.push({ op: "send", key, body });
      switch (nextSend()) {
        case "ok":
          return HttpResponse.json({ txid: pay(key, body) }, { status: 201 });
        case "pay_then_drop":
          pay(key, body);
          return HttpResponse.error();
        case "5xx":
          return new HttpResponse("unavailable", { status: 503 });
        case "pay_then_5xx":
          pay(key, body);
          return new HttpResponse("bad gateway", { status: 502 });
        case "pay_later":
          pending.set(key, body);
          return new HttpResponse("gateway timeout", { status: 504 });
        case "401":
          return new HttpResponse("unauthorized", { status: 401 });
        case "refuse":
          return signed({ status: "refused", reason: "address blocked" }, 422);
      }
    }),
    http.get(`${GATEWAY_URL}/payouts/:key`, async ({ params }) => {
      const key = decodeURIComponent(String(params.key));
      ops.push({ op: "lookup", key });
      const fault = nextLookup();
      if (fault === "unsigned_404") return new HttpResponse("Not Found", { status: 404 });
      if (fault === "5xx") return new HttpResponse(null, { status: 503 });
      const paid = payments.get(key)?.[0];
      if (paid) return HttpResponse.json({ txid: paid.txid });
      if (pending.has(key)) return new HttpResponse("in progress", { status: 409 });
      return signed({ status: "unknown_key" }, 404);
    }),
    http.get(`${GATEWAY_URL}/balances`, async ({ request }) => {
      if (request.headers.get("x-signature") !== (await sign("GET /balances")))
        return new HttpResponse(null, { status: 401 });
      const body = { balances: gw.balances };
      if (gw.balancesFault === "ok") return signed(body, 200);
      const text = JSON.stringify(body);
      const headers: Record<string, string> =
        gw.balancesFault === "wrong_signature"
          ? { "x-signature": await hmacSha256Hex("another-secret", new TextEncoder().encode(text)) }
          : {};
      return new HttpResponse(text, { status: 200, headers });
    }),
  );
  return gw;
}

/**
 * The frame the money-path, order-action and review tests share: real timers, seeded prices and
 * the test clock before each test, a fresh counting gateway for it, and after it the gateway
 * detached from whatever order it was attached to and every mock restored.
 */
export function useFakeGateway(): { readonly gw: FakeGateway; attach(orderId: string): Promise<void> } {
  let gw: FakeGateway | undefined;
  let detach: (() => void) | undefined;
  beforeEach(async () => {
    vi.useRealTimers();
    await setPrices();
    startClock();
    gw = createFakeGateway();
  });
  afterEach(() => {
    detach?.();
    detach = undefined;
    vi.restoreAllMocks();
    vi.useRealTimers();
  });
  return {
    get gw() {
      if (!gw) throw new Error("useFakeGateway: the gateway exists only inside a test");
      return gw;
    },
    async attach(orderId) {
      detach = await this.gw.attach(orderId);
    },
  };
}
