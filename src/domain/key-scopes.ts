/**
 * API key scopes (docs/auth-and-limits.md, "Key scopes"): what one partner key may do. The one
 * place that says which scope each keyed partner operation needs; the HTTP layer enforces it with
 * one middleware and names it in the OpenAPI document (`x-required-scope`).
 */
export const KEY_SCOPES = ["read", "orders:write", "orders:act", "webhooks:write"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<KeyScope, string> = {
  read: "rates with your pricing, orders (read and list), the webhook endpoint and delivery log, statements, the request log",
  "orders:write": "create and cancel orders (and drive test orders with the test helpers)",
  "orders:act": "decide on held funds: refund, continue, pay out to another address",
  "webhooks:write": "set the webhook endpoint, rotate its secret, resend and send test events",
};

/**
 * What a key may do when nobody chose: every key made before scopes existed (migration 0026) and
 * a key created without `scopes`. `orders:act` moves a user's held funds, so it is never implied.
 */
export const DEFAULT_SCOPES: readonly KeyScope[] = ["read", "orders:write", "webhooks:write"];

/**
 * Whether a key with these scopes can move a user's held funds (to an address it types): the
 * cabinet then issues it, new or rolled, only after a fresh passkey step-up (docs/cabinet.md).
 */
export const movesFunds = (scopes: readonly KeyScope[]): boolean => scopes.includes("orders:act");

/** The "read-only" preset of the cabinet's key form. */
export const READ_ONLY_SCOPES: readonly KeyScope[] = ["read"];

/**
 * Every keyed partner operation, by its OpenAPI operationId, and the scope it needs. A new keyed
 * operation must be added here: test/http/partner-routes/key-scopes.ts fails for one the document
 * has and this table lacks.
 */
export const OPERATION_SCOPES = {
  getRate: "read",
  listOrders: "read",
  getOrder: "read",
  orderEvents: "read",
  events: "read",
  createOrder: "orders:write",
  cancelOrder: "orders:write",
  refundOrder: "orders:act",
  continueOrder: "orders:act",
  payoutOrder: "orders:act",
  getWebhookEndpoint: "read",
  listWebhookDeliveries: "read",
  updateWebhookEndpoint: "webhooks:write",
  rotateWebhookSecret: "webhooks:write",
  resendWebhookEvent: "webhooks:write",
  sendWebhookTestEvent: "webhooks:write",
  testDeposit: "orders:write",
  testConfirm: "orders:write",
  testDropDeposit: "orders:write",
  testExpire: "orders:write",
  testPassHoldDeadline: "orders:write",
  testFail: "orders:write",
  testMonthClose: "orders:write",
  getPermissions: "read",
  listStatements: "read",
  listRequestLogs: "read",
  screenAddresses: "read",
} as const satisfies Record<string, KeyScope>;
export type PartnerOperation = keyof typeof OPERATION_SCOPES;

/**
 * A key's kind (docs/auth-and-limits.md, "App keys"). A `server` key is a secret kept on the
 * partner's servers, with the scopes it was given. An `app` key lives inside an app (a wallet's swap
 * module, a plugin), so anyone can read it out: like Stripe's publishable keys it can do only what
 * is safe in public hands (APP_KEY_OPERATIONS).
 */
export const KEY_KINDS = ["server", "app"] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/**
 * All an app key may do: quote with the partner's pricing, create orders, and read (or stream) an
 * order it created itself (src/services/orders.ts, readOrder). No list, CSV, actions, webhook, settings or
 * test helpers: whoever copies the key out of the app must not see other users' orders nor move
 * anything. Every other keyed operation answers an app key 403 `insufficient_scope`.
 */
export const APP_KEY_OPERATIONS: ReadonlySet<PartnerOperation> = new Set<PartnerOperation>([
  "getRate",
  "createOrder",
  "getOrder",
  "orderEvents",
]);

/** An app key's scopes: what its operations need, so the scope check agrees with its kind. */
export const APP_KEY_SCOPES: readonly KeyScope[] = [
  ...new Set([...APP_KEY_OPERATIONS].map((op) => OPERATION_SCOPES[op])),
];

/** Whether a key of `kind` with `scopes` may use `operation`. */
export const keyAllows = (kind: KeyKind, scopes: readonly KeyScope[], operation: PartnerOperation): boolean =>
  scopes.includes(OPERATION_SCOPES[operation]) && (kind === "server" || APP_KEY_OPERATIONS.has(operation));

const isScope = (s: string): s is KeyScope => (KEY_SCOPES as readonly string[]).includes(s);

/** Scopes in their canonical order, each once. */
export const canonicalScopes = (scopes: Iterable<KeyScope>): KeyScope[] => {
  const set = new Set(scopes);
  return KEY_SCOPES.filter((s) => set.has(s));
};

/** The stored form (space-separated, as OAuth writes scopes); unknown words are dropped. */
export function parseScopes(stored: string): KeyScope[] {
  return canonicalScopes(stored.split(/\s+/).filter(isScope));
}

export const formatScopes = (scopes: readonly KeyScope[]): string => canonicalScopes(scopes).join(" ");

/** A key's chosen scopes, or why they cannot be: none, or an unknown name. */
export function chooseScopes(
  names: readonly string[],
): { ok: true; scopes: KeyScope[] } | { ok: false; reason: string } {
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length)
    return {
      ok: false,
      reason: `unknown scope ${unknown.map((n) => `\`${n}\``).join(", ")} (known: ${KEY_SCOPES.join(", ")})`,
    };
  if (!names.length) return { ok: false, reason: "a key needs at least one scope" };
  return { ok: true, scopes: canonicalScopes(names.filter(isScope)) };
}
