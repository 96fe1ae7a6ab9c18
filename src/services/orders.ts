import type { Config } from "../config";
import { sha256Hex } from "../domain/credentials";
import { checkDestination } from "../domain/destination";
import { DomainError } from "../domain/errors";
import { decodeCursor, pageOf } from "../domain/keyset-cursor";
import { parseDecimal, toDecimalString } from "../domain/money";
import { idempotentOrderId, type OrderDraft, type OrderView, type RateType } from "../domain/order";
import type { Partner } from "../domain/partner";
import { normalizeShortId } from "../domain/short-id";
import { MAX_OPEN_TEST_ORDERS, OPEN_TEST_STATUSES } from "../domain/test-mode";
import type { CreateResult } from "../objects/order-object";
import { countTestOrders, findOrderIdByShortId, listOrders, type OrderIndexRow } from "../storage/orders";
import { lockFixedQuote } from "./fixed-quotes";
import { orderDepositScheme, priceQuote } from "./quoting";

export interface CreateOrderBody {
  coin_from: string;
  network_from: string;
  coin_to: string;
  network_to: string;
  amount_from: number | string;
  rate_type: RateType;
  recipient_address: string;
  recipient_address_tag?: string | undefined;
  refund_address?: string | undefined;
  refund_address_tag?: string | undefined;
  quote_id?: string | undefined;
}

export type CreateOrderOutcome = { created: boolean; order: OrderView };

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * POST /partner/orders: every rule is checked before anything is allocated, so a rejected request
 * changes nothing. The OrderObject then allocates the deposit address and short id exactly once.
 */
export async function createOrder(
  env: Env,
  config: Config,
  partner: Partner,
  body: CreateOrderBody,
  idempotencyKey: string | undefined,
  now: number,
): Promise<CreateOrderOutcome> {
  const requestHash = await sha256Hex(canonicalJson(body));
  // The same Idempotency-Key under a test and a live key names two different orders.
  const id = idempotencyKey
    ? await idempotentOrderId(partner.id, partner.livemode ? idempotencyKey : `test\n${idempotencyKey}`)
    : crypto.randomUUID();
  if (idempotencyKey) {
    const earlier = await env.ORDERS.getByName(id).replay(partner.id, requestHash);
    if (earlier) return outcome(earlier);
  }
  if (!partner.livemode) await requireTestOrderRoom(env.DB, partner.id);
  const amount = parseDecimal(String(body.amount_from));
  const priced = await priceQuote(
    env,
    config,
    {
      coinFrom: body.coin_from,
      networkFrom: body.network_from,
      coinTo: body.coin_to,
      networkTo: body.network_to,
      amountFrom: amount,
      rateType: body.rate_type,
    },
    partner.markupBps,
    now,
    partner.livemode,
  );
  const { from, to } = priced.pair;
  const recipient = checkDestination(
    to.network,
    to.is_memo === 1,
    body.recipient_address,
    body.recipient_address_tag,
    "recipient_address",
  );
  const refund =
    body.refund_address === undefined
      ? null
      : checkDestination(
          from.network,
          from.is_memo === 1,
          body.refund_address,
          body.refund_address_tag,
          "refund_address",
        );
  if (body.refund_address === undefined && body.refund_address_tag !== undefined) {
    throw new DomainError("invalid_tag", "refund_address_tag needs a refund_address.");
  }
  if (body.quote_id && body.rate_type !== "fixed")
    throw new DomainError("quote_mismatch", "quote_id can only be used with rate_type fixed.");
  const quote = body.quote_id
    ? await lockFixedQuote(
        env.DB,
        body.quote_id,
        { partnerId: partner.id, pair: priced.pair, amountFrom: amount },
        now,
      )
    : null;
  // priceQuote has refused networks without a deposit scheme; the object claims the address.
  const scheme = orderDepositScheme(config, from, partner.livemode);

  const at = new Date(now).toISOString();
  const expiresAt = now + config.ORDER_EXPIRY_SECONDS * 1000;
  const draft: OrderDraft = {
    id,
    partnerId: partner.id,
    status: "waiting_deposit",
    statusReason: null,
    createdAt: at,
    updatedAt: at,
    expiresAt: new Date(expiresAt).toISOString(),
    lateWatchEndsAt: new Date(expiresAt + config.LATE_DEPOSIT_WATCH_HOURS * 3_600_000).toISOString(),
    coinFrom: from.coin,
    networkFrom: from.network,
    contractFrom: from.contract_address,
    decimalsFrom: from.decimals,
    coinTo: to.coin,
    networkTo: to.network,
    contractTo: to.contract_address,
    decimalsTo: to.decimals,
    amountFromExpected: toDecimalString(amount),
    amountToExpected: quote ? quote.amountTo : toDecimalString(priced.quote.amountTo),
    rateType: body.rate_type,
    rateQuoted: quote ? quote.rate : toDecimalString(priced.quote.rate),
    quoteId: body.quote_id ?? null,
    spreadBps: priced.input.spreadBps,
    markupBps: priced.input.markupBps,
    recipientAddress: recipient.address,
    recipientAddressTag: recipient.tag,
    recipientAddressGiven: body.recipient_address,
    refundAddress: refund?.address ?? null,
    refundAddressTag: refund?.tag ?? null,
    depositTxid: null,
    depositIndex: null,
    depositConfirmations: null,
    depositConfirmationsRequired: from.min_confirmations,
    amountFromReceived: null,
    amountToActual: null,
    payoutTxid: null,
    refundTxid: null,
    idempotencyKey: idempotencyKey ?? null,
    requestHash,
    livemode: partner.livemode,
  };
  return outcome(await env.ORDERS.getByName(id).create(draft, scheme));
}

