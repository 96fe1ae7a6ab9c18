// Table ledger_webhooks (migration 0051): where each Ledger partner's status changes are pushed.
export interface LedgerWebhookRow {
  partner_id: string;
  url: string;
  api_key: string;
  provider_id: string;
  updated_at: string;
}

export function getLedgerWebhook(db: D1Database, partnerId: string): Promise<LedgerWebhookRow | null> {
  return db
    .prepare(
      "SELECT partner_id, url, api_key, provider_id, updated_at FROM ledger_webhooks WHERE partner_id = ?",
    )
    .bind(partnerId)
    .first<LedgerWebhookRow>();
}

export function putLedgerWebhookStatement(db: D1Database, row: LedgerWebhookRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO ledger_webhooks (partner_id, url, api_key, provider_id, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (partner_id) DO UPDATE SET url = excluded.url, api_key = excluded.api_key,
         provider_id = excluded.provider_id, updated_at = excluded.updated_at`,
    )
    .bind(row.partner_id, row.url, row.api_key, row.provider_id, row.updated_at);
}
