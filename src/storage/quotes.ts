export interface QuoteRow {
  id: string;
  partner_id: string | null;
  coin_from: string;
  network_from: string;
  coin_to: string;
  network_to: string;
  amount_from: string;
  amount_to: string;
  rate: string;
  rate_type: "fixed";
  created_at: string;
  expires_at: string;
}

const COLUMNS =
  "id, partner_id, coin_from, network_from, coin_to, network_to, amount_from, amount_to, rate, rate_type, created_at, expires_at";

export async function insertQuote(db: D1Database, q: QuoteRow): Promise<void> {
  await db
    .prepare(`INSERT INTO quotes (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .bind(
      q.id,
      q.partner_id,
      q.coin_from,
      q.network_from,
      q.coin_to,
      q.network_to,
      q.amount_from,
      q.amount_to,
      q.rate,
      q.rate_type,
      q.created_at,
      q.expires_at,
    )
    .run();
}

export async function getQuote(db: D1Database, id: string): Promise<QuoteRow | null> {
  return db.prepare(`SELECT ${COLUMNS} FROM quotes WHERE id = ?`).bind(id).first<QuoteRow>();
}
