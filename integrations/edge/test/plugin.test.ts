// The Edge plugin (../src) against this service's `wrangler dev` (the browser project's, no
// Chromium): with a test-mode app key it quotes fixed, falls back to float, quotes in reverse, maps
// every refusal to Edge's error types, and follows a test order to completed. The wallets are
// stand-ins with Edge's wallet interface; everything else is real HTTP.
import type {
  EdgeCorePluginOptions,
  EdgeCurrencyWallet,
  EdgeSpendInfo,
  EdgeSwapQuote,
  EdgeSwapRequest,
  EdgeTxActionSwap,
} from "edge-core-js/types";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, newKey, newPartner, ORIGIN, serverReady } from "../../../test/browser/harness";
import { edgeCurrencyPluginIds } from "../src/edgeCurrencyPluginIds";
import { swapPartner as mapping } from "../src/mapping";
import { edgeOrderStatus, fetchOrderStatus, makeSwapPartnerPlugin } from "../src/swapPartnerPlugin";

serverReady();

const USDT_TRC20 = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const BTC_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const ETH_ADDRESS = "0x9cBaE97Fb54f32820DE834093691FF27A83D5531";

/** What the wallets were asked to spend: the last one is the quote's transaction. */
const spends: EdgeSpendInfo[] = [];

/** An Edge wallet as a plugin sees it: its currency, one address, and a spend it can sign. */
function wallet(
  pluginId: string,
  ticker: string,
  address: string,
  decimals: number,
  o: { evmChainId?: number; tokens?: Record<string, { contract: string; decimals: number }> } = {},
): EdgeCurrencyWallet {
  const denominations = (d: number) => [{ name: pluginId, multiplier: `1${"0".repeat(d)}` }];
  const currencyInfo = { pluginId, currencyCode: ticker, denominations: denominations(decimals), ...o };
  const allTokens = Object.fromEntries(
    Object.entries(o.tokens ?? {}).map(([id, t]) => [
      id,
      { denominations: denominations(t.decimals), networkLocation: { contractAddress: t.contract } },
    ]),
  );
  const fake = {
    id: `wallet-${pluginId}`,
    currencyInfo,
    currencyConfig: { currencyInfo, allTokens },
    balanceMap: new Map([[null, "2000000"]]),
    // What it can send of its balance after the network fee.
    getMaxSpendable: async () => "1990000",
    getAddresses: async () => [{ addressType: "publicAddress", publicAddress: address }],
    async makeSpend(spend: EdgeSpendInfo) {
      spends.push(spend);
      return { networkFee: "1000", savedAction: spend.savedAction };
    },
    signTx: async (tx: unknown) => tx,
    broadcastTx: async (tx: unknown) => tx,
    saveTx: async () => {},
  };
  return fake as unknown as EdgeCurrencyWallet;
}

const bitcoin = wallet("bitcoin", "BTC", BTC_ADDRESS, 8);
const ethereum = wallet("ethereum", "ETH", ETH_ADDRESS, 18, { evmChainId: 1 });
const tron = wallet("tron", "TRX", USDT_TRC20, 6, {
  tokens: { usdt: { contract: USDT_TRC20, decimals: 6 } },
});

const request = (o: Partial<EdgeSwapRequest> & Pick<EdgeSwapRequest, "nativeAmount">): EdgeSwapRequest => ({
  fromWallet: bitcoin,
  toWallet: ethereum,
  fromTokenId: null,
  toTokenId: null,
  quoteFor: "from",
  ...o,
});

/**
 * The device's own address: the plugin runs in the user's app, and the per-IP limit of keyless and
 * app-key calls must not be shared with the other browser files' calls from 127.0.0.1.
 */
const DEVICE_IP = "198.51.100.7";
const deviceFetch = (url: string, init?: RequestInit) => {
  const headers = new Headers(init?.headers);
  headers.set("cf-connecting-ip", DEVICE_IP);
  return fetch(url, { ...init, headers });
};

let appKey = "";
let testKey = "";
/** Every request the plugin sent, and hooks on them: the device's country, a changed answer. */
const sent: string[] = [];
let country: string | null = null;
const asIs = async (_url: string, res: Response) => res;
let answer = asIs;

function plugin(): { options: EdgeCorePluginOptions; quote(r: EdgeSwapRequest): Promise<EdgeSwapQuote> } {
  const log = Object.assign(() => {}, { breadcrumb() {}, crash() {}, error() {}, warn() {} });
  const options = {
    initOptions: { apiKey: appKey, apiUrl: ORIGIN, affiliateId: "edge-test" },
    io: {
      random: (n: number) => crypto.getRandomValues(new Uint8Array(n)),
      async fetch(url: string, init?: RequestInit) {
        sent.push(url);
        const headers = new Headers(init?.headers);
        if (country) headers.set("x-end-user-country", country);
        return answer(url, await deviceFetch(url, { ...init, headers }));
      },
    },
    log,
  } as unknown as EdgeCorePluginOptions;
  const p = makeSwapPartnerPlugin(options);
  return { options, quote: (r) => p.fetchSwapQuote(r, undefined, { infoPayload: {} }) };
}

