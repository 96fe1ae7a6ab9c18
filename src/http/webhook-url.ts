import type { Config } from "../config";
import { checkWebhookUrl } from "../domain/webhook-url";
import { deliveryOptions } from "../services/webhook-delivery";
import { badRequest } from "./errors";

/** A webhook URL from a request, normalised, or a 400 naming the field and the rule it breaks. */
export function acceptWebhookUrl(config: Config, raw: string | null, field: string): string | null {
  if (raw === null) return null;
  const checked = checkWebhookUrl(raw, deliveryOptions(config).rules);
  if (!checked.ok) throw badRequest(`${field} ${checked.reason}.`, [{ field, message: checked.reason }]);
  return checked.url;
}
