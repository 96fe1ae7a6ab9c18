/**
 * A payout gateway that does NOT deduplicate: every POST /payouts it accepts is a payment, recorded
 * with its key and request. So "never paid twice" is the lifecycle's doing (frozen request, lookup
 * before every re-send), not the gateway's, and a check fails if that protection is removed.
 *
 * Pure request → answer logic, shared by the tests' MSW gateway (test/support/fake-gateway.ts,
 * inside workerd) and the soak's HTTP server (scripts/lib/gateway.mjs, Node): both speak the
 * contract of docs/adapters.md ("The payout gateway contract") and only translate the answer. No
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
  | "refuse"
  /** A proxy (or a forger) answers 200 `{txid}` unsigned: nothing paid. */
  | "unsigned_ok"
  /**
   * The POST is held in the network and the caller's connection drops: it reaches the gateway only
   * on `deliverDelayed()` (or `settle()`), after whatever lookups came first.
   */
  | "delay";

/**
 * How the gateway answers one GET /payouts/{key}. `forget` is a broken gateway that lost its
 * records: a signed "unknown key" for a key it paid. Drawn only at a `forget` rate the caller
 * sets; it exists to show that the paid-twice checks can fail. The others are what a bad network
 * or an attacker serves: an unsigned 200 `{txid}`, a signed "unknown key" captured for another key
 * and replayed, one for this key signed an hour ago, our credentials refused (401).
 */
export type LookupFault =
  | "ok"
  | "unsigned_404"
  | "5xx"
  | "forget"
  | "unsigned_200"
  | "replayed_unknown_key"
  | "stale_unknown_key"
  | "401";

/** How the gateway answers GET /balances: signed, unsigned, or signed with another secret. */
export type BalancesFault = "ok" | "unsigned" | "wrong_signature";

/** The send an order's try belongs to: the order tries `<key>`, then `<key>~2`, … (src/domain/send-step.ts). */
export const sendOf = (tryKey: string): string => tryKey.replace(/~\d+$/, "");

export interface Op {
  op: "send" | "lookup";
  /** The send (its ledger key), whichever try's key was asked or sent. */
  key: string;
  /** The gateway key of the try. */
  tryKey: string;
  body?: string;
}

export interface Payment {
  /** The gateway key it was paid under. */
  key: string;
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
  /** Payments made per send, whatever try's key (each accepted POST is one). */
  payments: Map<string, Payment[]>;
  /** Keys answered "unknown key": refused from then on (contract v2). */
  tombstones: Set<string>;
  /** POSTs refused because their key was tombstoned (a delayed POST that would have paid). */
  refusedLate: string[];
  /** Every call, in order. */
  ops: Op[];
  /** How many times each fault was served (scripted or drawn), by name. */
  faultsServed: Map<string, number>;
  sendFaults: SendFault[];
  lookupFaults: LookupFault[];
  /** When the scripts are empty: faults drawn at these rates (seeded); `forget` only when asked. */
  random: { sendFault: number; lookupFault: number; seed: number; forget?: number } | null;
  /** Pays everything taken with `pay_later`, then delivers the delayed POSTs. */
  settle(): Promise<void>;
  /** Delivers the POSTs held by `delay` faults, as the gateway would take them now. */
  deliverDelayed(): Promise<void>;
  /** Sends paid more than once, under one key or several tries' keys (must be empty). */
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
  const signedText = async (status: number, t: string): Promise<GatewayAnswer> =>
    text(status, t, { "content-type": "application/json", "x-signature": await sign(t) });
  /** Contract v2: a statement names the key, the outcome (txid and amount of a payment) and when. */
  const statement = (status: number, key: string, said: object, at = new Date()) =>
    signedText(status, JSON.stringify({ key, ...said, at: at.toISOString() }));
  const payments = new Map<string, Payment[]>();
  const pending = new Map<string, string>();
  const delayed: GatewayCall[] = [];
  const tombstones = new Set<string>();
  const refusedLate: string[] = [];
  const ops: Op[] = [];
  let n = 0;
  let lastUnknownKey: string | null = null;
  const pay = (key: string, body: string) => {
    const txid = (++n).toString(16).padStart(64, "0");
    payments.set(sendOf(key), [...(payments.get(sendOf(key)) ?? []), { key, txid, body }]);
    return txid;
  };
  const paidUnder = (key: string) => payments.get(sendOf(key))?.find((p) => p.key === key);
  const amountOf = (body: string) => (JSON.parse(body) as { amount: string }).amount;
  const settleKey = (key: string) => {
    const body = pending.get(key);
    if (body === undefined) return;
    pending.delete(key);
    pay(key, body);
  };
  const draws = seededDraws();

