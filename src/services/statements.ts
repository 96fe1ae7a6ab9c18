// Monthly statements and their automatic payouts (docs/earnings.md, "Statements"): issued at month
// close by the cron (or at once by the test-mode helper), paid through the partner's
// PartnerPayouts object on the sends ledger, exactly once per statement and round.
import type { Config } from "../config";
import { DomainError } from "../domain/errors";
import type { Partner } from "../domain/partner";
import {
  DEFAULT_MINIMUM_USD,
  effectiveDestination,
  type Month,
  monthBounds,
  monthOf,
  type PayoutDestination,
  payoutAmount,
  payoutKey,
  previousMonth,
  statementId,
  statementTotals,
} from "../domain/statements";
import type { PayoutIntent } from "../objects/partner-payouts";
import { loadCatalog } from "../storage/catalog";
import { currentPrices, freshUsdPrice } from "../storage/market";
import { completedOrders } from "../storage/order-search";
import {
  applyCooledAddresses,
  dueStatements,
  getPayoutSettings,
  getStatement,
  insertStatement,
  markDispatched,
  openAdjustments,
  type PayoutSettingsRow,
  partnersWithoutStatement,
  previousStatement,
  type StatementRow,
  touchDispatched,
} from "../storage/statements";
import { clearServiceAlert, raiseServiceAlert } from "./service-alerts";

const HOUR_MS = 3_600_000;
/** Statements issued per cron run, and payouts handed over per run: bounded work each minute. */
const BATCH = 25;
/** A payout handed over this long ago and still pending is handed over again (an idempotent poke). */
const REPOKE_MS = 10 * 60_000;

/**
 * Where a statement's payout goes when it is issued at `at`. Live: the destination in effect then
 * (a change still cooling waits; one made later never redirects the statement). Test mode moves
 * nothing real, so it takes the newest one at once and the whole flow can be tried.
 */
function destinationAt(s: PayoutSettingsRow | null, livemode: boolean, at: string): PayoutDestination | null {
  if (!s) return null;
  const pending =
    s.pending_address === null || s.pending_effective_at === null || !s.pending_coin || !s.pending_network
      ? null
      : {
          coin: s.pending_coin,
          network: s.pending_network,
          address: s.pending_address,
          tag: s.pending_tag,
          effective_at: s.pending_effective_at,
        };
  const current =
    s.address === null ? null : { coin: s.coin, network: s.network, address: s.address, tag: s.tag };
  return effectiveDestination(current, livemode ? pending : pending && { ...pending, effective_at: at }, at);
}

/**
 * Issues the statement of one partner, mode and month (counting completions in [from, to)) unless
 * it exists; answers the stored one either way, so a re-run never makes a second.
 */
async function issueStatement(
  env: Env,
  partnerId: string,
  livemode: boolean,
  month: Month,
  to: string,
  dueAt: string,
  now: number,
): Promise<StatementRow> {
  const id = statementId(partnerId, livemode, month);
  const existing = await getStatement(env.DB, id);
  if (existing) return existing;
  const at = new Date(now).toISOString();
  const [orders, adjustments, previous, settings] = await Promise.all([
    completedOrders(env.DB, partnerId, livemode, monthBounds(month).from, to),
    openAdjustments(env.DB, partnerId, livemode),
    previousStatement(env.DB, partnerId, livemode, month),
    getPayoutSettings(env.DB, partnerId),
  ]);
  const minimumUsd = settings?.minimum_usd ?? DEFAULT_MINIMUM_USD;
  const totals = statementTotals({
    orders,
    adjustments,
    carryInUsd: previous?.status === "carried_over" ? previous.total_usd : "0",
    minimumUsd,
  });
  const destination = destinationAt(settings, livemode, at);
  await insertStatement(env.DB, {
    id,
    partnerId,
    livemode,
    month,
    issuedAt: at,
    dueAt,
    totals,
    minimumUsd,
    coin: destination?.coin ?? settings?.coin ?? null,
    network: destination?.network ?? settings?.network ?? null,
    address: destination?.address ?? null,
    tag: destination?.tag ?? null,
  });
  const stored = await getStatement(env.DB, id);
  if (!stored) throw new Error(`statement ${id} vanished after it was written`);
  return stored;
}

/** The operator alert on a statement that cannot be issued (docs/operators.md, "Partner payouts"). */
const NOT_ISSUED = "statement_not_issued";

/**
 * Issues the live statements of `month` for every partner that has none yet (bounded per call).
 * Each partner on its own: one whose statement cannot be issued is alerted on (a service alert
 * under the statement's id, cleared once it is issued) and retried by the next run, and the
 * partners after it are issued all the same.
 */
