/**
 * Ledger's Partner Swap Service v2 (docs/ledger.md) in this service's terms: the one place that
 * says how an order's status, an error code, a catalog row and a slippage read in Ledger's
 * document (integrations/ledger/ledger-swap-provider-openapi.yml), and back.
 */
import { displayContract } from "./asset-identity";
import type { CurrencyRow } from "./currency";
import type { Refusal } from "./errors";
import { MAX_SLIPPAGE_BPS } from "./min-out";
import { type NetworkCode, networkFacts } from "./networks";
import { type OrderRecord, paidOut } from "./order";
import type { OrderStatus } from "./order-state";

export const LEDGER_STATUSES = ["FINISHED", "EXPIRED", "ON_HOLD", "PENDING", "REFUNDED", "UNKNOWN"] as const;
export type LedgerStatus = (typeof LEDGER_STATUSES)[number];

/**
 * Ledger's five statuses over our nine: everything still moving is PENDING (a refund on its way
 * too, until it lands: REFUNDED); `failed` holds the user's funds for a decision (docs/orders.md),
 * which Ledger calls ON_HOLD. UNKNOWN is never answered: every status of ours has a meaning.
 */
const STATUS: Record<OrderStatus, LedgerStatus> = {
  waiting_deposit: "PENDING",
  confirming: "PENDING",
  exchanging: "PENDING",
  sending: "PENDING",
  refunding: "PENDING",
  completed: "FINISHED",
  expired: "EXPIRED",
  refunded: "REFUNDED",
  failed: "ON_HOLD",
};

export const ledgerStatus = (status: OrderStatus): LedgerStatus => STATUS[status];

/**
 * How long a fixed quote for Ledger can be locked. Ledger's providers page asks that a quote hold
 * "at least a few minutes" (developers.ledger.com, Swap › Providers backend); five minutes, where
 * the partner API's own fixed quotes hold FIXED_QUOTE_TTL_SECONDS.
 */
export const LEDGER_QUOTE_SECONDS = 300;

/**
 * A currency's id towards Ledger (the document's "provider's identifiers"): the ticker for a
 * network's own coin on its own network (`btc`, `eth`), else ticker and network (`usdt_trx`,
 * `eth_arbitrum`), lower case. Tickers and network codes hold no `_`, so the id reads back.
 */
export function ledgerCurrencyId(coin: string, network: string): string {
  return (coin === network ? coin : `${coin}_${network}`).toLowerCase();
}

export function parseLedgerCurrencyId(id: string): { coin: string; network: string } | null {
  const m = /^([a-z0-9]+)(?:_([a-z0-9]+))?$/.exec(id);
  if (!m?.[1]) return null;
  const coin = m[1].toUpperCase();
  return { coin, network: m[2]?.toUpperCase() ?? coin };
}

/**
 * Ledger Live's currency id of each network (`CryptoCurrencyId`, LedgerHQ/ledger-live
 * libs/ledgerjs/packages/cryptoassets), the `blockchain` of Ledger's currency list; on EVM
 * networks Ledger reads `chainId` first.
 */
const BLOCKCHAIN: Record<NetworkCode, string> = {
  BTC: "bitcoin",
  BCH: "bitcoin_cash",
  LTC: "litecoin",
  DOGE: "dogecoin",
  ETH: "ethereum",
  BSC: "bsc",
  ARBITRUM: "arbitrum",
  OPTIMISM: "optimism",
  BASE: "base",
  POLYGON: "polygon",
  AVAXC: "avalanche_c_chain",
  ETC: "ethereum_classic",
  TRX: "tron",
  SOL: "solana",
  XRP: "ripple",
  XLM: "stellar",
  TON: "ton",
};

export interface LedgerCurrency {
  id: string;
  type: "coin" | "token";
  blockchain: string;
  chainId?: number;
  contract?: string;
}

/** A catalog row as Ledger's currency list names it; null on a network Ledger cannot be told. */
export function ledgerCurrency(row: CurrencyRow): LedgerCurrency | null {
  const facts = networkFacts(row.network);
  if (!facts) return null;
  return {
    id: ledgerCurrencyId(row.coin, row.network),
    type: row.contract_address ? "token" : "coin",
    blockchain: BLOCKCHAIN[row.network as NetworkCode],
    ...(facts.chainId === null ? {} : { chainId: facts.chainId }),
    ...(row.contract_address ? { contract: displayContract(row.network, row.contract_address) } : {}),
  };
}

/**
 * One page of a list in a fixed order, after the item whose key is `cursor` (Ledger's cursor
 * paging): the cursor is the last key of the page before, so a list that changes between pages
 * neither repeats nor skips what stayed.
 */
