/**
 * The address-wide watch of the shared memo addresses (XRP, XLM, TON) read by a real chain reader.
 * Orders only ever see transfers carrying their own tag; a transfer whose tag / memo / comment
 * matches no order (or that carries none) belongs to nobody. Each one is recorded once in
 * `unclaimed_deposits` and logged for the operator, with the sender to refund when the chain names
 * one. Only transfers in a block are recorded (an unconfirmed one can still vanish). Runs from the
 * cron (each run reads each memo address's listing window once); a failing provider is logged and
 * retried on the next run.
 */
import { chainReaderFor } from "../adapters/registry";
import type { Config } from "../config";
import { chainModeFor } from "../domain/chain-mode";
import { loadCatalog } from "../storage/catalog";
import { claimedTags, recordUnclaimedDeposit } from "../storage/unclaimed-deposits";

/** Records and logs the new unclaimed deposits; returns how many were new. */
export async function watchMemoAddresses(env: Env, config: Config, now: number): Promise<number> {
  const rows = (await loadCatalog(env.DB)).filter(
    (r) => r.is_memo === 1 && r.is_active === 1 && r.contract_address === null,
  );
  let fresh = 0;
  for (const row of rows) {
    const address = config.deposit.addresses[row.network];
    const mode = chainModeFor(config.CHAIN_MODE, row.network);
    if (!address || mode === undefined || mode === "simulated") continue;
    try {
      const reader = chainReaderFor(env, config, row.network);
      if (!reader.addressTransfers) continue;
      const asset = { coin: row.coin, network: row.network, contract: null, decimals: row.decimals };
      const transfers = await reader.addressTransfers(asset, address);
      const tags = [...new Set(transfers.flatMap((t) => (t.tag === null ? [] : [t.tag])))];
      const claimed = await claimedTags(env.DB, row.network, address, tags);
      for (const t of transfers) {
        // Only from a block: an unconfirmed transfer can still vanish.
        if (t.blockHeight === null || (t.tag !== null && claimed.has(t.tag))) continue;
        const deposit = {
          network: row.network,
          txid: t.txid,
          idx: t.index,
          coin: row.coin,
          address,
          tag: t.tag,
          amount: t.amount,
          sender: t.from ?? null,
          firstSeenAt: new Date(now).toISOString(),
        };
        if (!(await recordUnclaimedDeposit(env.DB, deposit))) continue;
        fresh++;
        console.warn(
          JSON.stringify({ level: "warn", msg: "deposit matches no order's memo: refund it", ...deposit }),
        );
      }
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "error",
          msg: "memo address watch failed",
          network: row.network,
          error: String(err),
        }),
      );
    }
  }
  return fresh;
}
