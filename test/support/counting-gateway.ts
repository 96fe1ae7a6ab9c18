/**
 * A payout gateway that does NOT deduplicate: every POST /payouts it accepts is a payment, recorded
 * with its key and request. So "never paid twice" is the lifecycle's doing (frozen request, lookup
 * before every re-send), not the gateway's, and a check fails if that protection is removed.
 *
 * Pure request → answer logic, shared by the tests' MSW gateway (test/support/fake-gateway.ts,
 * inside workerd) and the soak's HTTP server (scripts/lib/gateway.mjs, Node): both speak the
 * contract of docs/lifecycle.md ("The payout gateway contract") and only translate the answer. No
 * relative imports, so Node runs this file as it is (type stripping); the HMAC comes in as `sign`.
 */

/** How the gateway answers one POST /payouts. */
export type SendFault =
  | "ok"
  /** Pays, then the connection drops: the caller cannot know. */
  | "pay_then_drop"
  /** Fails before paying. */
  | "5xx"
  /** Pays, then answers 502 (a proxy timed out in front of it). */
  | "pay_then_5xx"
  /** Takes the request and pays later (`settle()`, or by itself after `settleAfterMs`); answers 504 now, lookups say "in progress". */
  | "pay_later"
  /** The gateway refuses our credentials (rotated secret): nothing paid. */
  | "401"
  /** A signed, final refusal: nothing paid. */
  | "refuse";

/**
 * How the gateway answers one GET /payouts/{key}. `forget` is a broken gateway that lost its
 * records: a signed "unknown key" for a key it paid. Drawn only at a `forget` rate the caller
 * sets; it exists to show that the paid-twice checks can fail.
 */
export type LookupFault = "ok" | "unsigned_404" | "5xx" | "forget";

/** How the gateway answers GET /balances: signed, unsigned, or signed with another secret. */
export type BalancesFault = "ok" | "unsigned" | "wrong_signature";

export interface Op {
  op: "send" | "lookup";
  key: string;
  body?: string;
}

export interface Payment {
  txid: string;
  body: string;
}

/** One request as the gateway sees it: path with its query removed, headers by lower-case name. */
export interface GatewayCall {
  method: string;
  path: string;
  header(name: string): string | null;
  body: string;
}

/** What to answer: a response, or `drop` (close the connection without one). */
export type GatewayAnswer =
  | { drop: true }
  | { status: number; body: string; headers: Record<string, string> };

export interface CountingGatewayOptions {
  secret: string;
  /** Lower-case hex HMAC-SHA256 of `text` keyed by `secret`. */
  sign(secret: string, text: string): Promise<string>;
  /** When set, a `pay_later` payment settles by itself after this many ms (else on `settle()`). */
  settleAfterMs?: () => number;
  /**
   * The path prefix the gateway is served under (`/gw` for https://gw.example/gw): routes are
   * matched after it, signatures checked over the whole path as received.
   */
  prefix?: string;
}

export interface CountingGateway {
  /** Payments made per key (each accepted POST is one). */
  payments: Map<string, Payment[]>;
  /** Every call, in order. */
  ops: Op[];
  /** How many times each fault was served (scripted or drawn), by name. */
  faultsServed: Map<string, number>;
  sendFaults: SendFault[];
  lookupFaults: LookupFault[];
  /** When the scripts are empty: faults drawn at these rates (seeded); `forget` only when asked. */
  random: { sendFault: number; lookupFault: number; seed: number; forget?: number } | null;
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
  /** Answers one request. */
  handle(call: GatewayCall): Promise<GatewayAnswer>;
}

const text = (status: number, body = "", headers: Record<string, string> = {}): GatewayAnswer => ({
  status,
  body,
  headers,
});
const json = (status: number, body: object): GatewayAnswer =>
  text(status, JSON.stringify(body), { "content-type": "application/json" });

/**
 * Seeded fault draws: `draw(rate, seed)` is true with probability `rate`, repeatably for a seed
 * (splitmix32 over the seed and the draw's number); `count` is how many draws were made, which the
 * fakes use to pick a fault's kind.
 */
export function seededDraws(): { draw(rate: number, seed: number): boolean; readonly count: number } {
  let n = 0;
  return {
    draw(rate, seed) {
      let x = (seed * 0x9e3779b9 + ++n * 0x85ebca6b) >>> 0;
      x = Math.imul(x ^ (x >>> 16), 0x21f0aaad) >>> 0;
      x = Math.imul(x ^ (x >>> 15), 0x735a2d97) >>> 0;
      return ((x ^ (x >>> 15)) >>> 0) / 2 ** 32 < rate;
    },
    get count() {
      return n;
    },
  };
}

