export interface UnclaimedDeposit {
  network: string;
  txid: string;
  idx: number;
  coin: string;
  address: string;
  tag: string | null;
  amount: string;
  sender: string | null;
  firstSeenAt: string;
}

/** Of `tags`, those an order on `network` / `address` was given. */
export async function claimedTags(
  db: D1Database,
  network: string,
  address: string,
  tags: readonly string[],
): Promise<Set<string>> {
  const claimed = new Set<string>();
  // D1 caps bound parameters per statement (100): ask in slices.
  for (let i = 0; i < tags.length; i += 90) {
    const slice = tags.slice(i, i + 90);
    const { results } = await db
      .prepare(
        `SELECT deposit_address_tag AS tag FROM orders
          WHERE network_from = ? AND deposit_address = ? AND deposit_address_tag IN (${slice.map(() => "?").join(",")})`,
      )
      .bind(network, address, ...slice)
      .all<{ tag: string }>();
    for (const r of results) claimed.add(r.tag);
  }
  return claimed;
}

/** Records the deposit; true when it was not recorded before. */
export async function recordUnclaimedDeposit(db: D1Database, d: UnclaimedDeposit): Promise<boolean> {
  const result = await db
    .prepare(
      `INSERT OR IGNORE INTO unclaimed_deposits
         (network, txid, idx, coin, address, tag, amount, sender, first_seen_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(d.network, d.txid, d.idx, d.coin, d.address, d.tag, d.amount, d.sender, d.firstSeenAt)
    .run();
  return (result.meta.changes ?? 0) > 0;
}
