import createFetchClient from "openapi-fetch";
import { ApiError } from "./errors.js";
import { followStream, type StreamEvent, type StreamOptions } from "./events.js";
import { defaultRetryPolicy, partnerFetch, type RetryPolicy } from "./fetch.js";
import type { components, operations, paths } from "./schema.js";

export type Currency = components["schemas"]["Currency"];
export type RateQuote = components["schemas"]["RateQuote"];
export type CreateOrderRequest = components["schemas"]["CreateOrder"];
export type Order = components["schemas"]["Order"];
export type OrderSummary = components["schemas"]["OrderSummary"];
export type RateQuery = NonNullable<operations["getRate"]["parameters"]["query"]>;
export type ListOrdersQuery = Omit<NonNullable<operations["listOrders"]["parameters"]["query"]>, "cursor">;
export type Permissions = components["schemas"]["Permissions"];
export type ScreenRequest = components["schemas"]["ScreenRequest"];
export type ScreenResults = components["schemas"]["ScreenResults"];
export type ServiceStatus = components["schemas"]["ServiceStatus"];
export type Fees = components["schemas"]["Fees"];
export type OrdersPage = { data: OrderSummary[]; next_cursor: string | null };
export type TestDepositRequest = components["schemas"]["TestDeposit"];
export type TestConfirmRequest = components["schemas"]["TestConfirm"];
export type TestFailStep = components["schemas"]["TestFail"]["step"];
type Body<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;
type Ok<Op extends keyof operations> = operations[Op]["responses"] extends {
  200: { content: { "application/json": infer R } };
}
  ? R
  : operations[Op]["responses"] extends { 201: { content: { "application/json": infer R } } }
    ? R
    : never;
export type RefundOrderRequest = Body<"refundOrder">;
export type PayoutOrderRequest = Body<"payoutOrder">;
export type WebhookEndpoint = Ok<"getWebhookEndpoint">;
export type UpdateWebhookEndpointRequest = Body<"updateWebhookEndpoint">;
export type RotateWebhookSecretRequest = Body<"rotateWebhookSecret">;
export type WebhookSecret = Ok<"rotateWebhookSecret">;
export type WebhookDeliveriesQuery = NonNullable<operations["listWebhookDeliveries"]["parameters"]["query"]>;
export type WebhookDeliveriesPage = Ok<"listWebhookDeliveries">;
export type WebhookTestDelivery = Ok<"sendWebhookTestEvent">;
export type WebhookResend = Ok<"resendWebhookEvent">;
export type RequestLogQuery = NonNullable<operations["listRequestLogs"]["parameters"]["query"]>;
export type RequestLogPage = Ok<"listRequestLogs">;
export type OrderStatus = Ok<"getOrderStatus">;
export type StatementsQuery = NonNullable<operations["listStatements"]["parameters"]["query"]>;
export type StatementsPage = Ok<"listStatements">;
export type Statement = Ok<"testMonthClose">;
export type { StreamEvent, StreamOptions } from "./events.js";
/** An order event as a stream yields it: the webhook event (`data`) under its id and type. */
export type OrderEvent = StreamEvent<components["schemas"]["WebhookEvent"]>;
/** An event of the keyless stream: the order's public status after the change. */
export type OrderStatusEvent = StreamEvent<OrderStatus>;
export type EventsQuery = StreamOptions & {
  /** Only these event types. */
  type?: string[] | undefined;
};
/** A finished order sends nothing more: its stream ends with the event that finished it. */
const FINISHED = new Set(["completed", "refunded"]);

/** Every option may also be given as `undefined` (the default), e.g. `apiKey: process.env.KEY`. */
export interface ClientOptions {
  /** Where the API lives, e.g. `https://api.example.com` (no `/api/v1`). */
  baseUrl: string;
  /** Your key `<key_id>.<secret>`; optional for the public routes only. */
  apiKey?: string | undefined;
  /** Also send `X-Signature` (hex HMAC-SHA256 of each body, keyed by the key's secret). */
  signRequests?: boolean | undefined;
  /** Retries on 429 / 503 / network errors (defaults: 3 retries, Retry-After honoured up to 60 s). */
  retry?: Partial<RetryPolicy> | undefined;
  /** The fetch to send with (default: the global one). */
  fetch?: typeof fetch | undefined;
}

