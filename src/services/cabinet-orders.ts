// The cabinet's order pages: the filtered list and search over the D1 index, the CSV export of
// every matching row, one order with its event log, explorer links and webhook deliveries, and
// the decisions a signed-in member takes on a failed order's money.
import { type Config, getConfig } from "../config";
import { chainModeFor } from "../domain/chain-mode";
import { csvStream } from "../domain/csv";
import { checkDestination } from "../domain/destination";
import { DomainError } from "../domain/errors";
import { type ExplorerLinks, type ExplorerTemplates, explorerLinks } from "../domain/explorer-links";
import { decodeCursor, pageOf } from "../domain/keyset-cursor";
import { type AssetIds, assetIds, type OrderView } from "../domain/order";
import { type OrderLinks, orderLinks } from "../domain/order-link";
import { ORDER_STATUSES, type OrderStatus } from "../domain/order-state";
import { normalizeShortId } from "../domain/short-id";
import { aheadAt } from "../domain/test-clock";
import type { OrderEventLogEntry } from "../objects/order/object";
import { type CurrencyRow, loadCatalog } from "../storage/catalog";
import {
  type CabinetOrderRow,
  deliveriesOfOrder,
  type OrderFilter,
  searchOrders,
} from "../storage/order-search";
import type { D1Reads } from "../storage/session";
import type { DeliveryRow } from "../storage/webhooks";
import { type Actor as AuditActor, audit } from "./cabinet-auth";
import { type ActionBody, takeOrderAction } from "./order-actions";
import { resolveOrderId, UUID_RE } from "./orders";
import { runTestHelper, type TestHelper } from "./test-helpers";

export const PAGE_SIZE = 50;
/** Rows per D1 read while the CSV streams: memory stays bounded whatever the export's size. */
const EXPORT_BATCH = 1000;

