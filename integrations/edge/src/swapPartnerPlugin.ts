/**
 * This service as an Edge swap plugin (EdgeApp/edge-exchange-plugins, src/swap/central/template.ts
 * and docs/CREATING_AN_EXCHANGE_PLUGIN.md). It runs inside the user's wallet, so it carries an app
 * key (`pk_app_…`): public by design, it can only quote, create orders and read its own.
 *
 * A quote is an order, as in Edge's other central plugins: a fixed-rate order first, a float one
 * when the fixed is refused; reverse ("to") quotes are fixed only. Refusals become Edge's error
 * types from the service's stable codes (docs/errors.md), region first, then currency, then limits.
 */
import { add } from "biggystring";
import { asArray, asMaybe, asNumber, asObject, asOptional, asString } from "cleaners";
import {
  type EdgeCorePluginOptions,
  type EdgeCurrencyWallet,
  type EdgeFetchFunction,
  type EdgeSwapInfo,
  type EdgeSwapPlugin,
  type EdgeSwapRequest,
  type EdgeTokenId,
  SwapAboveLimitError,
  SwapAddressError,
  SwapBelowLimitError,
  SwapCurrencyError,
  SwapPermissionError,
} from "edge-core-js/types";
import type { EdgeCurrencyPluginId } from "./edgeCurrencyPluginIds";
import {
  denominationToNative,
  ensureInFuture,
  getAddress,
  makeSwapPluginQuote,
  memoType,
  nativeToDenomination,
  type SwapOrder,
} from "./edgeHelpers";
import { swapPartner as mapping } from "./mapping";

const pluginId = "swappartner";

export const swapInfo: EdgeSwapInfo = {
  pluginId,
  isDex: false,
  displayName: "Swap Partner",
  supportEmail: "support@example.com",
};

const asInitOptions = asObject({
  /** The partner's app key (`pk_app_…`; `pk_app_test_…` for test orders). */
  apiKey: asString,
  /** The service's origin, e.g. `https://api.example.com`. */
  apiUrl: asString,
  /** Optional: a sub-affiliate of the partner, stored on each order as `metadata.affiliate_id`. */
  affiliateId: asOptional(asString),
});

/** A refusal's body (docs/errors.md): every reason in `errors`, the most relevant in `code`. */
const asReason = asObject({
  code: asString,
  detail: asString,
  side: asOptional(asString),
  min_amount_from: asOptional(asNumber),
  min_amount_to: asOptional(asNumber),
  max_amount_from: asOptional(asNumber),
  max_amount_to: asOptional(asNumber),
});
const asRefusal = asObject({ ...asReason.shape, errors: asOptional(asArray(asReason)) });
type Reason = ReturnType<typeof asReason>;

const asFixedQuote = asObject({ amount_from: asNumber, quote_id: asString });

const asOrder = asObject({
  id: asString,
  rate_type: asString,
  amount_from_expected: asNumber,
  amount_to_expected: asNumber,
  amount_to_min: asMaybe(asNumber),
  deposit_address: asString,
  deposit_address_tag: asMaybe(asString),
  expires_at: asString,
  tracking_url: asString,
});

/** The service's reasons that mean "not this asset or pair", whichever side (`side` when known). */
const CURRENCY_CODES = new Set([
  "pair_unavailable",
  "unsupported_asset",
  "asset_mismatch",
  "network_required",
  "network_unavailable",
  "deposit_disabled",
  "withdraw_disabled",
]);
const BELOW = new Set(["amount_below_min"]);
/** Above the most the service can pay now is, to the user, above the limit too. */
const ABOVE = new Set(["amount_above_max", "insufficient_liquidity"]);

/** The statuses of Edge's status API (docs/API_REQUIREMENTS.md, "Transaction Status API"). */
export type EdgeOrderStatus = "pending" | "processing" | "infoNeeded" | "expired" | "refunded" | "completed";

const EDGE_STATUS: Record<string, EdgeOrderStatus> = {
  waiting_deposit: "pending",
  confirming: "processing",
  exchanging: "processing",
  sending: "processing",
  completed: "completed",
  expired: "expired",
  refunding: "refunded",
  refunded: "refunded",
  // The deposit is held until someone decides (a refund, the exchange after all, another address).
  failed: "infoNeeded",
};

/**
 * An order's status in Edge's terms. An order with a `hold` (set while it waits on the user or on
 * a review) is `infoNeeded` whatever its status; so is a status this plugin does not know yet.
 */
export function edgeOrderStatus(order: { status: string; hold?: unknown }): EdgeOrderStatus {
  if (order.hold != null) return "infoNeeded";
  return EDGE_STATUS[order.status] ?? "infoNeeded";
}

type Side = "from" | "to";