type Result<T> = { data?: T; error?: unknown; response: Response };

async function unwrap<T>(pending: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok || data === undefined) throw ApiError.from(response, error);
  return data;
}

/**
 * A typed client for every partner operation (methods named after the document's operationIds).
 * Errors are thrown as `ApiError`; `raw` is the underlying openapi-fetch client.
 */
const at = (orderId: string) => ({ path: { order_id: orderId } });
export type IdempotencyOption = { idempotencyKey?: string | undefined };
const idempotent = (opts: IdempotencyOption) => ({
  "idempotency-key": opts.idempotencyKey ?? crypto.randomUUID(),
});
const acting = (orderId: string, opts: IdempotencyOption) => ({ ...at(orderId), header: idempotent(opts) });

export function createClient(options: ClientOptions) {
  const { apiKey } = options;
  const secret = apiKey?.includes(".") ? apiKey.slice(apiKey.indexOf(".") + 1) : null;
  if (options.signRequests && !secret)
    throw new Error("signRequests needs an apiKey of the form <key_id>.<secret>.");
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const base = options.fetch ?? globalThis.fetch.bind(globalThis);
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const raw = createFetchClient<paths>({
    baseUrl,
    fetch: partnerFetch(base, policy, options.signRequests ? secret : null),
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
  });

  /** Opens one connection of a stream (followStream reconnects): SSE, resuming after `last`. */
  const openStream =
    (path: string, query: Record<string, string> = {}) =>
    (last: string | null, signal: AbortSignal | undefined) => {
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      if (last) headers["last-event-id"] = last;
      const search = new URLSearchParams(query).toString();
      return base(`${baseUrl}${path}${search ? `?${search}` : ""}`, {
        headers,
        ...(signal ? { signal } : {}),
      });
    };

  const listOrdersPage = (query: ListOrdersQuery & { cursor?: string } = {}): Promise<OrdersPage> =>
    unwrap(raw.GET("/api/v1/partner/orders", { params: { query } }));

  return {
    raw,
    listCurrencies: (): Promise<Currency[]> => unwrap(raw.GET("/api/v1/currencies")),
    getRate: (query: RateQuery): Promise<RateQuote> =>
      unwrap(raw.GET("/api/v1/partner/rates", { params: { query } })),
    /**
     * Whether your end user's country may swap, and which coins not. From your server, pass the
     * user's country (ISO 3166-1 alpha-2); without it, the caller's country is used.
     */
    getPermissions: (endUserCountry?: string): Promise<Permissions> =>
      unwrap(
        raw.GET("/api/v1/partner/permissions", {
          params: { header: endUserCountry ? { "x-end-user-country": endUserCountry } : {} },
        }),
      ),
    /** Screens addresses against the sanctions and operator lists before a quote; creates nothing. */
    screenAddresses: (addresses: ScreenRequest["addresses"]): Promise<ScreenResults> =>
      unwrap(raw.POST("/api/v1/partner/screen", { body: { addresses } })),
    /**
     * Creates an order. An Idempotency-Key is sent on every call (a fresh UUID unless you pass your
     * own) and reused across the client's retries, so a retried request never makes a second order.
     */
    createOrder: (body: CreateOrderRequest, opts: IdempotencyOption = {}): Promise<Order> =>
      unwrap(
        raw.POST("/api/v1/partner/orders", {
          body,
          params: { header: idempotent(opts) },
        }),
      ),
    getOrder: (orderId: string): Promise<Order> =>
      unwrap(raw.GET("/api/v1/partner/orders/{order_id}", { params: { path: { order_id: orderId } } })),
    listOrdersPage,
    /** Every order matching the filters, newest first, fetched page by page as you iterate. */
    async *listOrders(query: ListOrdersQuery = {}): AsyncGenerator<OrderSummary, void, undefined> {
      let cursor: string | undefined;
      do {
        const page = await listOrdersPage(cursor ? { ...query, cursor } : query);
        yield* page.data;
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
    },
    /**
     * Ends an order nobody has paid: it expires at once with `status_reason: "cancelled"`. Safe to
     * repeat (a cancelled order is answered again); any other status is a 409 `action_not_available`.
     */
    cancelOrder: (orderId: string): Promise<Order> =>
      unwrap(
        raw.POST("/api/v1/partner/orders/{order_id}/cancel", { params: { path: { order_id: orderId } } }),
      ),
    /**
     * The order actions (docs/order-actions.md): each answers the order after the action. Like
     * createOrder they send an Idempotency-Key (yours or a fresh UUID), so a retry never acts twice.
     */
    refundOrder: (
      orderId: string,
      body: RefundOrderRequest = {},
      opts: IdempotencyOption = {},
    ): Promise<Order> =>
      unwrap(raw.POST("/api/v1/partner/orders/{order_id}/refund", { params: acting(orderId, opts), body })),
    continueOrder: (orderId: string, opts: IdempotencyOption = {}): Promise<Order> =>
      unwrap(
        raw.POST("/api/v1/partner/orders/{order_id}/continue", { params: acting(orderId, opts), body: {} }),
      ),
    payoutOrder: (orderId: string, body: PayoutOrderRequest, opts: IdempotencyOption = {}): Promise<Order> =>
      unwrap(raw.POST("/api/v1/partner/orders/{order_id}/payout", { params: acting(orderId, opts), body })),
    /** Your webhook endpoint (docs/webhooks.md): where events go, whether they are sent. */
    getWebhookEndpoint: (): Promise<WebhookEndpoint> => unwrap(raw.GET("/api/v1/partner/webhook")),
    updateWebhookEndpoint: (body: UpdateWebhookEndpointRequest): Promise<WebhookEndpoint> =>
      unwrap(raw.PUT("/api/v1/partner/webhook", { body })),
    /** A new signing secret, shown once in the answer; `overlap_seconds` keeps the old one signing too. */
    rotateWebhookSecret: (body: Partial<RotateWebhookSecretRequest> = {}): Promise<WebhookSecret> =>
      unwrap(raw.POST("/api/v1/partner/webhook/secret", { body: { overlap_seconds: 0, ...body } })),
    listWebhookDeliveries: (query: WebhookDeliveriesQuery = {}): Promise<WebhookDeliveriesPage> =>
      unwrap(raw.GET("/api/v1/partner/webhook/deliveries", { params: { query } })),
    resendWebhookEvent: (eventId: string): Promise<WebhookResend> =>
      unwrap(
        raw.POST("/api/v1/partner/webhook/deliveries/{event_id}/resend", {
          params: { path: { event_id: eventId } },
        }),
      ),
    sendWebhookTestEvent: (): Promise<WebhookTestDelivery> =>
      unwrap(raw.POST("/api/v1/partner/webhook/test")),
    /** Your API requests in the key's mode, newest first, with filters (docs/cabinet.md, "Logs"). */
    listRequestLogs: (query: RequestLogQuery = {}): Promise<RequestLogPage> =>
      unwrap(raw.GET("/api/v1/partner/logs", { params: { query } })),
    /**
     * An order's public status without a key (what the tracking page and a wallet's "view
     * transaction" screen read; addresses masked, docs/widget.md). `ref` is what opens the order:
     * the segment of its `status_url` (`<uuid>.<token>`); the UUID alone opens only an order
     * created before tokens. Or fetch `status_url` itself.
     */
    /**
     * Live events (docs/events.md) as async iterators that reconnect and resume by themselves:
     * `for await (const e of client.orders.events(id)) …`. An order's stream replays its whole log
     * first (or what follows `lastEventId`) and ends after the event that finishes the order.
     */
    orders: {
      events: (orderId: string, opts: StreamOptions = {}): AsyncGenerator<OrderEvent, void, undefined> =>
        followStream(
          openStream(`/api/v1/partner/orders/${encodeURIComponent(orderId)}/events`),
          opts,
          (e: OrderEvent["data"]) => FINISHED.has(e.data.order.status),
        ),
      /** The keyless stream of an order's public status (`ref`: the `<uuid>.<token>` of its status_url). */
      statusEvents: (
        ref: string,
        opts: StreamOptions = {},
      ): AsyncGenerator<OrderStatusEvent, void, undefined> =>
        followStream(openStream(`/api/v1/orders/${encodeURIComponent(ref)}/events`), opts, (s: OrderStatus) =>
          FINISHED.has(s.status),
        ),
    },
    /** All your orders' events in the key's mode, live, from `lastEventId` on (kept 7 days); never ends by itself. */
    events: (query: EventsQuery = {}): AsyncGenerator<OrderEvent, void, undefined> =>
      followStream(
        openStream("/api/v1/partner/events", query.type ? { type: query.type.join(",") } : {}),
        query,
      ),
    getOrderStatus: (ref: string): Promise<OrderStatus> =>
      unwrap(raw.GET("/api/v1/orders/{order_id}/status", { params: at(ref) })),
    /** Your monthly statements in the key's mode, newest first, with lines and payout (docs/earnings.md). */
    listStatements: (query: StatementsQuery = {}): Promise<StatementsPage> =>
      unwrap(raw.GET("/api/v1/partner/statements", { params: { query } })),
    /**
     * Whether deposits and payouts work now, per network, with the open incidents (no key needed;
     * docs/integrate.md, "Service status").
     */
    getServiceStatus: (): Promise<ServiceStatus> => unwrap(raw.GET("/api/v1/service-status")),
    getIcon: (file: string): Promise<string> =>
      unwrap(raw.GET("/api/v1/icons/{file}", { params: { path: { file } }, parseAs: "text" })),
    /**
     * Test helpers (a test key only; docs/test-mode.md): each changes one of your test orders and
     * returns it after the change. Not retried: a repeated deposit would be a second deposit.
     */
    test: {
      deposit: (orderId: string, body: TestDepositRequest = {}): Promise<Order> =>
        unwrap(raw.POST("/api/v1/partner/test/orders/{order_id}/deposit", { params: at(orderId), body })),
      confirm: (orderId: string, body: TestConfirmRequest = {}): Promise<Order> =>
        unwrap(raw.POST("/api/v1/partner/test/orders/{order_id}/confirm", { params: at(orderId), body })),
      dropDeposit: (orderId: string): Promise<Order> =>
        unwrap(
          raw.POST("/api/v1/partner/test/orders/{order_id}/drop-deposit", { params: at(orderId), body: {} }),
        ),
      expire: (orderId: string): Promise<Order> =>
        unwrap(raw.POST("/api/v1/partner/test/orders/{order_id}/expire", { params: at(orderId), body: {} })),
      /** Passes the order's hold deadline: the hold ends as its `at_deadline` says. */
      passHoldDeadline: (orderId: string): Promise<Order> =>
        unwrap(
          raw.POST("/api/v1/partner/test/orders/{order_id}/pass-hold-deadline", {
            params: at(orderId),
            body: {},
          }),
        ),
      fail: (orderId: string, step: TestFailStep): Promise<Order> =>
        unwrap(
          raw.POST("/api/v1/partner/test/orders/{order_id}/fail", { params: at(orderId), body: { step } }),
        ),
      /** Closes the current month for test mode now and returns its statement (paid by simulation). */
      monthClose: (): Promise<Statement> => unwrap(raw.POST("/api/v1/partner/test/month-close")),
    },
  };
}

export type PartnerClient = ReturnType<typeof createClient>;
