import { listAlertRows } from "../storage/alerts";

export interface AlertView {
  order_id: string;
  kind: string;
  ledger_key: string | null;
  message: string;
  data: Record<string, unknown>;
  state: "open" | "cleared";
  opened_at: string;
  last_at: string;
  reminders: number;
  cleared_at: string | null;
}

/** GET /admin/v1/alerts: the orders' alerts from D1, open ones first, newest first within each. */
export async function listAlerts(
  env: Env,
  req: { state: "open" | "all"; limit: number },
): Promise<AlertView[]> {
  const rows = await listAlertRows(env.DB, { openOnly: req.state === "open", limit: req.limit });
  return rows.map((r) => ({
    order_id: r.order_id,
    kind: r.kind,
    ledger_key: r.ledger_key === "" ? null : r.ledger_key,
    message: r.message,
    data: JSON.parse(r.data) as Record<string, unknown>,
    state: r.cleared_at === null ? "open" : "cleared",
    opened_at: r.opened_at,
    last_at: r.last_at,
    reminders: r.reminders,
    cleared_at: r.cleared_at,
  }));
}
