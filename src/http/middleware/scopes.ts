// Key scopes on the partner API (docs/auth-and-limits.md, "Key scopes"). Every keyed operation is
// declared through keyedOperation: its security requirement names the scope, `x-required-scope`
// carries it for tools, and its middleware (partnerAuth) authenticates the key and then refuses a key without it.
import { APP_KEY_OPERATIONS, OPERATION_SCOPES, type PartnerOperation } from "../../domain/key-scopes";
import { partnerAuth } from "./auth";

/**
 * The OpenAPI fields of a keyed partner operation: its id, its security (the scope as the
 * requirement's role, OpenAPI 3.1), `x-required-scope`, `x-app-key` (whether an app key may use it,
 * docs/auth-and-limits.md "App keys"), and the middleware that enforces them.
 * `optional`: the key may be left off (public pricing); when one is sent, its scope still counts.
 */
export function keyedOperation<const Op extends PartnerOperation>(
  operationId: Op,
  auth: "required" | "optional" = "required",
) {
  const scope = OPERATION_SCOPES[operationId];
  const keyed = [{ PartnerBearer: [scope] }, { PartnerApiKey: [scope] }];
  return {
    operationId,
    security: auth === "optional" ? [{}, ...keyed] : keyed,
    "x-required-scope": scope,
    "x-app-key": APP_KEY_OPERATIONS.has(operationId),
    middleware: [partnerAuth(auth, operationId)],
  };
}
