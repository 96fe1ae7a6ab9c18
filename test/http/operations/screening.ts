/**
 * Screening before a deposit (issue 44 §1–2, docs/operators.md "Screening"): the sanctions list's
 * refresh (MSW serving the mirror's one-address-per-line files), the operator's entries, stablecoin
 * issuers' blocklists (fixture answers in TronGrid's and JSON-RPC's shapes), the risk vendor, and
 * the refusals at creation, on POST /partner/screen, on a payout-address change and at the payout.
 * Addresses here are used by no other module: the D1 list and entries are shared in this file.
 */
import { env } from "cloudflare:workers";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { utf8 } from "@scure/base";
import { delay, HttpResponse, http } from "msw";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { VENDOR_SOURCES_AT_MOST } from "../../../src/adapters/screening/risk-vendor";
import { getConfig } from "../../../src/config";
import { addressWord, ISSUER_BLOCKLISTS } from "../../../src/domain/screening";
import { refreshSanctions, sanctionsStatus, watchSanctions } from "../../../src/services/screening";
import { forgetScreeningAnswers, screenAddresses } from "../../../src/storage/screening";
import { admin, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { createMockNetwork, type MockNetwork } from "../../support/msw";
import { outgoing, read, simMine, simSend, step } from "../../support/orders";
import { postToWorker } from "../../support/worker-post";

describe("screening", () => {
  const TORNADO = "0x910Cbd523D972eb0a6f4cAe4618aD62622b39DbF";
  const SDN_TRON = "TA3rH2A7iHnm6pKH8gr9cK1EZnShnmZdFg";
  const LISTS = "https://lists.test";
  const TRONGRID = "https://trongrid.test";
  const ETH_RPC = "https://eth-rpc.test/";
  const VENDOR = "https://vendor.test";
  const USDT_TRC20 = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
  const USDC_ERC20 = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";

  /** Live modes that agree (guard rails), real readers for TRX and ETH. */
  const LIVE_REAL = {
    PAYOUT_MODE: "http",
    PAYOUT_GATEWAY_URL: "https://signer.test",
    PAYOUT_GATEWAY_SECRET: "s",
    EXCHANGE_MODE: "binance",
    EXCHANGE_URL: "https://venue.test",
    EXCHANGE_API_KEY: "k",
    EXCHANGE_API_SECRET: "s",
    CABINET_ORIGIN: "https://api.example.test",
    CHAIN_MODE: "XLM:horizon,TRX:trongrid,ETH:evm,*:simulated",
    CHAIN_URL_XLM: "https://horizon.test",
    DEPOSIT_ADDRESS_XLM: "GCUB7JL4APK7LKJ6MZF7Q2JTLHAGNBIUA7XIXD5SQTG52GQ2DAT6XZMK",
    CHAIN_URL_TRX: TRONGRID,
    CHAIN_URL_ETH: ETH_RPC,
    SCREENING_VENDOR: "chainalysis",
    SCREENING_VENDOR_URL: VENDOR,
    SCREENING_VENDOR_API_KEY: "vendor-key",
    // Above the 300 ms default, so a loaded machine's first answer is still in time.
    SCREENING_VENDOR_TIMEOUT_MS: "1000",
  };

  let partner: TestPartner;
  let testKey: string;
  let net: MockNetwork;

  /** A request to the Worker with `vars` over the test env, outbound HTTP answered by `net`. */
  const send = (path: string, body: unknown, key: string, vars: Record<string, string> = {}) =>
    postToWorker(net, path, body, key, vars);

  const screen = async (addresses: { network: string; address: string }[], key = partner.key, vars = {}) =>
    send("/api/v1/partner/screen", { addresses }, key, vars);
  const orderCount = async () =>
    (await env.DB.prepare("SELECT COUNT(*) AS n FROM orders").first<{ n: number }>())?.n ?? 0;
  const btcTo = (coin: string, network: string, recipient: string, extra: Record<string, unknown> = {}) => ({
    coin_from: "BTC",
    network_from: "BTC",
    coin_to: coin,
    network_to: network,
    amount_from: 0.01,
    rate_type: "float",
    recipient_address: recipient,
    ...extra,
  });

  /** Live orders with real readers deposit on XLM (a non-dev deposit account). */
  const xlmTo = (coin: string, network: string, recipient: string) => ({
    ...btcTo(coin, network, recipient),
    coin_from: "XLM",
    network_from: "XLM",
    amount_from: 500,
  });

  /** The mirror's files by asset; an asset without one answers 404. */
  const files = new Map<string, string>();
  const mirror = http.get(`${LISTS}/:file`, ({ params }) => {
    const body = files.get(String(params.file).replace(/\.txt$/, ""));
    return body === undefined ? new HttpResponse("Not Found", { status: 404 }) : new HttpResponse(body);
  });
  const listConfig = () => ({ ...getConfig(env), SANCTIONS_LIST_URL: `${LISTS}/{asset}.txt` });
  const quiet = () => vi.spyOn(console, "error").mockImplementation(() => {});

  beforeAll(async () => {
    await setPrices();
    partner = await createPartner({ name: "screening", rate_limit_per_minute: 100_000 });
    const keyRes = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { mode: "test" } });
    testKey = (await json<{ key: string }>(keyRes)).key;
  });

  afterEach(() => {
    forgetScreeningAnswers();
    vi.restoreAllMocks();
  });

  describe("test mode", () => {
    it("POST /partner/screen answers the documented listed test addresses listed, others clear; at most 50", async () => {
      net = createMockNetwork();
      const res = await screen(
        [
          { network: "BASE", address: "0x5c12ee0000000000000000000000000000005c12" },
          { network: "TRX", address: "TJPZp3h26cfFoz7mzyxNofcNR7GGenKf8V" },
          { network: "BTC", address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq" },
        ],
        testKey,
      );
      expect(res.status).toBe(200);
      const { results } = await json<{ results: Record<string, unknown>[] }>(res);
      expect(results.map((r) => [r.result, r.categories, r.list_version])).toEqual([
        ["listed", ["sanctions"], "test"],
        ["listed", ["issuer_blocked"], "test"],
        ["clear", [], "test"],
      ]);
      const many = Array.from({ length: 51 }, () => ({
        network: "BTC",
        address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
      }));
      await expectError(await screen(many, testKey), 400, "invalid_request");
    });

    it("a test order to a listed recipient and refund address: 422 address_screened, one item per field; nothing created", async () => {
      net = createMockNetwork();
      const before = await orderCount();
      const err = await expectError(
        await send(
          "/api/v1/partner/orders",
          btcTo("ETH", "ETH", "0x5C12EE000000000000000000000000000000715C", {
            refund_address: "bc1qt3w9chzut3w9chzut3w9chzut3w9chzufdsq3l",
          }),
          testKey,
        ),
        422,
        "address_screened",
      );
      const items = err.errors as unknown as { code: string; field: string; category: string }[];
      expect(items.map((e) => [e.code, e.field, e.category])).toEqual([
        ["address_screened", "recipient_address", "risk"],
        ["address_screened", "refund_address", "sanctions"],
      ]);
      expect(await orderCount()).toBe(before);
    });
  });

  describe("the sanctions list", () => {
    it("a good download is used; a malformed or empty one keeps it; older than 36 h alerts", async () => {
      net = createMockNetwork(mirror);
      files.set("ETH", `${TORNADO}\n0x722122dF12D4e14e13Ac3b6895a86e84145b6967\n`);
      files.set("TRX", `${SDN_TRON}\n`);
      quiet();
      const t0 = Date.now();
      const first = await refreshSanctions(env, listConfig(), t0, net.fetch);
      // Every other asset answered 404: those keep what they had (nothing yet).
      expect(first.errors).toHaveLength(9);

      const listed = await screen([{ network: "BASE", address: TORNADO.toLowerCase() }]);
      expect((await json<{ results: Record<string, unknown>[] }>(listed)).results[0]).toMatchObject({
        result: "listed",
        categories: ["sanctions"],
        list_version: first.version,
      });
      const before = await orderCount();
      const refused = await expectError(
        await send("/api/v1/partner/orders", btcTo("ETH", "ETH", TORNADO), partner.key),
        422,
        "address_screened",
      );
      expect(refused.errors?.[0]).toMatchObject({ field: "recipient_address", category: "sanctions" });
      expect(await orderCount()).toBe(before);

      // The mirror serves an empty ETH file and an HTML page for TRX: both keep their addresses.
      files.set("ETH", "");
      files.set("TRX", "<html><body>429 Too Many Requests</body></html>");
      const second = await refreshSanctions(env, listConfig(), t0 + 3_600_000, net.fetch);
      expect(second.version).toBe(first.version);
      expect(second.errors).toEqual(
        expect.arrayContaining(["ETH: empty", expect.stringMatching(/^TRX: a line is not an address/)]),
      );
      const still = await screen([
        { network: "ETH", address: TORNADO },
        { network: "TRX", address: SDN_TRON },
      ]);
      expect((await json<{ results: { result: string }[] }>(still)).results.map((r) => r.result)).toEqual([
        "listed",
        "listed",
      ]);

      // 37 h later with the downloads still bad: stale, alerted; guard rails show it.
      const later = t0 + 37 * 3_600_000;
      await watchSanctions(env, listConfig(), later, net.fetch);
      expect(await sanctionsStatus(env.DB, later)).toMatchObject({ stale: true, version: first.version });
      const alert = await env.DB.prepare(
        "SELECT kind FROM alerts WHERE order_id = 'screening' AND cleared_at IS NULL",
      ).first<{ kind: string }>();
      expect(alert?.kind).toBe("sanctions_list_stale");
      const rails = await json<{ sanctions_list: Record<string, unknown> }>(await admin("/guard-rails"));
      expect(rails.sanctions_list).toMatchObject({
        version: first.version,
        fetched_at: new Date(t0).toISOString(),
        addresses: 3,
      });
      // A good download again: fresh, the alert clears.
      files.set("ETH", `${TORNADO}\n`);
      files.set("TRX", `${SDN_TRON}\n`);
      await watchSanctions(env, listConfig(), later + 7 * 3_600_000, net.fetch);
      expect(
        await env.DB.prepare(
          "SELECT COUNT(*) AS n FROM alerts WHERE order_id = 'screening' AND cleared_at IS NULL",
        ).first(),
      ).toEqual({ n: 0 });
    });
  });

  describe("the operator's entries", () => {
    const LISTED_TRON = "TUa7BcRjT3eT7kPyNWPvHQkz4qF9v68D7A";

    it("POST / GET / DELETE, audited; an entry refuses orders in both modes until removed", async () => {
      net = createMockNetwork();
      const res = await admin("/screening/entries", {
        method: "POST",
        json: {
          network: "TRX",
          address: LISTED_TRON,
          category: "operator",
          note: "law enforcement request 17",
        },
      });
      expect(res.status).toBe(201);
      const entry = await json<{ id: string }>(res);
      const list = await json<{ entries: { id: string }[] }>(await admin("/screening/entries"));
      expect(list.entries.map((e) => e.id)).toContain(entry.id);
      for (const key of [partner.key, testKey])
        await expectError(
          await send("/api/v1/partner/orders", btcTo("USDT", "TRX", LISTED_TRON), key),
          422,
          "address_screened",
        );
      await expectError(
        await admin("/screening/entries", {
          method: "POST",
          json: { network: "TRX", address: "Tnope", note: "x" },
        }),
        422,
        "invalid_address",
      );
      expect((await admin(`/screening/entries/${entry.id}`, { method: "DELETE" })).status).toBe(204);
      expect((await admin(`/screening/entries/${entry.id}`, { method: "DELETE" })).status).toBe(404);
      expect((await send("/api/v1/partner/orders", btcTo("USDT", "TRX", LISTED_TRON), testKey)).status).toBe(
        201,
      );
      const { results } = await env.DB.prepare(
        "SELECT action, operator FROM operator_audit WHERE entity_type = 'screening_entry' AND entity_id = ? ORDER BY id",
      )
        .bind(entry.id)
        .all();
      expect(results.map((r) => r.action)).toEqual(["screening_entry.create", "screening_entry.delete"]);
    });

    it("an address listed after creation is never paid: the payout fails before any money moves; a payout-address change to a listed address is refused", async () => {
      net = createMockNetwork();
      const recipient = "TMuCgBejD5RsNANZdjGtaM3YyKGNgDoy7N";
      const created = await send("/api/v1/partner/orders", btcTo("USDT", "TRX", recipient), partner.key);
      expect(created.status).toBe(201);
      const order = await json<{ id: string; deposit_address: string }>(created);
      const added = await admin("/screening/entries", {
        method: "POST",
        json: { network: "TRX", address: recipient, category: "operator", note: "listed after the order" },
      });
      const entry = await json<{ id: string }>(added);
      await simSend("BTC", order.deposit_address, "0.01");
      await simMine("BTC", 3);
      for (let i = 0; i < 8 && !["failed", "completed"].includes((await read(partner, order.id)).status); i++)
        await step(order.id);
      const after = await read(partner, order.id);
      expect(after.status).toBe("failed");
      expect(after.payout_txid).toBeNull();
      expect((await outgoing("TRX")).filter((o) => o.order_id === order.id)).toEqual([]);
      // Offered another payout address: a listed one is refused, nothing changes.
      const err = await expectError(
        await send(
          `/api/v1/partner/orders/${order.id}/payout`,
          { recipient_address: recipient },
          partner.key,
        ),
        422,
        "address_screened",
      );
      expect(err.errors?.[0]).toMatchObject({ field: "recipient_address", category: "operator" });
      expect((await read(partner, order.id)).status).toBe("failed");
      expect((await admin(`/screening/entries/${entry.id}`, { method: "DELETE" })).status).toBe(204);
    });
  });

  describe("stablecoin issuers' blocklists (live, real readers)", () => {
    const BLOCKED_TRON = "TPkNp2Z5KiA1sLWpPMWsfNErVo2dHxc4iy";
    const BLOCKED_EVM = "0x5cab7692D4E94096462119ab7bF57319726Eed2A";
    const blocked = new Set<string>();
    const word = (hex40: string) => hex40.toLowerCase().padStart(64, "0");
    const answer = (on: boolean) => `${on ? "1" : "0"}`.padStart(64, "0");
    const providers = [
      http.post(`${TRONGRID}/wallet/triggerconstantcontract`, async ({ request }) => {
        const b = (await request.json()) as { parameter: string; function_selector: string };
        return HttpResponse.json({
          result: { result: true },
          energy_used: 542,
          constant_result: [
            answer(b.function_selector === "isBlackListed(address)" && blocked.has(b.parameter)),
          ],
          transaction: { ret: [{}], visible: true, txID: "ab".repeat(32) },
        });
      }),
      http.post(ETH_RPC, async ({ request }) => {
        const b = (await request.json()) as {
          id: number;
          method: string;
          params: [{ to: string; data: string }];
        };
        const { data } = b.params[0];
        const hit = data.startsWith("0xfe575a87") && blocked.has(data.slice(10));
        return HttpResponse.json({ jsonrpc: "2.0", id: b.id, result: `0x${answer(hit)}` });
      }),
      http.get(`${VENDOR}/api/v1/address/:address`, () => HttpResponse.json({ identifications: [] })),
    ];

    it("the getters' selectors are the first 4 bytes of keccak-256 of their signatures", () => {
      for (const { signature, selector } of Object.values(ISSUER_BLOCKLISTS))
        expect(Buffer.from(keccak_256(utf8.decode(signature)).subarray(0, 4)).toString("hex")).toBe(selector);
    });

    it("a Tether-blocked USDT-TRC20 recipient and a Circle-blocked USDC-ERC20 one are refused; others pass", async () => {
      net = createMockNetwork(...providers);
      // The contract is asked about the address as an ABI word: its 20-byte account id.
      blocked.add(addressWord("tron", BLOCKED_TRON) as string);
      blocked.add(word(BLOCKED_EVM.slice(2)));
      const before = await orderCount();
      const tron = await expectError(
        await send("/api/v1/partner/orders", xlmTo("USDT", "TRX", BLOCKED_TRON), partner.key, LIVE_REAL),
        422,
        "address_screened",
      );
      expect(tron.errors?.[0]).toMatchObject({ field: "recipient_address", category: "issuer_blocked" });
      const asked = JSON.parse(
        net.requests.find((r) => r.url.includes("triggerconstantcontract"))?.body ?? "{}",
      );
      expect(asked).toEqual({
        owner_address: USDT_TRC20,
        contract_address: USDT_TRC20,
        function_selector: "isBlackListed(address)",
        parameter: addressWord("tron", BLOCKED_TRON),
        visible: true,
      });
      const evm = await expectError(
        await send("/api/v1/partner/orders", xlmTo("USDC", "ETH", BLOCKED_EVM), partner.key, LIVE_REAL),
        422,
        "address_screened",
      );
      expect(evm.errors?.[0]).toMatchObject({ category: "issuer_blocked" });
      const call = JSON.parse(net.requests.find((r) => r.url === ETH_RPC)?.body ?? "{}");
      expect(call.params).toEqual([
        { to: USDC_ERC20, data: `0xfe575a87${word(BLOCKED_EVM.slice(2))}` },
        "latest",
      ]);
      expect(await orderCount()).toBe(before);
      const ok = await send(
        "/api/v1/partner/orders",
        xlmTo("USDC", "ETH", "0x722122dF12D4e14e13Ac3b6895a86e84145b6966".toLowerCase()),
        partner.key,
        LIVE_REAL,
      );
      expect(ok.status, await ok.clone().text()).toBe(201);
      expect(net.unhandled).toEqual([]);
    });
  });

  describe("the risk vendor (Chainalysis' sanctions API)", () => {
    const CLEAR = "0x1111111111111111111111111111111111111112";
    const LISTED = "0x2222222222222222222222222222222222222223";
    const SLOW = "0x3333333333333333333333333333333333333334";

    it("listed → listed (fail-closed), clear → clear, slow → unknown within its budget", async () => {
      net = createMockNetwork(
        http.get(`${VENDOR}/api/v1/address/:address`, async ({ params, request }) => {
          expect(request.headers.get("x-api-key")).toBe("vendor-key");
          if (params.address === SLOW) await delay(5_000);
          return HttpResponse.json({
            identifications:
              params.address === LISTED
                ? [
                    {
                      category: "sanctions",
                      name: "SANCTIONS: OFAC SDN",
                      description: "…",
                      url: "https://home.treasury.gov",
                    },
                  ]
                : [],
          });
        }),
      );
      quiet();
      // Without a sanctions list nothing live is "clear": load one (the vendor's answer comes on top).
      files.set("ETH", `${TORNADO}\n`);
      await refreshSanctions(env, listConfig(), Date.now(), createMockNetwork(mirror).fetch);
      const started = performance.now();
      const res = await screen(
        [
          { network: "ETH", address: CLEAR },
          { network: "ETH", address: LISTED },
          { network: "ETH", address: SLOW },
        ],
        partner.key,
        LIVE_REAL,
      );
      const elapsed = performance.now() - started;
      const { results } = await json<{ results: { result: string; categories: string[] }[] }>(res);
      expect(results.map((r) => [r.result, r.categories])).toEqual([
        ["clear", []],
        ["listed", ["sanctions"]],
        ["unknown", []],
      ]);
      // Far less than the slow answer took: the budget cut it (loose, for a loaded machine).
      expect(elapsed).toBeLessThan(4_000);
      // Unknown never blocks: an order to the slow address is created.
      const order = await send("/api/v1/partner/orders", xlmTo("ETH", "ETH", SLOW), partner.key, LIVE_REAL);
      expect(order.status, await order.clone().text()).toBe(201);
    });

    it("a UTXO deposit's many inputs: the vendor is asked about the first VENDOR_SOURCES_AT_MOST only", async () => {
      net = createMockNetwork(
        http.get(`${VENDOR}/api/v1/address/:address`, () => HttpResponse.json({ identifications: [] })),
      );
      const inputs = Array.from({ length: VENDOR_SOURCES_AT_MOST + 3 }, (_, i) => ({
        network: "BTC",
        address: `1Input${i}VendorBoundTest`,
      }));
      vi.stubGlobal("fetch", net.fetch);
      try {
        const vars = { ...env, ...LIVE_REAL } as unknown as Env;
        const results = await screenAddresses(vars, "live", inputs, Date.now(), VENDOR_SOURCES_AT_MOST);
        expect(results).toHaveLength(inputs.length);
      } finally {
        vi.unstubAllGlobals();
      }
      expect(net.requests.map((r) => decodeURIComponent(r.url.split("/").at(-1) ?? "")).sort()).toEqual(
        inputs
          .slice(0, VENDOR_SOURCES_AT_MOST)
          .map((i) => i.address)
          .sort(),
      );
    });
  });
});