  const gw: CountingGateway = {
    payments,
    tombstones,
    refusedLate,
    ops,
    faultsServed: new Map(),
    sendFaults: [],
    lookupFaults: [],
    random: null,
    async settle() {
      for (const key of [...pending.keys()]) settleKey(key);
      await gw.deliverDelayed();
    },
    async deliverDelayed() {
      for (const call of delayed.splice(0)) await accept(call, "ok");
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
    const kinds: SendFault[] = [
      "pay_then_drop",
      "5xx",
      "pay_then_5xx",
      "pay_later",
      "401",
      "unsigned_ok",
      "delay",
    ];
    return kinds[draws.count % kinds.length] ?? "ok";
  };
  const drawLookup = (): LookupFault => {
    const scripted = gw.lookupFaults.shift();
    if (scripted) return scripted;
    if (gw.random?.forget && draws.draw(gw.random.forget, gw.random.seed)) return "forget";
    if (!gw.random || !draws.draw(gw.random.lookupFault, gw.random.seed)) return "ok";
    const kinds: LookupFault[] = [
      "unsigned_404",
      "5xx",
      "unsigned_200",
      "replayed_unknown_key",
      "stale_unknown_key",
      "401",
    ];
    return kinds[draws.count % kinds.length] ?? "ok";
  };

  async function send(call: GatewayCall): Promise<GatewayAnswer> {
    if (call.header("x-signature") !== (await sign(call.body))) return text(401);
    const key = call.header("idempotency-key") ?? "";
    // Counted when the order sends it, whenever it reaches the gateway.
    ops.push({ op: "send", key: sendOf(key), tryKey: key, body: call.body });
    const fault = served("send", drawSend());
    if (fault === "delay") {
      delayed.push(call);
      if (options.settleAfterMs)
        setTimeout(() => {
          const i = delayed.indexOf(call);
          if (i < 0) return;
          delayed.splice(i, 1);
          void accept(call, "ok");
        }, options.settleAfterMs());
      return { drop: true };
    }
    return accept(call, fault);
  }

  /** A POST as it reaches the gateway: a key answered "unknown key" before is refused, never paid. */
  async function accept(call: GatewayCall, fault: Exclude<SendFault, "delay">): Promise<GatewayAnswer> {
    const key = call.header("idempotency-key") ?? "";
    if (tombstones.has(key)) {
      refusedLate.push(key);
      return statement(409, key, { status: "refused", reason: "key answered unknown_key before" });
    }
    const paid = async (txid: string) =>
      statement(201, key, { status: "sent", txid, amount: amountOf(call.body) });
    switch (fault) {
      case "ok":
        return paid(pay(key, call.body));
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
        return statement(422, key, { status: "refused", reason: "address blocked" });
      case "unsigned_ok":
        return json(200, { txid: "f".repeat(64) });
    }
  }

  async function lookup(call: GatewayCall, encodedKey: string): Promise<GatewayAnswer> {
    const key = decodeURIComponent(encodedKey);
    if (call.header("x-signature") !== (await sign(`GET ${call.path}`))) return text(401);
    ops.push({ op: "lookup", key: sendOf(key), tryKey: key });
    const fault = served("lookup", drawLookup());
    if (fault === "unsigned_404") return text(404, "Not Found");
    if (fault === "5xx") return text(503);
    if (fault === "401") return text(401, "unauthorized");
    if (fault === "unsigned_200") return json(200, { txid: "e".repeat(64) });
    if (fault === "stale_unknown_key")
      return statement(404, key, { status: "unknown_key" }, new Date(Date.now() - 3_600_000));
    if (fault === "replayed_unknown_key")
      return lastUnknownKey === null ? text(503) : signedText(404, lastUnknownKey);
    const paid = paidUnder(key);
    if (paid && fault !== "forget")
      return statement(200, key, { status: "sent", txid: paid.txid, amount: amountOf(paid.body) });
    if (pending.has(key)) return text(409, "in progress");
    // A tombstone: from this answer on, a POST for the key (one still in flight) is refused.
    tombstones.add(key);
    const answer = await statement(404, key, { status: "unknown_key" });
    if ("body" in answer) lastUnknownKey = answer.body;
    return answer;
  }

  async function balances(call: GatewayCall): Promise<GatewayAnswer> {
    if (call.header("x-signature") !== (await sign(`GET ${call.path}`))) return text(401);
    const body = JSON.stringify({ balances: gw.balances });
    if (gw.balancesFault === "ok") return signedText(200, body);
    const headers: Record<string, string> =
      gw.balancesFault === "wrong_signature"
        ? { "x-signature": await options.sign("another-secret", body) }
        : {};
    return text(200, body, headers);
  }

  return gw;
}
