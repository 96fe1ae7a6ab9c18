/**
 * What the Tail Worker (src/tail.ts) keeps in full while Workers Logs sample the rest
 * (docs/operators.md, "Service levels"): every invocation that threw or ran out of a limit,
 * every 5xx, and every refused order creation (a 4xx to POST /api/v1/partner/orders).
 */
const CREATE = "/api/v1/partner/orders";

export function keptInFull(item: TraceItem): boolean {
  if (item.outcome !== "ok" || item.exceptions.length > 0) return true;
  const event = item.event as TraceItemFetchEventInfo | null;
  const status = event?.response?.status;
  if (status === undefined || !("request" in (event ?? {}))) return false;
  if (status >= 500) return true;
  return status >= 400 && event?.request.method === "POST" && new URL(event.request.url).pathname === CREATE;
}
