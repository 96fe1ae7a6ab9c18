import type { Context } from "hono";
import { checkWebhookUrl } from "../domain/webhook-url";
import { deliveryOptions } from "../services/webhook-delivery";
import type { AppEnv } from "./app-env";
import { badRequest } from "./errors";

/** A webhook URL from a request, normalised, or a 400 naming the field and the rule it breaks. */
export function acceptWebhookUrl(c: Context<AppEnv>, raw: string | null, field: string): string | null {
  if (raw === null) return null;
  const checked = checkWebhookUrl(raw, deliveryOptions(c.get("config")).rules);
  if (!checked.ok) throw badRequest(`${field} ${checked.reason}.`, [{ field, message: checked.reason }]);
  return checked.url;
}