/** The list's filters as the page's query string carries them; anything unknown is ignored. */
export interface OrderQuery {
  status?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  coin_from?: string | undefined;
  coin_to?: string | undefined;
  rate?: string | undefined;
  q?: string | undefined;
  cursor?: string | undefined;
  /** GET /partner/orders' own filters (ISO 8601 instants, half-open; the reference exactly). */
  created_from?: string | undefined;
  created_to?: string | undefined;
  updated_from?: string | undefined;
  partner_order_id?: string | undefined;
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const day = (d: string | undefined) => (d && DAY_RE.test(d) && !Number.isNaN(Date.parse(d)) ? d : undefined);
const coin = (c: string | undefined) => (c && /^[A-Za-z0-9]{1,20}$/.test(c) ? c.toUpperCase() : undefined);

/** An ISO 8601 date-time with its offset (what GET /partner/orders takes), as a UTC instant. */
const ISO_INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const instant = (s: string | undefined) =>
  s && ISO_INSTANT_RE.test(s) && !Number.isNaN(Date.parse(s)) ? new Date(s).toISOString() : undefined;
/** The tighter of two bounds (ISO instants compare as text); either may be absent. */
const later = (a: string | undefined, b: string | undefined) => (a && b ? (a > b ? a : b) : (a ?? b));
const earlier = (a: string | undefined, b: string | undefined) => (a && b ? (a < b ? a : b) : (a ?? b));

/**
 * Filters from the query string: `from` / `to` are whole UTC days (`to` included), as the page's
 * form sends them; `created_from` / `created_to` / `updated_from` / `partner_order_id` are the
 * partner API's list filters, so an export can name exactly the orders an API page lists.
 */
export function orderFilter(partnerId: string, livemode: boolean, q: OrderQuery): OrderFilter {
  const text = q.q?.trim().slice(0, 200) ?? "";
  const to = day(q.to);
  const reference = q.partner_order_id?.trim();
  return {
    partnerId,
    livemode,
    status: ORDER_STATUSES.includes(q.status as OrderStatus) ? (q.status as OrderStatus) : undefined,
    createdFrom: later(day(q.from) ? `${q.from}T00:00:00.000Z` : undefined, instant(q.created_from)),
    createdTo: earlier(
      to ? new Date(Date.parse(to) + 86_400_000).toISOString() : undefined,
      instant(q.created_to),
    ),
    updatedFrom: instant(q.updated_from),
    partnerOrderId: reference && reference.length <= 64 ? reference : undefined,
    coinFrom: coin(q.coin_from),
    coinTo: coin(q.coin_to),
    rateType: q.rate === "float" || q.rate === "fixed" ? q.rate : undefined,
    search: text
      ? { id: UUID_RE.test(text) ? text.toLowerCase() : null, shortId: normalizeShortId(text), text }
      : undefined,
  };
}

export async function orderPage(
  db: D1Reads,
  filter: OrderFilter,
  cursor: string | undefined,
): Promise<{ rows: CabinetOrderRow[]; next: string | null }> {
  const after = cursor ? decodeCursor(cursor, (id) => UUID_RE.test(id)) : undefined;
  const rows = await searchOrders(db, filter, after, PAGE_SIZE + 1);
  const { page, next_cursor } = pageOf(rows, PAGE_SIZE, (r) => ({ createdAt: r.created_at, id: r.id }));
  return { rows: page, next: next_cursor };
}

export const CSV_COLUMNS = [
  "id",
  "short_id",
  "status",
  "created_at",
  "updated_at",
  "partner_order_id",
  // The partner's string pairs as one JSON object, as the API returns them.
  "metadata",
  "rate_type",
  "coin_from",
  "network_from",
  "amount_from",
  "coin_to",
  "network_to",
  "amount_to",
  "deposit_address",
  "deposit_address_tag",
  "deposit_txid",
  "payout_txid",
  "refund_txid",
  // Empty for an order created through the API (docs/widget.md).
  "widget_id",
  "completed_at",
  "markup_amount",
  "markup_usd",
  // The rest of the order's public view, as the API's list rows carry it (docs/orders.md).
  "status_reason",
  "token_from",
  "chain_id_from",
  "token_to",
  "chain_id_to",
  "amount_from_expected",
  "amount_from_received",
  "amount_to_expected",
  "amount_to_actual",
  "rate_quoted",
  "recipient_address",
  "recipient_address_tag",
  "refund_address",
  "refund_address_tag",
  // What to hand the person who swaps: no key, no sign-in (docs/widget.md).
  "tracking_url",
  "status_url",
] as const satisfies readonly (keyof (CabinetOrderRow & OrderLinks & AssetIds))[];

/**
 * Every row the filter matches, as CSV, streamed in keyset batches; `publicOrigin` is where the
 * keyless links point (orderView's).
 */
export function ordersCsv(
  db: D1Reads,
  filter: OrderFilter,
  publicOrigin: string,
): ReadableStream<Uint8Array> {
  return csvStream<CabinetOrderRow>(
    CSV_COLUMNS,
    EXPORT_BATCH,
    (last) => searchOrders(db, filter, last && { createdAt: last.created_at, id: last.id }, EXPORT_BATCH),
    (r) => {
      const row = {
        ...r,
        ...assetIds({
          networkFrom: r.network_from,
          contractFrom: r.contract_from,
          networkTo: r.network_to,
          contractTo: r.contract_to,
        }),
        ...orderLinks(publicOrigin, { id: r.id, trackToken: r.track_token }),
      };
      return CSV_COLUMNS.map((c) => row[c]);
    },
  );
}

/** The order's explorer links from the catalog's templates and the deployment's modes. */
function linksOf(config: Config, catalog: readonly CurrencyRow[], o: OrderView): ExplorerLinks {
  const side = (c: string, n: string): ExplorerTemplates | undefined => {
    const row = catalog.find((r) => r.coin === c && r.network === n);
    return row ? { tx: row.explorer_tx_url, address: row.explorer_address_url } : undefined;
  };
  return explorerLinks(o, side(o.coin_from, o.network_from), side(o.coin_to, o.network_to), {
    depositChainSimulated: chainModeFor(config.CHAIN_MODE, o.network_from) === "simulated",
    payoutsSimulated: config.PAYOUT_MODE === "simulated",
  });
}

/** A log row with its lead over real time: a test order's clock runs ahead after `expire`. */
export type TimedEvent = OrderEventLogEntry & { ahead_ms: number };

export interface OrderDetail {
  order: OrderView;
  events: TimedEvent[];
  deliveries: Omit<DeliveryRow, "payload">[];
  links: ExplorerLinks;
}

const notFound = () => new DomainError("order_not_found", "Order not found.");

async function ownOrder(env: Env, partnerId: string, ref: string) {
  const id = await resolveOrderId(env, ref, partnerId);
  const found = id ? await env.ORDERS.getByName(id).inspect() : null;
  if (!found || found.partner_id !== partnerId) throw notFound();
  return found;
}

/** One of the partner's orders (by UUID or short_id): everything the detail page shows. */
export async function orderDetail(env: Env, partnerId: string, ref: string): Promise<OrderDetail> {
  const { order, events, clock_jumps } = await ownOrder(env, partnerId, ref);
  const timed = events.map((e) => ({ ...e, ahead_ms: aheadAt(e.seq, clock_jumps) }));
  const [deliveries, catalog] = await Promise.all([
    deliveriesOfOrder(env.DB, partnerId, order.id),
    loadCatalog(env.DB),
  ]);
  return { order, events: timed, deliveries, links: linksOf(getConfig(env), catalog, order) };
}

/** What the detail page polls: enough to tell whether anything moved. */
export async function orderState(
  env: Env,
  partnerId: string,
  ref: string,
): Promise<{ status: OrderStatus; updated_at: string; events: number }> {
  const { order, events } = await ownOrder(env, partnerId, ref);
  return { status: order.status, updated_at: order.updated_at, events: events.length };
}

/**
 * An address typed into an action's form, checked by the rules the action itself applies
 * (checkDestination for the order's network): the page validates as the member types.
 */
export async function checkActionAddress(
  env: Env,
  partnerId: string,
  ref: string,
  kind: "refund" | "payout",
  address: string,
  tag: string | undefined,
): Promise<{ ok: true; address: string } | { ok: false; detail: string }> {
  const { order } = await ownOrder(env, partnerId, ref);
  const network = kind === "refund" ? order.network_from : order.network_to;
  const coinCode = kind === "refund" ? order.coin_from : order.coin_to;
  const row = (await loadCatalog(env.DB)).find((c) => c.coin === coinCode && c.network === network);
  try {
    const checked = checkDestination(
      network,
      row?.is_memo === 1,
      address,
      tag,
      kind === "refund" ? "refund_address" : "recipient_address",
    );
    return { ok: true, address: checked.address };
  } catch (err) {
    if (err instanceof DomainError) return { ok: false, detail: err.message };
    throw err;
  }
}

/**
 * A decision from the cabinet: the partner API's logic, recorded in the order's event log as the
 * member's (`decided_by: cabinet:<e-mail>`) and in the partner's audit log.
 */
export async function cabinetAction(
  env: Env,
  member: AuditActor,
  ref: string,
  body: ActionBody,
  /** The step-up that confirmed a send to a new address (src/services/step-up.ts). */
  stepUp: { passkey: string } | null,
): Promise<OrderView> {
  const order = await takeOrderAction(
    env,
    { kind: "cabinet", partnerId: member.partnerId, user: member.label },
    ref,
    body,
    undefined,
  );
  const { kind, ...inputs } = body;
  await audit(env.DB, member, `order.${kind}`, order.short_id, {
    status: order.status,
    ...inputs,
    ...(stepUp ? { step_up: stepUp.passkey } : {}),
  });
  return order;
}

/**
 * A test helper from the test order's page (docs/test-mode.md): the partner API's helper, run for
 * the member's partner and recorded in its audit log. A live order is refused by name, not hidden.
 */
export async function cabinetTestHelper(
  env: Env,
  member: AuditActor,
  ref: string,
  helper: TestHelper,
): Promise<OrderView> {
  const { order: before } = await ownOrder(env, member.partnerId, ref);
  if (before.livemode)
    throw new DomainError(
      "test_mode_only",
      `Order ${before.short_id} is a live order: test helpers change test orders only.`,
    );
  const order = await runTestHelper(env, { id: member.partnerId, livemode: false }, before.id, helper);
  const { kind, ...inputs } = helper;
  await audit(env.DB, member, `order.test.${kind}`, order.short_id, { status: order.status, ...inputs });
  return order;
}