export async function closeLiveMonth(env: Env, config: Config, month: Month, now: number): Promise<number> {
  const { to } = monthBounds(month);
  const dueAt = new Date(
    Date.parse(to) + Math.min(config.STATEMENT_PAYOUT_DELAY_HOURS, 24) * HOUR_MS,
  ).toISOString();
  let issued = 0;
  let after = "";
  for (;;) {
    const partners = await partnersWithoutStatement(env.DB, month, true, to, BATCH, after);
    for (const p of partners) {
      const id = statementId(p, true, month);
      try {
        await issueStatement(env, p, true, month, to, dueAt, now);
        issued++;
        await clearServiceAlert(env.DB, id, NOT_ISSUED, now);
      } catch (err) {
        await raiseServiceAlert(
          env.DB,
          id,
          NOT_ISSUED,
          "statement cannot be issued: needs an operator",
          { partner: p, month, error: String(err) },
          now,
        );
      }
    }
    after = partners.at(-1) ?? after;
    if (partners.length < BATCH) return issued;
  }
}

/**
 * Hands a pending statement's payout to the partner's ledger. The first time, its destination,
 * the asset's USD price and the amount are fixed on the statement (after which no hold can stop
 * it: the intent may exist); every later time only repeats the same intent, which the ledger
 * answers without a second payment.
 */
export async function dispatchPayout(
  env: Env,
  config: Config,
  s: StatementRow,
  now: number,
): Promise<StatementRow> {
  if (s.status !== "pending") return s;
  const at = new Date(now).toISOString();
  let row = s;
  if (row.dispatched_at === null) {
    const destination =
      row.address === null || row.coin === null || row.network === null
        ? destinationAt(await getPayoutSettings(env.DB, row.partner_id), row.livemode === 1, at)
        : { coin: row.coin, network: row.network, address: row.address, tag: row.tag };
    if (!destination) return row; // waits for the partner's payout address
    const { coin, network } = destination;
    const currency = (await loadCatalog(env.DB)).find((c) => c.coin === coin && c.network === network);
    const prices = await currentPrices(env, config, now);
    // Converted at a fresh price only (PRICE_MAX_AGE_SECONDS): without one, the next run converts.
    const price = prices.has(coin) ? tryFresh(() => freshUsdPrice(prices, coin, now, config)) : null;
    if (!currency || price === null) return row;
    const amount = payoutAmount(row.total_usd, price, currency.decimals);
    await markDispatched(env.DB, row.id, { ...destination, price_usd: price, amount }, at);
    const fixed = await getStatement(env.DB, row.id);
    if (fixed?.status !== "pending" || fixed.dispatched_at !== at) return fixed ?? row;
    row = fixed;
  } else {
    await touchDispatched(env.DB, row.id, at);
  }
  const { coin, network, address, amount } = row;
  if (!coin || !network || !address || !amount)
    throw new Error(`statement ${row.id} dispatched without a payout`);
  const currency = (await loadCatalog(env.DB)).find((c) => c.coin === coin && c.network === network);
  const livemode = row.livemode === 1;
  const key = payoutKey(row.partner_id, livemode, row.month, row.round);
  const intent: PayoutIntent = {
    key,
    statementId: row.id,
    partnerId: row.partner_id,
    livemode,
    month: row.month,
    round: row.round,
    request: {
      idempotencyKey: key,
      orderId: row.id,
      kind: "payout",
      network,
      coin,
      contract: currency?.contract_address ?? null,
      to: address,
      tag: row.tag,
      amount,
    },
  };
  await payoutsObject(env, row.partner_id, livemode).pay(intent);
  return (await getStatement(env.DB, row.id)) ?? row;
}

function tryFresh(read: () => string): string | null {
  try {
    return read();
  } catch {
    return null;
  }
}

export function payoutsObject(env: Env, partnerId: string, livemode: boolean) {
  return env.PARTNER_PAYOUTS.getByName(`${partnerId}:${livemode ? "live" : "test"}`);
}

/**
 * The cron's share (every minute): cooled address changes take effect, last month's live
 * statements are issued once, and due payouts are handed over (again after REPOKE_MS while
 * pending: the ledger makes that safe).
 */
export async function runStatements(env: Env, config: Config, now: number): Promise<void> {
  const at = new Date(now).toISOString();
  await applyCooledAddresses(env.DB, at);
  await closeLiveMonth(env, config, previousMonth(monthOf(now)), now);
  const due = await dueStatements(env.DB, at, new Date(now - REPOKE_MS).toISOString(), BATCH);
  for (const s of due) {
    try {
      await dispatchPayout(env, config, s, now);
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "error",
          msg: "statement payout dispatch failed",
          statement: s.id,
          error: String(err),
        }),
      );
    }
  }
}

/**
 * The test-mode month close: the partner's test statement of the current month, counting test
 * orders completed until now, issued and paid (on the simulated gateway) at once. A second call in
 * the same month answers the same statement.
 */
export async function closeTestMonth(
  env: Env,
  config: Config,
  partner: Pick<Partner, "id" | "livemode">,
  now: number,
): Promise<StatementRow> {
  if (partner.livemode)
    throw new DomainError("test_mode_only", "The month-close helper works with test keys (pk_test_…) only.");
  const at = new Date(now).toISOString();
  const month = monthOf(now);
  const s = await issueStatement(env, partner.id, false, month, new Date(now + 1).toISOString(), at, now);
  return dispatchPayout(env, config, s, now);
}
