import { type Config, getConfig } from "../config";
import { sha256Hex } from "../domain/credentials";
import { noDepositRefusal } from "../domain/deposit";
import { checkDestination } from "../domain/destination";
import { DomainError, refused } from "../domain/errors";
import { feeSplit, storedFees } from "../domain/fees";
import { decodeCursor, pageOf } from "../domain/keyset-cursor";
import { DEFAULT_REGION } from "../domain/liquidity";
import { parseDecimal, toDecimalString } from "../domain/money";
import { idempotentOrderId, type OrderDraft, type OrderView, type RateType } from "../domain/order";
import { type CreationKey, idempotentShortId, orderIdOf, parseOrderRef } from "../domain/order-id";
import { type LISTED_VIEW_COLUMNS, listedView } from "../domain/order-index";
import { type OrderLinks, orderLinks, parseTrackRef } from "../domain/order-link";
import type { Partner } from "../domain/partner";
import { newShortId } from "../domain/short-id";
import { MAX_OPEN_TEST_ORDERS, OPEN_TEST_STATUSES } from "../domain/test-mode";
import type { CreateResult } from "../objects/order/object";
import { countTestOrders, findOrderIdByShortId, type ListedOrderRow, listOrders } from "../storage/orders";
import type { D1Reads } from "../storage/session";
import { lockFixedQuote } from "./fixed-quotes";
import { withReservation } from "./liquidity";
import { feeTermsOf, orderDepositScheme, priceQuote, quoteFloor } from "./quoting";
import { checkPayoutRecipient } from "./recipient-check";
import { refuseListed } from "./screening";

