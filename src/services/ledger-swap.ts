// Ledger's Partner Swap Service v2 (docs/ledger.md) over this service's own use cases: a Ledger
// quote is priceQuote's, a Ledger swap is createOrder's order of the calling partner, its status
// is readOrder's. Only the names, the payload and its signature are Ledger's.
import type { Config } from "../config";
import { DomainError, refused } from "../domain/errors";
import { feeSplit, type StoredFees, storedFees } from "../domain/fees";
import {
  encodeSwapPayload,
  ledgerPublicKey,
  type ProviderSig,
  signSwapPayload,
  smallestUnits,
} from "../domain/ledger-payload";
import {
  LEDGER_QUOTE_SECONDS,
  type LedgerCurrency,
  type LedgerStatus,
  ledgerCurrency,
  ledgerStatus,
  pageAfter,
  parseLedgerCurrencyId,
  slippageBps,
  slippageRatio,
} from "../domain/ledger-swap";
import { DEFAULT_MAX_SLIPPAGE_BPS, MAX_SLIPPAGE_BPS } from "../domain/min-out";
import { parseDecimal, toDecimalString } from "../domain/money";
import type { OrderView } from "../domain/order";
import type { Side } from "../domain/pairs";
import type { Partner } from "../domain/partner";
import { type CurrencyRow, loadCatalog } from "../storage/catalog";
import { putLedgerWebhookStatement } from "../storage/ledger-webhooks";
import { issueQuoteFor, readFixedQuote } from "./fixed-quotes";
import { quotedMaximum } from "./liquidity-cap";
import { auditedWrite, type OperatorActor } from "./operator-audit";
import { type CreateOrderBody, createOrder, type OrderOrigin, readOrder } from "./orders";
import { feeTermsOf, priceQuote } from "./quoting";

export interface Page {
  limit: number;
  cursor?: string | undefined;
}

const listed = (rows: readonly CurrencyRow[]) =>
  rows.flatMap((row) => {
    const currency = row.is_active === 1 ? ledgerCurrency(row) : null;
    return currency ? [{ row, currency }] : [];
  });

/** GET /currencies: the active catalog, in id order. */
export async function ledgerCurrencies(db: D1Database, page: Page) {
  const { page: rows, next_cursor } = pageAfter(
    listed(await loadCatalog(db)).map((l) => l.currency),
    (c: LedgerCurrency) => c.id,
    page.cursor,
    page.limit,
  );
  return { currencies: rows, next_cursor };
}

/**
 * GET /pairs: every deposit-enabled currency to every other withdraw-enabled one, with the source
 * currency's catalog limits (a quote gives the pair's own, which prices can narrow).
 */
export async function ledgerPairs(db: D1Database, page: Page) {
  const rows = listed(await loadCatalog(db));
  const pairs = rows.flatMap((from) =>
    from.row.is_deposit_enabled !== 1
      ? []
      : rows
          .filter((to) => to.row.is_withdraw_enabled === 1 && to.row.id !== from.row.id)
          .map((to) => ({
            from: from.currency.id,
            to: to.currency.id,
            tradeMethod: ["fixed", "float"] as const,
            minSwapAmount: from.row.min_amount,
            maxSwapAmount: from.row.max_amount,
          })),
  );
  const { page: out, next_cursor } = pageAfter(pairs, (p) => `${p.from}>${p.to}`, page.cursor, page.limit);
  return { pairs: out, next_cursor };
}

/** A Ledger currency id as the side of a quote; an id that cannot be ours is an unknown currency. */
function side(id: string, which: Side) {
  const parsed = parseLedgerCurrencyId(id);
  if (!parsed)
    throw refused([
      { code: "unsupported_asset", side: which, detail: `Unknown currency ${JSON.stringify(id)}.` },
    ]);
  return parsed;
}

/** Ledger's three named fees: ours, the partner's markup (Ledger's referral) and the network's. */
const feeFields = (f: Pick<StoredFees, "service" | "partner" | "network">) => ({
  providerFees: f.service,
  referralFees: f.partner,
  payoutNetworkFees: f.network,
});

/** A JSON number of an order's view as Ledger's decimal string (never exponent notation). */
const decimal = (n: number | string) => toDecimalString(parseDecimal(n));

