// Every type the client's methods take or give is exported here (test/docs/sdk-exports.test.ts).

export type * from "./client.js";
export { createClient } from "./client.js";
export { ApiError, type ErrorCode, type ErrorItem, type FieldError } from "./errors.js";
export { parseSse } from "./events.js";
export type { RetryPolicy } from "./fetch.js";
export type { components, operations, paths, webhooks } from "./schema.js";
export {
  type VerifyOptions,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from "./webhooks.js";