/** A quote, the swap action saved with its transaction, and the order's capability (`<uuid>.<token>`). */
async function quoted(r: EdgeSwapRequest) {
  const quote = await plugin().quote(r);
  const action = spends.at(-1)!.savedAction as EdgeTxActionSwap;
  return { quote, action, ref: action.orderUri!.split("/").pop()! };
}

/** The order, read back with the app key by its capability. */
async function orderOf(ref: string): Promise<Record<string, unknown>> {
  const res = await deviceFetch(`${ORIGIN}/api/v1/partner/orders/${ref}`, {
    headers: { authorization: `Bearer ${appKey}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** A test helper (docs/test-mode.md) on the order, with the partner's server test key. */
async function helper(ref: string, what: string, body: unknown = {}): Promise<void> {
  const res = await deviceFetch(`${ORIGIN}/api/v1/partner/test/orders/${ref.split(".")[0]}/${what}`, {
    method: "POST",
    headers: { authorization: `Bearer ${testKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

async function caught(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as Error & Record<string, unknown>;
}

/** A refused quote's reasons, asked with the app key as the plugin asks. */
async function refusal(
  query: string,
): Promise<{ code: string; min_amount_from: number; max_amount_to: number }[]> {
  const res = await deviceFetch(`${ORIGIN}/api/v1/partner/rates?${query}`, {
    headers: { authorization: `Bearer ${appKey}` },
  });
  return ((await res.json()) as { errors: [] }).errors;
}

beforeAll(async () => {
  const partner = await newPartner("Edge Plugin Wallet");
  const res = await admin(`/partners/${partner}/keys`, { json: { mode: "test", kind: "app" } });
  expect(res.status).toBe(201);
  appKey = ((await res.json()) as { key: string }).key;
  expect(appKey).toMatch(/^pk_app_test_/);
  testKey = await newKey(partner, "test");
});

describe("the Edge plugin against the service", () => {
  it("maps every live network of /currencies, from Edge's own list of chain plugin ids", async () => {
    // A network the service knows has a CAIP-2 id; one it merely lists (DASH, deposits off) has none.
    const currencies = (await (await deviceFetch(`${ORIGIN}/api/v1/currencies`)).json()) as {
      network: string;
      caip2: string | null;
    }[];
    const live = new Set(currencies.filter((c) => c.caip2 !== null).map((c) => c.network));
    const mapped = new Set([...mapping.values()].filter((v) => v !== null));
    expect([...mapping.keys()]).toEqual([...edgeCurrencyPluginIds]);
    expect([...live].sort()).toEqual([...mapped].sort());
  });

  it("quotes fixed first: an order with the refund address, the affiliate, and its tracking page", async () => {
    const { quote, action, ref } = await quoted(request({ nativeAmount: "1000000" }));
    expect(quote.isEstimate).toBe(false);
    expect(quote.fromNativeAmount).toBe("1000000");
    expect(quote.expirationDate!.getTime()).toBeGreaterThan(Date.now() + 25 * 60_000);
    const order = await orderOf(ref);
    expect(order).toMatchObject({
      id: action.orderId,
      tracking_url: action.orderUri,
      rate_type: "fixed",
      coin_from: "BTC",
      network_to: "ETH",
      amount_from_expected: 0.01,
      refund_address: BTC_ADDRESS,
      recipient_address: ETH_ADDRESS,
      metadata: { affiliate_id: "edge-test" },
    });
    const [whole, fraction = ""] = String(order.amount_to_expected).split(".");
    expect(quote.toNativeAmount).toBe(BigInt(whole + fraction.padEnd(18, "0")).toString());
    expect(action.refundAddress).toBe(BTC_ADDRESS);
  });

  it("falls back to a float order when the fixed one is refused", async () => {
    // The service refuses the fixed order: its quote_id is not one it issued (422 quote_not_found).
    answer = async (url, res) =>
      url.includes("rate_type=fixed")
        ? Response.json({ ...((await res.json()) as object), quote_id: "forged" })
        : res;
    try {
      const { quote, ref } = await quoted(request({ nativeAmount: "1000000" }));
      expect(quote.isEstimate).toBe(true);
      expect(quote.minReceiveAmount).toMatch(/^\d+$/);
      expect(await orderOf(ref)).toMatchObject({ rate_type: "float", refund_address: BTC_ADDRESS });
    } finally {
      answer = asIs;
    }
  });

  it("quotes in reverse: what the user receives, at a fixed rate", async () => {
    const { quote, ref } = await quoted(
      request({ toWallet: tron, toTokenId: "usdt", nativeAmount: "500000000", quoteFor: "to" }),
    );
    expect(quote.isEstimate).toBe(false);
    expect(Number(quote.toNativeAmount) / 500_000_000).toBeCloseTo(1, 3);
    expect(await orderOf(ref)).toMatchObject({ rate_type: "fixed", coin_to: "USDT", network_to: "TRX" });
  });

  it("quotes the maximum: the whole balance first, then what the wallet can send to that address", async () => {
    const { quote, ref } = await quoted(request({ nativeAmount: "0", quoteFor: "max" }));
    expect(quote.fromNativeAmount).toBe("1990000");
    expect(await orderOf(ref)).toMatchObject({ amount_from_expected: 0.0199 });
  });

  it("maps limits in the quoted asset: below in 'from', above in 'to'", async () => {
    const low = await caught(plugin().quote(request({ nativeAmount: "1000" })));
    expect(low).toMatchObject({ name: "SwapBelowLimitError", direction: "from" });
    const [min] = await refusal("coin_from=BTC&chain_id_to=1&amount=0.00001");
    expect(low.nativeMin).toBe(String(Math.round(min!.min_amount_from * 1e8)));

    const huge = `1${"0".repeat(16)}`; // 10^10 USDT
    const high = await caught(
      plugin().quote(request({ toWallet: tron, toTokenId: "usdt", nativeAmount: huge, quoteFor: "to" })),
    );
    expect(high).toMatchObject({ name: "SwapAboveLimitError", direction: "to" });
    const [max] = await refusal(
      `coin_from=BTC&network_to=TRX&token_to=${USDT_TRC20}&amount_to=10000000000&rate_type=fixed`,
    );
    expect(Number(high.nativeMax)).toBeCloseTo(max!.max_amount_to * 1e6, -1);
  });

  it("region beats limits: a refused country is geoRestriction even below the minimum", async () => {
    const before = await (await admin("/region-restrictions")).json();
    // An app key's region is where the device's request comes from (the header counts only where
    // Cloudflare saw no country): refuse the country this machine's requests are seen from.
    const seen = await deviceFetch(`${ORIGIN}/api/v1/partner/permissions`);
    const { country: here } = (await seen.json()) as { country: string | null };
    const countries = here === null ? ["KP"] : ["KP", here];
    expect(
      (await admin("/region-restrictions", { method: "PUT", json: { countries, coins: {} } })).status,
    ).toBe(200);
    country = "KP";
    try {
      const err = await caught(plugin().quote(request({ nativeAmount: "1000" })));
      expect(err).toMatchObject({ name: "SwapPermissionError", reason: "geoRestriction" });
      // The service gave both reasons; the plugin chose the region.
      const res = await deviceFetch(
        `${ORIGIN}/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.00001`,
        {
          headers: { "x-end-user-country": "KP" },
        },
      );
      const codes = ((await res.json()) as { errors: { code: string }[] }).errors.map((e) => e.code);
      expect(codes).toEqual(["region_restricted", "amount_below_min"]);
    } finally {
      country = null;
      await admin("/region-restrictions", { method: "PUT", json: before });
    }
  });

  it("an unsupported asset is SwapCurrencyError naming the side; an unmapped chain asks nothing", async () => {
    const stranger = wallet("ethereum", "ETH", ETH_ADDRESS, 18, {
      evmChainId: 1,
      tokens: { junk: { contract: "0x000000000000000000000000000000000000dEaD", decimals: 18 } },
    });
    const err = await caught(
      plugin().quote(request({ toWallet: stranger, toTokenId: "junk", nativeAmount: "1000000" })),
    );
    expect(err.message).toContain("the to side");
    expect(err.name).toBe("SwapCurrencyError");

    const asked = sent.length;
    const monero = wallet("monero", "XMR", "4Aq", 12);
    const unmapped = await caught(plugin().quote(request({ toWallet: monero, nativeAmount: "1000000" })));
    expect(unmapped.name).toBe("SwapCurrencyError");
    expect(sent.length).toBe(asked);
  });

  it("an order with a hold is infoNeeded whatever its status; an unknown status too", () => {
    expect(edgeOrderStatus({ status: "confirming", hold: { reason: "review" } })).toBe("infoNeeded");
    expect(edgeOrderStatus({ status: "confirming", hold: null })).toBe("processing");
    expect(edgeOrderStatus({ status: "a_status_from_the_future" })).toBe("infoNeeded");
  });

  it("a test-mode swap runs to completed, its status in Edge's terms read by the order's capability", async () => {
    const { quote, ref } = await quoted(request({ nativeAmount: "1000000" }));
    const { options } = plugin();
    expect(await quote.approve()).toMatchObject({
      orderId: ref.split(".")[0],
      destinationAddress: ETH_ADDRESS,
    });
    expect(await fetchOrderStatus(options, ref)).toBe("pending");
    await helper(ref, "deposit");
    expect(await fetchOrderStatus(options, ref)).toBe("processing");
    await helper(ref, "confirm");
    expect(await fetchOrderStatus(options, ref)).toBe("completed");

    // The exchange failed and so did the refund: the deposit is held for a decision, infoNeeded.
    const held = (await quoted(request({ nativeAmount: "1000000" }))).ref;
    await helper(held, "fail", { step: "exchange" });
    await helper(held, "fail", { step: "refund" });
    await helper(held, "deposit");
    await helper(held, "confirm");
    expect(await fetchOrderStatus(options, held)).toBe("infoNeeded");
  });
});