/** The bound on open test orders: test mode must not be a way to fill storage. */
async function requireTestOrderRoom(db: D1Database, partnerId: string): Promise<void> {
  if ((await countTestOrders(db, partnerId, OPEN_TEST_STATUSES)) >= MAX_OPEN_TEST_ORDERS)
    throw new DomainError(
      "test_order_limit",
      `At most ${MAX_OPEN_TEST_ORDERS} open test orders: finish some (test helpers) before creating more.`,
    );
}

function outcome(result: CreateResult): CreateOrderOutcome {
  switch (result.kind) {
    case "created":
      return { created: true, order: result.order };
    case "replayed":
      return { created: false, order: result.order };
    case "conflict":
      throw new DomainError(
        "idempotency_conflict",
        "This Idempotency-Key was already used with a different request body.",
      );
    case "unavailable":
      throw new DomainError("pair_unavailable", `Pair unavailable: ${result.reason}.`);
  }
}

const notFound = () => new DomainError("order_not_found", "Order not found.");

/**
 * The order UUID a path segment names: a UUID is taken as is (no D1 read); a short_id, in any
 * case, goes through the D1 index — restricted to one partner's orders when `partnerId` is given.
 */
export async function resolveOrderId(
  env: Env,
  raw: string,
  partnerId: string | null,
): Promise<string | null> {
  if (UUID_RE.test(raw)) return raw.toLowerCase();
  const shortId = normalizeShortId(raw);
  if (!shortId) return null;
  const key = `${partnerId ?? "*"}:${shortId}`;
  const cached = shortIdCache.get(key);
  if (cached) return cached;
  const id = await findOrderIdByShortId(env.DB, shortId, partnerId);
  // Only hits are kept: a short_id never changes owner or order, but a miss may be an order
  // whose index row is still being written.
  if (id) {
    if (shortIdCache.size >= SHORT_ID_CACHE_MAX) shortIdCache.delete(shortIdCache.keys().next().value ?? "");
    shortIdCache.set(key, id);
  }
  return id;
}

/** short_id → order id, per isolate. The mapping is immutable, so entries never go stale. */
const shortIdCache = new Map<string, string>();
const SHORT_ID_CACHE_MAX = 50_000;

/** GET by UUID goes straight to the order's object (no D1); a short_id goes through the index. */
export async function readOrder(env: Env, partner: Partner, orderId: string): Promise<OrderView> {
  const id = await resolveOrderId(env, orderId, partner.id);
  const order = id ? await env.ORDERS.getByName(id).get(partner.id) : null;
  // A key sees only orders of its own mode: a test order is "not found" to a live key and back.
  if (!order || order.livemode !== partner.livemode) throw notFound();
  return order;
}

export interface OrderPageRequest {
  status?: string | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

type OrderSummary = Omit<OrderIndexRow, "partner_id" | "livemode"> & { livemode: boolean };

const toIso = (s: string | undefined) => (s === undefined ? undefined : new Date(s).toISOString());

/** GET /partner/orders: one page of the partner's own orders from the D1 index. */
export async function listPartnerOrders(
  env: Env,
  partner: Partner,
  req: OrderPageRequest,
): Promise<{ data: OrderSummary[]; next_cursor: string | null }> {
  const rows = await listOrders(env.DB, {
    partnerId: partner.id,
    livemode: partner.livemode,
    status: req.status,
    createdFrom: toIso(req.createdFrom),
    createdTo: toIso(req.createdTo),
    after: req.cursor ? decodeCursor(req.cursor, (id) => UUID_RE.test(id)) : undefined,
    limit: req.limit + 1,
  });
  const { page, next_cursor } = pageOf(rows, req.limit, (r) => ({ createdAt: r.created_at, id: r.id }));
  return {
    data: page.map(({ partner_id: _, livemode, ...summary }) => ({ ...summary, livemode: livemode === 1 })),
    next_cursor,
  };
}
