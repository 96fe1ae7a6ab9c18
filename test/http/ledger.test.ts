/**
 * Ledger's Partner Swap Service v2 under /ledger/v2 (docs/ledger.md). Every answer is checked
 * against Ledger's own document (test/support/ledger-document.ts); the payload's signature is
 * checked with `jose` (WebCrypto underneath), not with the code that signed it, and the payload is
 * decoded by hand here.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { base64urlnopad, hex } from "@scure/base";
import { flattenedVerify, importJWK } from "jose";
import { HttpResponse, http } from "msw";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { LEDGER_STATUS_EVENT_TYPE } from "../../src/domain/ledger-swap";
import type { WebhookMessage } from "../../src/domain/webhooks";
import { deliverBatch } from "../../src/services/webhook-delivery";
import { admin, call, createPartner, json, setPrices, TEST_PRICES, type TestPartner } from "../helpers";
import { expectLedgerSchema, LEDGER_OPERATIONS, ledgerAnswer, ledgerError } from "../support/ledger-document";
import { createMockNetwork } from "../support/msw";
import { BTC_REFUND, startClock, TRON_ADDR } from "../support/orders";
import { bigEndian, decodeProtobuf } from "../support/protobuf";

const NONCE = "5a".repeat(32);

describe("ledger v2", () => {
  let live: TestPartner;
  let test: TestPartner;

  const ledger = (path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}) =>
    call(`/ledger/v2${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        ...(key ? { "x-api-key": key } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  const quote = async (key: string, amount = "0.01", extra: Record<string, unknown> = {}) =>
    (
      await ledgerAnswer(
        await ledger("/quote", key, { from: "btc", to: "usdt_trx", amount, ...extra }),
        "post",
        "/quote",
      )
    ).body as Record<string, string>;

  const swapFields = {
    refundAddress: BTC_REFUND,
    payoutAddress: TRON_ADDR,
    currencyFrom: "btc",
    currencyTo: "usdt_trx",
    payloadCurrencyFrom: "BTC",
    payloadCurrencyTo: "USDT",
    nonce: NONCE,
  };

  const swap = async (kind: "fixed" | "float", key: string, fields: Record<string, unknown>) => {
    const answer = await ledgerAnswer(
      await ledger(`/swap/${kind}`, key, { ...swapFields, ...fields }),
      "post",
      `/swap/${kind}`,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as {
      swapId: string;
      payinAddress: string;
      providerFees: string;
      referralFees: string;
      payoutNetworkFees: string;
      providerSig: { payload: string; signature: string };
    };
  };

  const status = async (key: string, swapId: string) =>
    (await ledgerAnswer(await ledger(`/status?swapId=${swapId}`, key), "get", "/status")).body as Record<
      string,
      string
    >;

  const orderCount = async (key: string) =>
    (
      await json<{ data: unknown[] }>(
        await call("/api/v1/partner/orders?limit=100", { headers: { "X-API-Key": key } }),
      )
    ).data.length;

  beforeAll(async () => {
    await setPrices();
    live = await createPartner({ name: "ledger", markup_bps: 50, rate_limit_per_minute: 100_000 });
    const res = await admin(`/partners/${live.id}/keys`, { method: "POST", json: { mode: "test" } });
    test = { ...live, key: (await json<{ key: string }>(res)).key };
  });

  it("serves every operation of Ledger's document (its webhook is Ledger's), and the public key", () => {
    const served = createApp()
      .routes.filter((r) => r.path.startsWith("/ledger/v2/") && r.method !== "ALL")
      .map((r) => `${r.method.toLowerCase()} ${r.path.slice("/ledger/v2".length)}`);
    const expected = [...LEDGER_OPERATIONS.filter((o) => !o.includes("/webhook/")), "get /public-key"];
    expect([...new Set(served)].sort()).toEqual(expected.sort());
  });

  it("currencies and pairs page by cursor, each id once, in Ledger's shapes", async () => {
    const walk = async (path: "/currencies" | "/pairs", field: "currencies" | "pairs", limit: number) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const { body } = await ledgerAnswer<Record<string, unknown>>(
          await ledger(`${path}${query}`, null),
          "get",
          path,
        );
        const items = body[field] as { id?: string; from?: string; to?: string }[];
        ids.push(...items.map((i) => i.id ?? `${i.from}>${i.to}`));
        cursor = body.next_cursor as string | null;
      } while (cursor !== null);
      return ids;
    };
    const currencies = await walk("/currencies", "currencies", 7);
    expect(new Set(currencies).size).toBe(currencies.length);
    expect(currencies).toEqual([...currencies].sort());
    expect(currencies).toEqual(
      expect.arrayContaining(["btc", "eth", "usdt_trx", "usdt_eth", "eth_arbitrum"]),
    );
    const { body } = await ledgerAnswer<{ currencies: Record<string, unknown>[] }>(
      await ledger("/currencies?limit=1000", null),
      "get",
      "/currencies",
    );
    expect(body.currencies.find((c) => c.id === "usdt_eth")).toEqual({
      id: "usdt_eth",
      type: "token",
      blockchain: "ethereum",
      chainId: 1,
      contract: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
    });
    expect(body.currencies.find((c) => c.id === "btc")).toEqual({
      id: "btc",
      type: "coin",
      blockchain: "bitcoin",
    });
    expect(new Set(body.currencies.map((c) => c.type))).toEqual(new Set(["coin", "token"]));

    const pairs = await walk("/pairs", "pairs", 400);
    expect(new Set(pairs).size).toBe(pairs.length);
    expect(pairs).toContain("btc>usdt_trx");
    expect(pairs).not.toContain("btc>btc");
  });

  it("a fixed quote is honoured by every swap made from it, each a new order of the partner, signed", async () => {
    const q = await quote(test.key);
    expect(q).toMatchObject({ tradeMethod: "fixed", amount: "0.01", minSlippage: "0", maxSlippage: "0.1" });
    expect(Date.parse(q.expiry as string) - Date.now()).toBeGreaterThan(290_000);
    const first = await swap("fixed", test.key, { quoteId: q.quoteId });
    const again = await swap("fixed", test.key, { quoteId: q.quoteId });
    expect(again.swapId).not.toBe(first.swapId);

    // The swap is the partner's order, read and listed by its own key like any other.
    const order = await json<Record<string, unknown>>(
      await call(`/api/v1/partner/orders/${first.swapId}`, { headers: { "X-API-Key": test.key } }),
    );
    expect(order).toMatchObject({
      deposit_address: first.payinAddress,
      amount_to_expected: Number(q.amountTo),
      rate_type: "fixed",
      recipient_address: TRON_ADDR,
    });
    expect(first).toMatchObject({
      providerFees: q.providerFees,
      referralFees: q.referralFees,
      payoutNetworkFees: q.payoutNetworkFees,
    });
    expect(Number(q.referralFees)).toBeGreaterThan(0);

    // The signature, checked as a flattened JWS with an empty protected header against the served key.
    const { publicKey, curve } = await json<{ publicKey: string; curve: string }>(
      await ledger("/public-key", null),
    );
    expect(curve).toBe("secp256r1");
    const point = hex.decode(publicKey);
    const key = await importJWK(
      {
        kty: "EC",
        crv: "P-256",
        x: base64urlnopad.encode(point.slice(1, 33)),
        y: base64urlnopad.encode(point.slice(33)),
      },
      "ES256",
    );
    for (const s of [first, again])
      await flattenedVerify({ ...s.providerSig, header: { alg: "ES256" } }, key);
    const forged = { ...first.providerSig, payload: again.providerSig.payload.replace(/^./, "A") };
    await expect(flattenedVerify({ ...forged, header: { alg: "ES256" } }, key)).rejects.toThrow();

    // The payload: Ledger's NewTransactionResponse, decoded here field by field.
    const fields = decodeProtobuf(base64urlnopad.decode(first.providerSig.payload));
    const textOf = (n: number) => new TextDecoder().decode(fields.get(n));
    expect({
      payin: textOf(1),
      refund: textOf(3),
      payout: textOf(5),
      from: textOf(7),
      to: textOf(8),
      nonce: hex.encode(fields.get(12) ?? new Uint8Array()),
    }).toEqual({
      payin: first.payinAddress,
      refund: BTC_REFUND,
      payout: TRON_ADDR,
      from: "BTC",
      to: "USDT",
      nonce: NONCE,
    });
    expect(bigEndian(fields.get(9))).toBe(1_000_000n); // 0.01 BTC in satoshis
    expect(bigEndian(fields.get(10))).toBe(BigInt(Math.round(Number(q.amountTo) * 1e6)));
    expect(fields.has(11)).toBe(false);
  });

  it("a fixed quote can be locked for five minutes, not longer", async () => {
    startClock();
    try {
      const q = await quote(test.key);
      // Prices older than PRICE_MAX_AGE_SECONDS refuse every quote and order: fresh ones each time.
      vi.setSystemTime(Date.now() + 299_000);
      await setPrices();
      await swap("fixed", test.key, { quoteId: q.quoteId });
      vi.setSystemTime(Date.now() + 2_000);
      await setPrices();
      await ledgerError(
        await ledger("/swap/fixed", test.key, { ...swapFields, quoteId: q.quoteId }),
        "post",
        "/swap/fixed",
        404,
        "SWAP_QUOTE_NOT_FOUND_ERROR",
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it("a quote's maxAmountFrom is capped by liquidity exactly as GET /partner/rates' max_amount", async () => {
    const setBalance = (balance: string | null) =>
      admin("/liquidity", { method: "PUT", json: { coin: "USDT", network: "TRX", balance } });
    expect((await setBalance("100")).status).toBe(200);
    const ours = await json<{ max_amount: number }>(
      await call("/api/v1/partner/rates?coin_from=BTC&coin_to=USDT&network_to=TRX&rate_type=fixed", {
        headers: { "X-API-Key": live.key },
      }),
    );
    expect(ours.max_amount).toBeLessThan(0.01);
    expect(Number((await quote(live.key, "0.001")).maxAmountFrom)).toBe(ours.max_amount);
    expect((await setBalance(null)).status).toBe(200);
  });

  describe("errors in Ledger's keys, and nothing created", () => {
    const restrict = (config: unknown) => admin("/region-restrictions", { method: "PUT", json: config });
    beforeAll(async () => void (await restrict({ countries: ["KP"], coins: { USDT: ["GB"] } })));
    afterAll(async () => void (await restrict({ countries: [], coins: {} })));

    it("limits, unknown currencies, pairs, quotes and swaps, regions, bad input", async () => {
      const before = await orderCount(test.key);
      const below = await ledgerError(
        await ledger("/quote", test.key, { from: "btc", to: "eth", amount: "0.000001" }),
        "post",
        "/quote",
        400,
        "FROM_CURRENCY_MINIMUM_AMOUNT_ERROR",
      );
      expect(below.additionalFields).toMatchObject({
        code: "amount_below_min",
        minRequiredAmount: expect.any(String),
        maxRequiredAmount: expect.any(String),
      });
      await ledgerError(
        await ledger("/quote", test.key, { from: "btc", to: "eth", amount: "100000" }),
        "post",
        "/quote",
        400,
        "FROM_CURRENCY_MAXIMUM_AMOUNT_ERROR",
      );
      await ledgerError(
        await ledger("/quote", test.key, { from: "btc", to: "btc", amount: "1" }),
        "post",
        "/quote",
        404,
        "SWAP_PAIR_NOT_FOUND_ERROR",
      );
      // No SOL deposit address to give (its pool is empty): Ledger's own key, not "no such pair".
      const noWallet = await ledgerError(
        await ledger("/quote", live.key, { from: "sol", to: "btc", amount: "1" }),
        "post",
        "/quote",
        400,
        "NO_DEPOSIT_WALLET_ERROR",
      );
      expect(noWallet.additionalFields).toMatchObject({ code: "pair_unavailable" });
      await ledgerError(
        await ledger("/swap/float", test.key, { ...swapFields, amount: "0.01", currencyFrom: "nope" }),
        "post",
        "/swap/float",
        404,
        "CURRENCY_FROM_NOT_FOUND_ERROR",
      );
      await ledgerError(
        await ledger("/swap/fixed", test.key, { ...swapFields, quoteId: "q1.x.y", currencyTo: "usdt-trx" }),
        "post",
        "/swap/fixed",
        404,
        "CURRENCY_TO_NOT_FOUND_ERROR",
      );
      await ledgerError(
        await ledger("/swap/fixed", test.key, { ...swapFields, quoteId: "q1.x.y" }),
        "post",
        "/swap/fixed",
        404,
        "SWAP_QUOTE_NOT_FOUND_ERROR",
      );
      // Another partner's quote is no quote of this one.
      const other = await createPartner({ name: "ledger-other" });
      const theirs = await quote(other.key);
      await ledgerError(
        await ledger("/swap/fixed", test.key, { ...swapFields, quoteId: theirs.quoteId }),
        "post",
        "/swap/fixed",
        404,
        "SWAP_QUOTE_NOT_FOUND_ERROR",
      );
      await ledgerError(
        await ledger("/status?swapId=0193f2a4-7c1e-8b2d-9f00-3c5a7e1d2b44", test.key),
        "get",
        "/status",
        404,
        "TRANSACTION_NOT_FOUND",
      );
      // The end user's country, forwarded by Ledger's backend.
      const kp = { "x-end-user-country": "KP" };
      await ledgerError(
        await ledger("/quote", test.key, { from: "btc", to: "eth", amount: "0.01" }, kp),
        "post",
        "/quote",
        451,
        "REGION_RESTRICTED_ERROR",
      );
      await ledgerError(
        await ledger("/swap/float", test.key, { ...swapFields, amount: "0.01" }, kp),
        "post",
        "/swap/float",
        451,
        "REGION_RESTRICTED_ERROR",
      );
      const gb = { "x-end-user-country": "GB" };
      await ledgerError(
        await ledger("/swap/float", test.key, { ...swapFields, amount: "0.01" }, gb),
        "post",
        "/swap/float",
        451,
        "CURRENCY_REGION_RESTRICTED_ERROR",
      );
      await ledgerError(
        await ledger("/quote", test.key, { from: "btc", to: "usdt_trx", amount: "0.01" }, gb),
        "post",
        "/quote",
        451,
        "CURRENCY_REGION_RESTRICTED_ERROR",
      );
      // Bad input.
      await ledgerError(
        await ledger("/swap/float", test.key, { ...swapFields, amount: "0.01", nonce: "xyz" }),
        "post",
        "/swap/float",
        400,
        "INVALID_REQUEST",
      );
      await ledgerError(
        await ledger("/swap/float", test.key, {
          ...swapFields,
          amount: "0.01",
          payoutAddress: "bc1-not-tron",
        }),
        "post",
        "/swap/float",
        422,
        "INVALID_ADDRESS",
      );
      await ledgerError(
        await ledger("/quote", null, { from: "btc", to: "eth", amount: "0.01" }),
        "post",
        "/quote",
        401,
        "INVALID_API_KEY",
      );
      expect(await orderCount(test.key)).toBe(before);
    });
  });

  it("a float swap runs to FINISHED in test mode; an abandoned one EXPIRED", async () => {
    const s = await swap("float", test.key, { amount: "0.01", slippage: "0.02" });
    expect(await status(test.key, s.swapId)).toMatchObject({
      status: "PENDING",
      payinTransactionId: "",
      payoutTransactionId: "",
    });
    const helper = (id: string, name: string) =>
      call(`/api/v1/partner/test/orders/${id}/${name}`, {
        method: "POST",
        headers: { "X-API-Key": test.key },
      });
    expect((await helper(s.swapId, "deposit")).status).toBe(200);
    expect((await helper(s.swapId, "confirm")).status).toBe(200);
    const done = await status(test.key, s.swapId);
    expect(done).toMatchObject({
      status: "FINISHED",
      providerFees: s.providerFees,
      referralFees: s.referralFees,
    });
    expect(done.payinTransactionId).toMatch(/^[0-9a-f]{64}$/);
    expect(done.payoutTransactionId).toMatch(/^[0-9a-f]{64}$/);
    // A live key does not see the test swap.
    await ledgerError(
      await ledger(`/status?swapId=${s.swapId}`, live.key),
      "get",
      "/status",
      404,
      "TRANSACTION_NOT_FOUND",
    );

    // An 18-decimal payout signs the order's exact amount, wei for wei: more digits than a float holds.
    await setPrices({ ...TEST_PRICES, ETH: "3001.123456789" });
    const toEth = await swap("float", test.key, {
      amount: "0.01234567",
      currencyTo: "eth",
      payloadCurrencyTo: "ETH",
      payoutAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
    });
    const record = await env.ORDERS.getByName(toEth.swapId).testRecord(test.id);
    const wei = BigInt((record?.amountToExpected ?? "").replace(".", "").replace(/^0+/, ""));
    expect(record?.amountToExpected).toMatch(/^0\.[0-9]{18}$/);
    expect(wei.toString().length).toBeGreaterThan(17);
    expect(bigEndian(decodeProtobuf(base64urlnopad.decode(toEth.providerSig.payload)).get(10))).toBe(wei);
    await setPrices();

    const abandoned = await swap("float", test.key, { amount: "0.01" });
    expect((await helper(abandoned.swapId, "expire")).status).toBe(200);
    expect((await status(test.key, abandoned.swapId)).status).toBe("EXPIRED");

    // Ledger's calls are in the partner's request log like its own: the swap names its order, the
    // refused read its code.
    const logged = async (key: string, query: string) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const res = await call(`/api/v1/partner/logs?${query}`, { headers: { "X-API-Key": key } });
        const page = await json<{ data: Record<string, unknown>[] }>(res);
        if (page.data.length > 0 || Date.now() > deadline) return page.data;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    expect(await logged(test.key, `order_id=${s.swapId}&path=/ledger/v2/swap`)).toEqual([
      expect.objectContaining({ method: "POST", path: "/ledger/v2/swap/float", status: 200 }),
    ]);
    expect(await logged(live.key, "path=/ledger/v2/status&status=404")).toEqual([
      expect.objectContaining({ query: `swapId=${s.swapId}`, code: "order_not_found" }),
    ]);
  });

  it("each Ledger status change is pushed once to Ledger's webhook with its key, and retried", async () => {
    const LEDGER = "https://swap.ledger.example/v5";
    const set = await admin(`/partners/${live.id}/ledger-webhook`, {
      method: "PUT",
      json: { url: LEDGER, api_key: "ledger-issued-key", provider_id: "ourprovider" },
    });
    expect(await json(set)).toEqual({ url: LEDGER, provider_id: "ourprovider", api_key_set: true });

    const s = await swap("float", test.key, { amount: "0.01" });
    const helper = (name: string) =>
      call(`/api/v1/partner/test/orders/${s.swapId}/${name}`, {
        method: "POST",
        headers: { "X-API-Key": test.key },
      });
    await helper("deposit");
    await helper("confirm");
    // Five statuses of ours (waiting_deposit … completed), two of Ledger's: one change to push.
    const events = await env.ORDERS.getByName(s.swapId).webhookEvents();
    const pushes = events.filter((e) => e.message.type === LEDGER_STATUS_EVENT_TYPE);
    expect(events.length - pushes.length).toBe(4);
    expect(pushes.map((e) => JSON.parse(e.message.body).providerStatus)).toEqual(["FINISHED"]);

    let answer = 500;
    const net = createMockNetwork(
      http.post(`${LEDGER}/webhook/:swapId/status`, () =>
        HttpResponse.json({ message: "queued" }, { status: answer }),
      ),
    );
    const deliver = async (m: WebhookMessage) => {
      const batch = createMessageBatch<WebhookMessage>("swap-partner-api-webhooks", [
        { id: "m0", timestamp: new Date(), attempts: 1, body: m },
      ]);
      const ctx = createExecutionContext();
      await deliverBatch(batch, env, { fetch: net.fetch, timeoutMs: 1000, rules: { allowHttpLocal: false } });
      return getQueueResult(batch, ctx);
    };
    const push = pushes[0]?.message as WebhookMessage;
    expect((await deliver(push)).retryMessages).toEqual([{ msgId: "m0" }]);
    answer = 200;
    expect((await deliver(push)).explicitAcks).toEqual(["m0"]);
    expect((await deliver(push)).explicitAcks).toEqual(["m0"]); // delivered: not POSTed again
    expect(net.requests).toHaveLength(2);
    // Ledger's 405 (final there already) ends the retries at once.
    answer = 405;
    const refused = { ...push, event_id: `evt_${crypto.randomUUID().replaceAll("-", "")}` };
    expect(await deliver(refused)).toMatchObject({ retryMessages: [], explicitAcks: ["m0"] });
    // Resent from the partner's own delivery log (the partner has no webhook of its own): to Ledger.
    answer = 200;
    vi.stubGlobal("fetch", net.fetch);
    const resent = await call(`/api/v1/partner/webhook/deliveries/${refused.event_id}/resend`, {
      method: "POST",
      headers: { "X-API-Key": test.key },
    });
    vi.unstubAllGlobals();
    expect(resent.status).toBe(200);
    expect(await json(resent)).toMatchObject({ status: "delivered" });
    const [, sent, third, fourth] = net.requests;
    expect(third?.url).toBe(sent?.url);
    expect(fourth?.url).toBe(sent?.url);
    expect(fourth?.headers.get("x-api-key")).toBe("ledger-issued-key");
    expect(sent?.url).toBe(`${LEDGER}/webhook/${s.swapId}/status`);
    expect(sent?.headers.get("x-api-key")).toBe("ledger-issued-key");
    const body = JSON.parse(sent?.body ?? "{}");
    expectLedgerSchema("StatusWebhookRequest", body);
    const final = await status(test.key, s.swapId);
    expect(body).toEqual({
      providerId: "ourprovider",
      providerStatus: "FINISHED",
      amount: final.amount,
      providerFees: final.providerFees,
      networkFees: final.referralFees,
      payinTransactionId: final.payinTransactionId,
      transactionHash: final.payoutTransactionId,
    });
  });
});