function sideParams(
  side: Side,
  wallet: EdgeCurrencyWallet,
  tokenId: EdgeTokenId,
): Record<string, string | null> {
  const { currencyCode, evmChainId, pluginId } = wallet.currencyInfo;
  const contract =
    tokenId == null ? null : wallet.currencyConfig.allTokens[tokenId]?.networkLocation?.contractAddress;
  if (contract === undefined)
    throw new Error(`Missing contract address for ${side} token ${String(tokenId)}`);
  // An EVM chain id alone names its native coin; elsewhere the native coin is named by its ticker,
  // which Edge's chains and this service spell alike (BTC, TRX, SOL, XRP, …).
  if (evmChainId != null) return { [`chain_id_${side}`]: String(evmChainId), [`token_${side}`]: contract };
  return {
    [`network_${side}`]: mapping.get(pluginId as EdgeCurrencyPluginId) ?? "",
    ...(contract == null ? { [`coin_${side}`]: currencyCode } : {}),
    [`token_${side}`]: contract,
  };
}

/** A JSON number as a plain decimal string (never exponent notation, which amounts refuse). */
const decimal = (n: number): string =>
  n.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 });

export function makeSwapPartnerPlugin(opts: EdgeCorePluginOptions): EdgeSwapPlugin {
  const { io, log } = opts;
  const { apiKey, apiUrl, affiliateId } = asInitOptions(opts.initOptions);
  const api = new URL("/api/v1/", apiUrl).href;

  const call = (fetch: EdgeFetchFunction, path: string, body?: unknown) =>
    fetch(api + path, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        Authorization: `Bearer ${apiKey}`,
        Accept: "application/json",
        ...(body === undefined
          ? {}
          : { "Content-Type": "application/json", "Idempotency-Key": hex(io.random(16)) }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  /** Edge's error for a refusal, by Edge's priority: region, currency, limits, address. */
  function edgeError(request: EdgeSwapRequest, quoteFor: Side, status: number, raw: unknown): Error {
    const refusal = asMaybe(asRefusal)(raw);
    if (refusal == null)
      return new Error(`${swapInfo.displayName} answered ${status}: ${JSON.stringify(raw)}`);
    const reasons: Reason[] = refusal.errors ?? [refusal];
    const find = (codes: Set<string>) => reasons.find((r) => codes.has(r.code));
    if (find(new Set(["region_restricted"]))) return new SwapPermissionError(swapInfo, "geoRestriction");
    const currency = find(CURRENCY_CODES);
    if (currency) {
      const error = new SwapCurrencyError(swapInfo, request);
      if (currency.side) error.message += ` (the ${currency.side} side: ${currency.detail})`;
      return error;
    }
    const wallet = quoteFor === "from" ? request.fromWallet : request.toWallet;
    const tokenId = quoteFor === "from" ? request.fromTokenId : request.toTokenId;
    const native = (n: number | undefined) =>
      n === undefined ? undefined : denominationToNative(wallet, decimal(n), tokenId);
    const below = find(BELOW);
    if (below) return new SwapBelowLimitError(swapInfo, native(below[`min_amount_${quoteFor}`]), quoteFor);
    const above = find(ABOVE);
    if (above) return new SwapAboveLimitError(swapInfo, native(above[`max_amount_${quoteFor}`]), quoteFor);
    if (find(new Set(["recipient_not_activated"])))
      return new SwapAddressError(swapInfo, { reason: "mustBeActivated" });
    return new Error(`${swapInfo.displayName}: ${refusal.code}: ${refusal.detail}`);
  }

  async function fetchSwapOrder(request: EdgeSwapRequest, rateType: "fixed" | "float"): Promise<SwapOrder> {
    const { fromWallet, toWallet, fromTokenId, toTokenId, nativeAmount } = request;
    const quoteFor = request.quoteFor === "to" ? "to" : "from";
    const [fromAddress, toAddress] = await Promise.all([getAddress(fromWallet), getAddress(toWallet)]);
    const sides = {
      ...sideParams("from", fromWallet, fromTokenId),
      ...sideParams("to", toWallet, toTokenId),
    };
    const refused = async (res: { status: number; json(): Promise<unknown> }) =>
      edgeError(request, quoteFor, res.status, await res.json().catch(() => null));

    let amountFrom =
      quoteFor === "from" ? nativeToDenomination(fromWallet, nativeAmount, fromTokenId) : undefined;
    let quoteId: string | undefined;
    if (rateType === "fixed") {
      const amount =
        quoteFor === "from"
          ? { amount: amountFrom }
          : { amount_to: nativeToDenomination(toWallet, nativeAmount, toTokenId) };
      const query = Object.entries({ ...sides, ...amount, rate_type: "fixed" }).filter(
        (e): e is [string, string] => e[1] != null,
      );
      const res = await call(io.fetch, `partner/rates?${new URLSearchParams(query)}`);
      if (!res.ok) throw await refused(res);
      const quote = asFixedQuote(await res.json());
      amountFrom = decimal(quote.amount_from);
      quoteId = quote.quote_id;
    }

    const res = await call(io.fetch, "partner/orders", {
      ...sides,
      amount_from: amountFrom,
      rate_type: rateType,
      ...(quoteId ? { quote_id: quoteId } : {}),
      recipient_address: toAddress,
      // Always: a deposit that cannot be swapped goes back to the user's own wallet by itself.
      refund_address: fromAddress,
      ...(affiliateId ? { metadata: { affiliate_id: affiliateId } } : {}),
    });
    if (!res.ok) throw await refused(res);
    const order = asOrder(await res.json());
    log("swappartner order", order.id, order.rate_type);

    const fromNativeAmount = denominationToNative(
      fromWallet,
      decimal(order.amount_from_expected),
      fromTokenId,
    );
    const toNativeAmount = denominationToNative(toWallet, decimal(order.amount_to_expected), toTokenId);
    const tag = order.deposit_address_tag;
    return {
      request,
      swapInfo,
      fromNativeAmount,
      expirationDate: ensureInFuture(new Date(order.expires_at)),
      minReceiveAmount:
        order.amount_to_min == null
          ? undefined
          : denominationToNative(toWallet, decimal(order.amount_to_min), toTokenId),
      spendInfo: {
        tokenId: fromTokenId,
        spendTargets: [{ nativeAmount: fromNativeAmount, publicAddress: order.deposit_address }],
        memos: tag == null ? [] : [{ type: memoType(fromWallet.currencyInfo.pluginId), value: tag }],
        networkFeeOption: "high",
        assetAction: { assetActionType: "swap" },
        savedAction: {
          actionType: "swap",
          swapInfo,
          orderId: order.id,
          // The order's own tracking page: its link carries the token that opens it without a key.
          orderUri: order.tracking_url,
          isEstimate: order.rate_type === "float",
          toAsset: {
            pluginId: toWallet.currencyInfo.pluginId,
            tokenId: toTokenId,
            nativeAmount: toNativeAmount,
          },
          fromAsset: {
            pluginId: fromWallet.currencyInfo.pluginId,
            tokenId: fromTokenId,
            nativeAmount: fromNativeAmount,
          },
          payoutAddress: toAddress,
          payoutWalletId: toWallet.id,
          refundAddress: fromAddress,
        },
      },
    };
  }

  /** changenow.ts's order of attempts: fixed, then float; when both fail, the fixed refusal. */
  async function fetchSwapOrderFixedFirst(request: EdgeSwapRequest): Promise<SwapOrder> {
    if (request.quoteFor === "to") return await fetchSwapOrder(request, "fixed");
    try {
      return await fetchSwapOrder(request, "fixed");
    } catch (fixedError) {
      try {
        return await fetchSwapOrder(request, "float");
      } catch {
        throw fixedError;
      }
    }
  }

  /** swapHelpers.ts `getMaxSwappable`: quote the whole balance, then what the wallet can send to it. */
  async function maxRequest(request: EdgeSwapRequest): Promise<EdgeSwapRequest> {
    if (request.quoteFor !== "max") return request;
    const balance = request.fromWallet.balanceMap.get(request.fromTokenId) ?? "0";
    const whole = await fetchSwapOrderFixedFirst({ ...request, nativeAmount: balance, quoteFor: "from" });
    const [target] = whole.spendInfo.spendTargets;
    const spendInfo = { ...whole.spendInfo, spendTargets: [{ publicAddress: target?.publicAddress }] };
    const max = await request.fromWallet.getMaxSpendable(spendInfo);
    return { ...request, nativeAmount: add(max, "0"), quoteFor: "from" };
  }

  return {
    swapInfo,
    async fetchSwapQuote(request) {
      const from = mapping.get(request.fromWallet.currencyInfo.pluginId as EdgeCurrencyPluginId);
      const to = mapping.get(request.toWallet.currencyInfo.pluginId as EdgeCurrencyPluginId);
      if (from == null || to == null) throw new SwapCurrencyError(swapInfo, request);
      const order = await fetchSwapOrderFixedFirst(await maxRequest(request));
      return await makeSwapPluginQuote(order);
    },
  };
}

/**
 * An order's status for Edge, read with the app key: `ref` is the order's id, or the last segment
 * of its tracking page (`<uuid>.<token>`, the order's public capability). Only an order this key
 * created answers; any other is an error.
 */
export async function fetchOrderStatus(opts: EdgeCorePluginOptions, ref: string): Promise<EdgeOrderStatus> {
  const { apiKey, apiUrl } = asInitOptions(opts.initOptions);
  const res = await opts.io.fetch(new URL(`/api/v1/partner/orders/${encodeURIComponent(ref)}`, apiUrl).href, {
    headers: { Authorization: `Bearer ${apiKey}`, Accept: "application/json" },
  });
  if (!res.ok) throw new Error(`${swapInfo.displayName} answered ${res.status} for order ${ref}`);
  return edgeOrderStatus(asObject({ status: asString, hold: asOptional(asObject({})) })(await res.json()));
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
