export {
  type ClientOptions,
  type CreateOrderRequest,
  type Currency,
  createClient,
  type Fees,
  type ListOrdersQuery,
  type Order,
  type OrderSummary,
  type OrdersPage,
  type PartnerClient,
  type Permissions,
  type RateQuery,
  type RateQuote,
} from "./client.js";
export { ApiError, type ErrorCode, type ErrorItem, type FieldError } from "./errors.js";
export type { RetryPolicy } from "./fetch.js";
export type { components, operations, paths, webhooks } from "./schema.js";
export {
  type VerifyOptions,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from "./webhooks.js";