export function pageAfter<T>(
  items: readonly T[],
  key: (item: T) => string,
  cursor: string | undefined,
  limit: number,
): { page: T[]; next_cursor: string | null } {
  const sorted = [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const rest = cursor === undefined ? sorted : sorted.filter((item) => key(item) > cursor);
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  return { page, next_cursor: rest.length > limit && last ? key(last) : null };
}

/** Ledger's slippage (a ratio, 0.1 = 10 %) in basis points, capped at what this service allows. */
export function slippageBps(ratio: string): number {
  return Math.min(Math.round(Number(ratio) * 10_000), MAX_SLIPPAGE_BPS);
}

/** A basis-point figure as Ledger's ratio string. */
export const slippageRatio = (bps: number): string => String(bps / 10_000);

export interface LedgerErrorKey {
  messageKey: string;
  /** Where Ledger's document names the status; otherwise the service's own for the code. */
  status?: 400 | 404 | 451;
  additionalFields: Record<string, string>;
}

/**
 * An error of ours as Ledger's `{messageKey, message, additionalFields}`: the keys its document
 * names where one fits, else our stable code in upper case (the document invites a provider's own
 * constraints). `additionalFields.code` always carries our code; limits carry both bounds.
 */
export function ledgerErrorKey(code: string, reasons: readonly Refusal[] = []): LedgerErrorKey {
  const first = reasons[0];
  const fields: Record<string, string> = { code };
  const limits = () => {
    if (first?.min_amount_from !== undefined) fields.minRequiredAmount = String(first.min_amount_from);
    if (first?.max_amount_from !== undefined) fields.maxRequiredAmount = String(first.max_amount_from);
    return fields;
  };
  // The most relevant reason names the key: an unknown ticker's top code stays `pair_unavailable`
  // (src/domain/errors.ts), but Ledger tells an unknown currency from an unavailable pair.
  switch (first?.code ?? code) {
    case "region_restricted":
      return {
        messageKey: first?.side ? "CURRENCY_REGION_RESTRICTED_ERROR" : "REGION_RESTRICTED_ERROR",
        status: 451,
        additionalFields: fields,
      };
    case "amount_below_min":
      return { messageKey: "FROM_CURRENCY_MINIMUM_AMOUNT_ERROR", status: 400, additionalFields: limits() };
    case "amount_above_max":
      return { messageKey: "FROM_CURRENCY_MAXIMUM_AMOUNT_ERROR", status: 400, additionalFields: limits() };
    case "unsupported_asset":
      return {
        messageKey: first?.side === "to" ? "CURRENCY_TO_NOT_FOUND_ERROR" : "CURRENCY_FROM_NOT_FOUND_ERROR",
        status: 404,
        additionalFields: fields,
      };
    case "pair_unavailable":
      // Only the source network's missing deposit address is the `from` side's (noDepositRefusal).
      return first?.side === "from"
        ? { messageKey: "NO_DEPOSIT_WALLET_ERROR", status: 400, additionalFields: fields }
        : { messageKey: "SWAP_PAIR_NOT_FOUND_ERROR", status: 404, additionalFields: fields };
    case "asset_mismatch":
    case "network_required":
      return { messageKey: "SWAP_PAIR_NOT_FOUND_ERROR", status: 404, additionalFields: fields };
    case "quote_not_found":
    case "quote_expired":
    case "quote_mismatch":
      return { messageKey: "SWAP_QUOTE_NOT_FOUND_ERROR", status: 404, additionalFields: fields };
    case "order_not_found":
      return { messageKey: "TRANSACTION_NOT_FOUND", status: 404, additionalFields: fields };
    default:
      return { messageKey: code.toUpperCase(), additionalFields: fields };
  }
}

/** The queue message type of a status change pushed to Ledger's webhook (docs/ledger.md). */
export const LEDGER_STATUS_EVENT_TYPE = "ledger.status_changed";

/**
 * Ledger's status webhook body (`StatusWebhookRequest`) for an order as it now is, without the
 * provider id, which is the partner's setting and added when sent. `networkFees` is, per Ledger's
 * document, the referral fee: the partner's markup.
 */
export function ledgerStatusUpdate(r: OrderRecord): Record<string, string> {
  return {
    providerStatus: ledgerStatus(r.status),
    amount: paidOut(r) ?? r.amountToExpected,
    ...(r.fees ? { providerFees: r.fees.service, networkFees: r.fees.partner } : {}),
    ...(r.depositTxid ? { payinTransactionId: r.depositTxid } : {}),
    ...(r.payoutTxid ? { transactionHash: r.payoutTxid } : {}),
  };
}