export interface CreateOrderBody {
  coin_from?: string | undefined;
  network_from?: string | undefined;
  coin_to?: string | undefined;
  network_to?: string | undefined;
  token_from?: string | null | undefined;
  asset_from?: string | undefined;
  asset_to?: string | undefined;
  token_to?: string | null | undefined;
  chain_id_from?: number | undefined;
  chain_id_to?: number | undefined;
  amount_from: number | string;
  rate_type: RateType;
  max_slippage_bps?: number | undefined;
  recipient_address: string;
  recipient_address_tag?: string | undefined;
  refund_address?: string | undefined;
  refund_address_tag?: string | undefined;
  quote_id?: string | undefined;
  partner_order_id?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

/** `amountToExpected`: the order's exact decimal (CreateResult). */
export type CreateOrderOutcome = { created: boolean; order: OrderView; amountToExpected: string };

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Where a creation comes from: the caller's region, the widget it came through, the end user's country. */
export interface OrderOrigin {
  region?: string;
  /** The widget or referral link the order comes through (docs/widget.md). */
  widgetId?: string | null;
  /** The end user's country, for region restrictions (docs/operators.md, "Region restrictions"). */
  country?: string | null;
  /** The API key that creates the order: an app key reads only its own (docs/auth-and-limits.md). */
  keyId?: string;
  /** A swap of Ledger's Partner Swap Service (docs/ledger.md). */
  ledgerSwap?: boolean;
  /** The bench's "screening off" reference (scripts/bench.mjs), honoured only with BENCH_ROUTES. */
  unscreened?: boolean;
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
  origin: OrderOrigin = {},
): Promise<CreateOrderOutcome> {
  const {
    region = DEFAULT_REGION,
    widgetId = null,
    country = null,
    keyId,
    ledgerSwap,
    unscreened = false,
  } = origin;
  const requestHash = await sha256Hex(canonicalJson(body));
  const creation: CreationKey = {
    partnerId: partner.id,
    idempotencyKey: idempotencyKey ?? null,
    requestHash,
  };
  // The same Idempotency-Key under a test and a live key names two different orders.
  const idKey = idempotencyKey && !partner.livemode ? `test\n${idempotencyKey}` : idempotencyKey;
  // A partner's own reference names the order's object itself, so two orders cannot share it
  // (docs/orders.md, "Your own reference"); the Idempotency-Key then only tells a retry apart.
  const reference = body.partner_order_id;
  const refKey = reference === undefined ? undefined : referenceKey(reference, partner.livemode);
  const firstAttempt = refKey
    ? await findReferencedOrder(env, creation, refKey, partner, reference as string)
    : idKey
      ? await findIdempotentOrder(env, creation, idKey)
      : 0;
  if (typeof firstAttempt !== "number") return outcome(firstAttempt);
  if (!partner.livemode) await requireTestOrderRoom(env.DB, partner.id);
  const amount = parseDecimal(String(body.amount_from));
  const priced = await priceQuote(
    env,
    config,
    {
      from: {
        coin: body.coin_from,
        network: body.network_from,
        chainId: body.chain_id_from,
        token: body.token_from,
        asset: body.asset_from,
      },
      to: {
        coin: body.coin_to,
        network: body.network_to,
        chainId: body.chain_id_to,
        token: body.token_to,
        asset: body.asset_to,
      },
      amountFrom: amount,
      rateType: body.rate_type,
    },
    partner.markupBps,
    now,
    partner.livemode,
    country,
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
  const amountTo = quote ? quote.amountTo : toDecimalString(priced.quote.amountTo);
  // Test orders pay on their SimChain, where every address is good.
  const payoutOperation = partner.livemode
    ? await checkPayoutRecipient(
        config,
        {
          coin: to.coin,
          network: to.network,
          contract: to.contract_address,
          address: recipient.address,
          amountTo: parseDecimal(amountTo),
        },
        now,
      )
    : null;
  if (!unscreened)
    await refuseListed(
      env,
      partner.livemode,
      [
        {
          field: "recipient_address",
          network: to.network,
          address: recipient.address,
          asset: { coin: to.coin, contract: to.contract_address },
        },
        ...(refund === null
          ? []
          : [
              {
                field: "refund_address" as const,
                network: from.network,
                address: refund.address,
                asset: { coin: from.coin, contract: from.contract_address },
              },
            ]),
      ],
      now,
    );
  // priceQuote has refused networks without a deposit scheme; the object claims the address.
  const scheme = orderDepositScheme(config, from, partner.livemode);

  const at = new Date(now).toISOString();
  const expiresAt = now + config.ORDER_EXPIRY_SECONDS * 1000;
  const draft: Omit<OrderDraft, "id"> = {
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
    amountToExpected: amountTo,
    fees: storedFees(feeSplit(parseDecimal(amountTo), feeTermsOf(priced.input))),
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
    ...(widgetId ? { widgetId } : {}),
    ...(keyId ? { createdByKey: keyId } : {}),
    ...(ledgerSwap ? { ledgerSwap: true as const } : {}),
    ...(reference === undefined ? {} : { partnerOrderId: reference }),
    ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
    ...(payoutOperation === null ? {} : { payoutOperation }),
    eta: priced.eta,
    amountToMin: toDecimalString(quoteFloor(priced, parseDecimal(amountTo), body.max_slippage_bps)),
  };
  const idSource = refKey ?? idKey;
  for (let attempt = firstAttempt; attempt < firstAttempt + ID_ATTEMPTS; attempt++) {
    const id = orderIdOf(idSource ? idempotentShortId(partner.id, idSource, attempt) : newShortId());
    const result = await withReservation(env, config, { ...draft, id }, region, async (d) =>
      env.ORDERS.getByName(id).create(d, scheme),
    );
    // Taken by a concurrent creation with the same reference: that one won.
    if (result.kind === "taken" && reference !== undefined)
      await refuseDuplicate(env, id, partner, reference);
    if (result.kind !== "taken") return outcome(result);
  }
  throw new Error(`no free order id after ${ID_ATTEMPTS} attempts`);
}

/** A short id is drawn twice about once in 10^9 creations at a million orders; four in a row is a bug. */
const ID_ATTEMPTS = 4;

/**
 * The earlier answer to an Idempotency-Key, asked of the objects its order can live in (no index):
 * the key's ids in attempt order, and the id the same key gave an order before the current id
 * layout (docs/orders.md, "Idempotency"). When no order exists yet: the attempt to create it at.
 */
async function findIdempotentOrder(
  env: Env,
  creation: CreationKey,
  key: string,
): Promise<CreateResult | number> {
  const [legacy, first] = await Promise.all([
    env.ORDERS.getByName(await idempotentOrderId(creation.partnerId, key)).replay(creation),
    env.ORDERS.getByName(orderIdOf(idempotentShortId(creation.partnerId, key, 0))).replay(creation),
  ]);
  if (legacy && legacy.kind !== "taken") return legacy;
  let answer = first;
  for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
    if (attempt > 0) {
      const id = orderIdOf(idempotentShortId(creation.partnerId, key, attempt));
      answer = await env.ORDERS.getByName(id).replay(creation);
    }
    if (answer === null) return attempt;
    if (answer.kind !== "taken") return answer;
  }
  throw new Error(`no free order id after ${ID_ATTEMPTS} attempts`);
}

/**
 * The key a partner's reference derives its order ids from, in its own namespace: an
 * Idempotency-Key is printable ASCII without a line break, so neither can name the other's ids.
 */
const referenceKey = (reference: string, livemode: boolean) =>
  `${livemode ? "" : "test\n"}partner_order_id\n${reference}`;

/** 409 when the order on `id` is this partner's, in this mode, with this reference. */
async function refuseDuplicate(env: Env, id: string, partner: Partner, reference: string): Promise<void> {
  const held = await env.ORDERS.getByName(id).get(partner.id);
  if (held && held.livemode === partner.livemode && held.partner_order_id === reference)
    throw new DomainError(
      "duplicate_partner_order_id",
      `Order ${held.id} already has partner_order_id ${JSON.stringify(reference)}; send its Idempotency-Key and body again to get it back.`,
    );
}

/**
 * The earlier order with this reference, asked of the objects it can live in: the same
 * Idempotency-Key and body replay it, anything else is a duplicate; when none exists, the attempt
 * to create it at (an id taken by another order moves on, as for Idempotency-Keys).
 */
async function findReferencedOrder(
  env: Env,
  creation: CreationKey,
  key: string,
  partner: Partner,
  reference: string,
): Promise<CreateResult | number> {
  for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
    const id = orderIdOf(idempotentShortId(partner.id, key, attempt));
    const answer = await env.ORDERS.getByName(id).replay(creation);
    if (answer === null) return attempt;
    if (answer.kind !== "taken") return answer;
    await refuseDuplicate(env, id, partner, reference);
  }
  throw new Error(`no free order id after ${ID_ATTEMPTS} attempts`);
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
      return { created: true, order: result.order, amountToExpected: result.amountToExpected };
    case "replayed":
      return { created: false, order: result.order, amountToExpected: result.amountToExpected };
    case "conflict":
      throw new DomainError(
        "idempotency_conflict",
        "This Idempotency-Key was already used with a different request body.",
      );
    case "unavailable":
      throw refused([noDepositRefusal(result.reason)]);
    case "taken":
      throw new Error("an order id taken by another order reached the response");
  }
}