export interface LedgerQuoteRequest {
  from: string;
  to: string;
  amount: string;
  /** Beyond Ledger's document: `float` for an indicative quote; fixed (lockable) otherwise. */
  tradeMethod?: "fixed" | "float" | undefined;
}

/** Who asks for a quote: the end user's country and region, and where background work goes. */
export interface QuoteCaller {
  country: string | null;
  region: () => string;
  background: (p: Promise<unknown>) => void;
}

/**
 * POST /quote: the partner's price, its maximum capped by liquidity as GET /partner/rates' is
 * (quotedMaximum); a fixed one can be locked for five minutes.
 */
export async function ledgerQuote(
  env: Env,
  config: Config,
  partner: Partner,
  req: LedgerQuoteRequest,
  now: number,
  caller: QuoteCaller,
) {
  const rateType = req.tradeMethod ?? "fixed";
  const priced = await priceQuote(
    env,
    config,
    { from: side(req.from, "from"), to: side(req.to, "to"), amountFrom: parseDecimal(req.amount), rateType },
    partner.markupBps,
    now,
    partner.livemode,
    caller.country,
  );
  const { quote } = priced;
  const max = await quotedMaximum(env, config, priced, caller.region, partner.livemode, caller.background);
  const expiresAt = now + LEDGER_QUOTE_SECONDS * 1000;
  const quoteId =
    rateType === "fixed" ? await issueQuoteFor(env.DB, partner.id, priced, expiresAt) : undefined;
  return {
    ...(quoteId ? { quoteId } : {}),
    amount: toDecimalString(quote.amountFrom),
    amountTo: toDecimalString(quote.amountTo),
    ...feeFields(storedFees(feeSplit(quote.amountTo, feeTermsOf(priced.input)))),
    tradeMethod: rateType,
    expiry: new Date(expiresAt).toISOString(),
    minAmountFrom: toDecimalString(quote.min),
    maxAmountFrom: toDecimalString(max),
    defaultSlippage: slippageRatio(DEFAULT_MAX_SLIPPAGE_BPS),
    minSlippage: slippageRatio(0),
    maxSlippage: slippageRatio(MAX_SLIPPAGE_BPS),
  };
}

export interface LedgerSwapRequest {
  /** Fixed: the quote to lock. Float: absent, and `amount` given. */
  quoteId?: string | undefined;
  amount?: string | undefined;
  refundAddress: string;
  refundAddressExtraId?: string | undefined;
  payoutAddress: string;
  payoutAddressExtraId?: string | undefined;
  currencyFrom: string;
  currencyTo: string;
  payloadCurrencyFrom: string;
  payloadCurrencyTo: string;
  nonce: Uint8Array;
  slippage?: string | undefined;
}

/** The signing key, or 503 before anything is created: an unsigned swap is no swap for Ledger. */
function signingKey(env: Env): string {
  const key = env.LEDGER_SIGNING_KEY;
  if (!key || !/^[0-9a-f]{64}$/i.test(key))
    throw new DomainError(
      "service_misconfigured",
      "Ledger swaps are not configured: LEDGER_SIGNING_KEY is not set.",
    );
  return key;
}

/**
 * POST /swap/fixed and /swap/float: a new order of the partner on every call (a retry with the same
 * quote is a new swap, as Ledger's document requires), then its payload, signed. A fixed quote is
 * honoured as quoted by every swap made from it until it expires, then refused.
 */