export function createCountingGateway(options: CountingGatewayOptions): CountingGateway {
  const sign = (t: string) => options.sign(options.secret, t);
  const signed = async (status: number, body: object): Promise<GatewayAnswer> => {
    const t = JSON.stringify(body);
    return text(status, t, { "content-type": "application/json", "x-signature": await sign(t) });
  };
  const payments = new Map<string, Payment[]>();
  const pending = new Map<string, string>();
  const ops: Op[] = [];
  let n = 0;
  const pay = (key: string, body: string) => {
    const txid = (++n).toString(16).padStart(64, "0");
    payments.set(key, [...(payments.get(key) ?? []), { txid, body }]);
    return txid;
  };
  const settleKey = (key: string) => {
    const body = pending.get(key);
    if (body === undefined) return;
    pending.delete(key);
    pay(key, body);
  };
  const draws = seededDraws();

  const gw: CountingGateway = {
    payments,
    ops,
    faultsServed: new Map(),
    sendFaults: [],
    lookupFaults: [],
    random: null,
    settle() {
      for (const key of [...pending.keys()]) settleKey(key);
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
    async handle(call) {
      const prefix = options.prefix ?? "";
      if (!call.path.startsWith(prefix)) return text(404, "no such route");
      const route = call.path.slice(prefix.length);
      if (call.method === "POST" && route === "/payouts") return send(call);
      if (call.method === "GET" && route === "/balances") return balances(call);
      const m = /^\/payouts\/([^/]+)$/.exec(route);
      if (call.method === "GET" && m?.[1]) return lookup(call, m[1]);
      return text(404, "no such route");
    },
  };

  const served = <F extends string>(op: Op["op"], fault: F): F => {
    const name = `${op} ${fault}`;
    if (fault !== "ok") gw.faultsServed.set(name, (gw.faultsServed.get(name) ?? 0) + 1);
    return fault;
  };
  const drawSend = (): SendFault => {
    const scripted = gw.sendFaults.shift();
    if (scripted) return scripted;
    if (!gw.random || !draws.draw(gw.random.sendFault, gw.random.seed)) return "ok";
    const kinds: SendFault[] = ["pay_then_drop", "5xx", "pay_then_5xx", "pay_later", "401"];
    return kinds[draws.count % kinds.length] ?? "ok";
  };
  const drawLookup = (): LookupFault => {
    const scripted = gw.lookupFaults.shift();
    if (scripted) return scripted;
    if (gw.random?.forget && draws.draw(gw.random.forget, gw.random.seed)) return "forget";
    if (!gw.random || !draws.draw(gw.random.lookupFault, gw.random.seed)) return "ok";
    return draws.count % 2 ? "unsigned_404" : "5xx";
  };

  async function send(call: GatewayCall): Promise<GatewayAnswer> {
    const key = call.header("idempotency-key") ?? "";
    if (call.header("x-signature") !== (await sign(call.body))) return text(401);
    ops.push({ op: "send", key, body: call.body });
    switch (served("send", drawSend())) {
      case "ok":
        return json(201, { txid: pay(key, call.body) });
      case "pay_then_drop":
        pay(key, call.body);
        return { drop: true };
      case "5xx":
        return text(503, "unavailable");
      case "pay_then_5xx":
        pay(key, call.body);
        return text(502, "bad gateway");
      case "pay_later":
        pending.set(key, call.body);
        if (options.settleAfterMs) setTimeout(() => settleKey(key), options.settleAfterMs());
        return text(504, "gateway timeout");
      case "401":
        return text(401, "unauthorized");
      case "refuse":
        return signed(422, { status: "refused", reason: "address blocked" });
    }
  }

  async function lookup(call: GatewayCall, encodedKey: string): Promise<GatewayAnswer> {
    const key = decodeURIComponent(encodedKey);
    if (call.header("x-signature") !== (await sign(`GET ${call.path}`))) return text(401);
    ops.push({ op: "lookup", key });
    const fault = served("lookup", drawLookup());
    if (fault === "unsigned_404") return text(404, "Not Found");
    if (fault === "5xx") return text(503);
    const paid = payments.get(key)?.[0];
    if (paid && fault !== "forget") return json(200, { txid: paid.txid });
    if (pending.has(key)) return text(409, "in progress");
    return signed(404, { status: "unknown_key" });
  }

  async function balances(call: GatewayCall): Promise<GatewayAnswer> {
    if (call.header("x-signature") !== (await sign(`GET ${call.path}`))) return text(401);
    const body = { balances: gw.balances };
    if (gw.balancesFault === "ok") return signed(200, body);
    const t = JSON.stringify(body);
    const headers: Record<string, string> =
      gw.balancesFault === "wrong_signature"
        ? { "x-signature": await options.sign("another-secret", t) }
        : {};
    return text(200, t, headers);
  }

  return gw;
}