const notFound = () => new DomainError("order_not_found", "Order not found.");

/**
 * The order UUID a path segment names, for admin and order actions: a UUID as is; a short_id (any
 * case) names its order's object directly, and only a short_id of an order created before the
 * current id layout (docs/orders.md, "Order ids") is looked up in the D1 index — restricted to
 * one partner's orders when `partnerId` is given.
 */
export async function resolveOrderId(
  env: Env,
  raw: string,
  partnerId: string | null,
): Promise<string | null> {
  const ref = orderRef(raw);
  if (!ref) return null;
  if (ref.kind === "id") return ref.id;
  const stub = env.ORDERS.getByName(ref.id);
  const held = partnerId === null ? await stub.inspect() : await stub.get(partnerId);
  return held ? ref.id : legacyOrderId(env, ref.shortId, partnerId);
}

/** The id of an order created before the current layout, by its short_id, from the D1 index. */
async function legacyOrderId(env: Env, shortId: string, partnerId: string | null): Promise<string | null> {
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

/**
 * What a path segment names, remembered per isolate: the UUID ↔ short_id derivation hashes
 * (SHA-256 check bits) and works in BigInts, 4–5 % of an order read's CPU in the profile, while a
 * partner polls the same few orders. A pure function of the string, so an entry never goes stale;
 * only ids that parse are kept (≤ 36 characters), so junk cannot fill the map.
 */
export function orderRef(raw: string): ReturnType<typeof parseOrderRef> {
  const known = orderRefs.get(raw);
  if (known) return known;
  const ref = parseOrderRef(raw);
  if (ref) {
    if (orderRefs.size >= ORDER_REF_CACHE_MAX) orderRefs.clear();
    orderRefs.set(raw, ref);
  }
  return ref;
}

const orderRefs = new Map<string, NonNullable<ReturnType<typeof parseOrderRef>>>();
const ORDER_REF_CACHE_MAX = 10_000;

/** short_id → order id of earlier orders, per isolate. The mapping is immutable, so entries never go stale. */
const shortIdCache = new Map<string, string>();
const SHORT_ID_CACHE_MAX = 50_000;

/**
 * GET /partner/orders/{id}: the order's JSON body. The UUID or the short_id names the order's
 * object, which checks the owner and answers the view serialised; no D1 read, except for a
 * short_id the object does not hold (an order from before the current id layout, or none at all).
 * `createdBy`: only an order that key created (an app key's read); any other is "not found", like
 * another partner's.
 */
export async function readOrder(
  env: Env,
  partner: Partner,
  orderId: string,
  createdBy?: string,
): Promise<string> {
  const order = await partnerOrder(env, partner, orderId);
  // A key sees only orders of its own mode: a test order is "not found" to a live key and back.
  if (!order || order.livemode !== partner.livemode) throw notFound();
  if (createdBy !== undefined && order.createdByKey !== createdBy) throw notFound();
  return order.json;
}

/**
 * The partner's order named by its UUID, its short_id, or its public capability (`<uuid>.<token>`,
 * the last segment of its `tracking_url`: what an app holds after it opened the tracking page).
 * The capability opens only the order its token belongs to, and only for its own partner.
 */
async function partnerOrder(env: Env, partner: Partner, raw: string) {
  const ref = orderRef(raw);
  if (!ref) {
    const link = parseTrackRef(raw);
    return link?.token ? await env.ORDERS.getByName(link.id).partnerBody(partner.id, link.token) : null;
  }
  const direct = await env.ORDERS.getByName(ref.id).partnerBody(partner.id);
  const legacy = direct || ref.kind !== "short_id" ? null : await legacyOrderId(env, ref.shortId, partner.id);
  return direct ?? (legacy ? await env.ORDERS.getByName(legacy).partnerBody(partner.id) : null);
}

export interface OrderPageRequest {
  status?: string | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  updatedFrom?: string | undefined;
  partnerOrderId?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

type OrderSummary = Omit<
  ListedOrderRow,
  "partner_id" | "livemode" | "needs_action" | "track_token" | (typeof LISTED_VIEW_COLUMNS)[number]
> &
  ReturnType<typeof listedView> &
  OrderLinks & { livemode: boolean };

/** An index row as the order list shows it; `publicOrigin` as orderView's. */
export function orderSummary(row: ListedOrderRow, publicOrigin: string): OrderSummary {
  const {
    partner_id: _,
    livemode,
    needs_action: _n,
    track_token,
    contract_from: _cf,
    contract_to: _ct,
    ...rest
  } = row;
  return {
    ...rest,
    ...listedView(row),
    livemode: livemode === 1,
    ...orderLinks(publicOrigin, { id: rest.id, trackToken: track_token }),
  };
}

const toIso = (s: string | undefined) => (s === undefined ? undefined : new Date(s).toISOString());

/**
 * Makes sure a new order's index row is in D1 before a list reads it (a list sent its create's
 * bookmark); nothing for another partner's order or an unknown id.
 */
export function indexCreated(env: Env, partner: Partner, orderId: string): Promise<void> {
  return env.ORDERS.getByName(orderId).indexed(partner.id);
}

/** GET /partner/orders: one page of the partner's own orders from the D1 index. */
export async function listPartnerOrders(
  env: Env,
  db: D1Reads,
  partner: Partner,
  req: OrderPageRequest,
): Promise<{ data: OrderSummary[]; next_cursor: string | null }> {
  const rows = await listOrders(db, {
    partnerId: partner.id,
    livemode: partner.livemode,
    status: req.status,
    createdFrom: toIso(req.createdFrom),
    createdTo: toIso(req.createdTo),
    updatedFrom: toIso(req.updatedFrom),
    partnerOrderId: req.partnerOrderId,
    after: req.cursor ? decodeCursor(req.cursor, (id) => UUID_RE.test(id)) : undefined,
    limit: req.limit + 1,
  });
  const { page, next_cursor } = pageOf(rows, req.limit, (r) => ({ createdAt: r.created_at, id: r.id }));
  const origin = getConfig(env).CABINET_ORIGIN;
  return {
    data: page.map((r) => orderSummary(r, origin)),
    next_cursor,
  };
}