export async function ledgerSwap(
  env: Env,
  config: Config,
  partner: Partner,
  req: LedgerSwapRequest,
  now: number,
  origin: OrderOrigin,
): Promise<{
  swapId: string;
  payinAddress: string;
  createdAt: string;
  providerFees: string;
  referralFees: string;
  payoutNetworkFees: string;
  providerSig: ProviderSig;
}> {
  const key = signingKey(env);
  const from = side(req.currencyFrom, "from");
  const to = side(req.currencyTo, "to");
  const terms = req.quoteId === undefined ? null : await fixedTerms(env.DB, req.quoteId);
  const body: CreateOrderBody = {
    coin_from: from.coin,
    network_from: from.network,
    coin_to: to.coin,
    network_to: to.network,
    amount_from: terms ? terms.amountFrom : (req.amount as string),
    rate_type: terms ? "fixed" : "float",
    ...(terms ? { quote_id: req.quoteId } : {}),
    ...(req.slippage === undefined ? {} : { max_slippage_bps: slippageBps(req.slippage) }),
    recipient_address: req.payoutAddress,
    recipient_address_tag: req.payoutAddressExtraId,
    refund_address: req.refundAddress,
    refund_address_tag: req.refundAddressExtraId,
  };
  const { order, amountToExpected } = await createOrder(env, config, partner, body, undefined, now, {
    ...origin,
    ledgerSwap: true,
  });
  const catalog = await loadCatalog(env.DB);
  const decimalsOf = (coin: string, network: string) =>
    catalog.find((r) => r.coin === coin && r.network === network)?.decimals ?? 0;
  const payload = encodeSwapPayload({
    payinAddress: order.deposit_address,
    payinExtraId: order.deposit_address_tag,
    refundAddress: req.refundAddress,
    refundExtraId: req.refundAddressExtraId ?? null,
    payoutAddress: req.payoutAddress,
    payoutExtraId: req.payoutAddressExtraId ?? null,
    currencyFrom: req.payloadCurrencyFrom,
    currencyTo: req.payloadCurrencyTo,
    amountToProvider: smallestUnits(
      body.amount_from.toString(),
      decimalsOf(order.coin_from, order.network_from),
    ),
    // The order's exact decimal (a fixed quote's amount): never its view's float.
    amountToWallet: smallestUnits(amountToExpected, decimalsOf(order.coin_to, order.network_to)),
    nonce: req.nonce,
  });
  return {
    swapId: order.id,
    payinAddress: order.deposit_address,
    createdAt: order.created_at,
    ...feeFields(viewFees(order)),
    providerSig: signSwapPayload(payload, key),
  };
}

/**
 * What a quote locks, to ask createOrder for exactly that; whether this partner may lock it for
 * this pair, now, is createOrder's own check (lockFixedQuote).
 */
async function fixedTerms(db: D1Database, quoteId: string) {
  const terms = await readFixedQuote(db, quoteId);
  if (!terms) throw new DomainError("quote_not_found", "No such quote; ask POST /quote again.");
  return terms;
}

function viewFees(order: Pick<OrderView, "fees">) {
  const f = order.fees;
  return f
    ? { service: decimal(f.service), partner: decimal(f.partner), network: decimal(f.network) }
    : { service: "0", partner: "0", network: "0" };
}

/** GET /status: the partner's order as Ledger's status. */
export async function ledgerSwapStatus(
  env: Env,
  partner: Partner,
  swapId: string,
): Promise<{
  status: LedgerStatus;
  amount: string;
  payinTransactionId: string;
  payoutTransactionId: string;
  providerFees: string;
  referralFees: string;
  payoutNetworkFees: string;
}> {
  const order = JSON.parse(await readOrder(env, partner, swapId)) as OrderView;
  return {
    status: ledgerStatus(order.status),
    amount: decimal(order.amount_to_actual ?? order.amount_to_expected),
    payinTransactionId: order.deposit_txid ?? "",
    payoutTransactionId: order.payout_txid ?? "",
    ...feeFields(viewFees(order)),
  };
}

/** GET /public-key: what Ledger registers to check the signatures (docs/ledger.md). */
export function ledgerSigningPublicKey(env: Env) {
  return { curve: "secp256r1", publicKey: ledgerPublicKey(signingKey(env)) };
}

export interface LedgerWebhookSetting {
  /** Ledger's swap backend, to which `/webhook/{swapId}/status` is appended. */
  url: string;
  /** The `x-api-key` Ledger issued: kept, never answered back. */
  apiKey: string;
  providerId: string;
}

/** Where a Ledger partner's status changes are pushed (docs/ledger.md, "Status webhook"), audited. */
export async function setLedgerWebhook(
  db: D1Database,
  actor: OperatorActor,
  partnerId: string,
  setting: LedgerWebhookSetting,
): Promise<{ url: string; provider_id: string; api_key_set: true }> {
  const view = { url: setting.url, provider_id: setting.providerId, api_key_set: true as const };
  await auditedWrite(
    db,
    actor,
    {
      action: "partner.ledger_webhook_set",
      entity: { type: "partner", id: partnerId },
      before: null,
      after: view,
    },
    putLedgerWebhookStatement(db, {
      partner_id: partnerId,
      url: setting.url,
      api_key: setting.apiKey,
      provider_id: setting.providerId,
      updated_at: new Date().toISOString(),
    }),
  );
  return view;
}
