import type { Config } from "../config";
import { DomainError } from "../domain/errors";
import {
  insufficientLiquidity,
  ledgerName,
  maxAmountFrom,
  reservationFor,
  shardName,
} from "../domain/liquidity";
import { Dec, toDecimalString } from "../domain/money";
import type { OrderDraft } from "../domain/order";
import type { LedgerView } from "../objects/liquidity-ledger";
import { keyOf, shard } from "../objects/liquidity-shard";
import type { CreateResult } from "../objects/order/object";
import { loadCatalog } from "../storage/catalog";
import { getBalance, listBalances, putBalanceStatement } from "../storage/liquidity";
import { auditStatement } from "../storage/operator-audit";
import type { Actor } from "./catalog-admin";
import { forgetQuotedFree } from "./liquidity-cap";
import { forgetUnlimited, knownUnlimited, rememberUnlimited } from "./unlimited-coins";

/**
 * Reserves the order's payout in its region's shard (idempotent per order id), or throws 422
 * insufficient_liquidity naming the most the region can still promise. Returns the draft with
 * the region recorded, so the order object knows whom to release.
 */
export async function reserveLiquidity(
  env: Env,
  config: Config,
  draft: OrderDraft,
  region: string,
): Promise<OrderDraft> {
  const key = keyOf(draft, region);
  const name = shardName(key.coin, key.network, key.region);
  const now = Date.now();
  if (knownUnlimited(name, now)) return { ...draft, liquidityRegion: region };
  const amount = reservationFor(new Dec(draft.amountToExpected), draft.rateType, config.SPREAD_FLOAT_BPS);
  const result = await shard(env, key).reserve(key, draft.id, toDecimalString(amount));
  if (result.ok && result.unlimitedUntil !== undefined) rememberUnlimited(name, result.unlimitedUntil, now);
  if (!result.ok) {
    const free = new Dec(result.free);
    const maxFrom = maxAmountFrom(free, new Dec(draft.rateQuoted), draft.rateType, config.SPREAD_FLOAT_BPS);
    throw insufficientLiquidity(draft.coinTo, free, maxFrom, draft.coinFrom);
  }
  return {
    ...draft,
    liquidityRegion: region,
    ...(result.reserved === undefined ? {} : { liquidityReserved: result.reserved }),
  };
}

/**
 * Reserves, then creates; gives the reservation back when no order came of it (no deposit address).
 * Not on "taken": the id belongs to another order, whose reservation the call found and kept.
 */
export async function withReservation(
  env: Env,
  config: Config,
  draft: OrderDraft,
  region: string,
  create: (draft: OrderDraft) => Promise<CreateResult>,
): Promise<CreateResult> {
  // A test order pays nothing real, so it must neither take nor be refused the service's coins.
  if (draft.livemode === false) return create(draft);
  // A widget order reserves when its deposit is seen: an anonymous visitor's orders lock nothing.
  if (draft.widgetId) return create({ ...draft, liquidityRegion: region, liquidityAtDeposit: true });
  const reserved = await reserveLiquidity(env, config, draft, region);
  const result = await create(reserved);
  if (result.kind === "unavailable") await shard(env, keyOf(draft, region)).release(draft.id);
  return result;
}

export interface LiquidityEntry extends LedgerView {
  updated_at: string;
}

const ledger = (env: Env, coin: string, network: string) =>
  env.LIQUIDITY_LEDGERS.getByName(ledgerName(coin, network));

/**
 * PUT /admin/v1/liquidity: sets (or, with null, lifts) a coin's balance, audited in the same D1
 * batch. The coin's ledger re-reads it at once; were that call to fail, within its 30 s cache.
 */
export async function setLiquidityBalance(
  env: Env,
  actor: Actor,
  input: { coin: string; network: string; balance: string | null },
): Promise<LiquidityEntry> {
  const currency = (await loadCatalog(env.DB)).find(
    (c) => c.coin === input.coin && c.network === input.network,
  );
  if (!currency)
    throw new DomainError(
      "invalid_catalog_change",
      `${input.coin} on ${input.network} is not in the catalog.`,
    );
  const before = await getBalance(env.DB, input.coin, input.network);
  const after = {
    coin: input.coin,
    network: input.network,
    balance: input.balance === null ? null : toDecimalString(new Dec(input.balance)),
    updated_at: new Date().toISOString(),
  };
  await env.DB.batch([
    putBalanceStatement(env.DB, after),
    auditStatement(env.DB, {
      at: after.updated_at,
      operator: actor.operator,
      action: "liquidity.set",
      entityType: "liquidity",
      entityId: ledgerName(after.coin, after.network),
      before,
      after,
      requestId: actor.requestId,
    }),
  ]);
  forgetQuotedFree(after.coin, after.network);
  const stub = ledger(env, after.coin, after.network);
  try {
    await stub.refresh(after.coin, after.network);
  } catch (err) {
    console.error(
      JSON.stringify({ level: "warn", msg: "liquidity ledger refresh failed", error: String(err) }),
    );
  }
  // After the shards have forgotten, so no answer given before the PUT is remembered past it.
  forgetUnlimited(after.coin, after.network);
  return { ...(await stub.view(after.coin, after.network)), updated_at: after.updated_at };
}

/** GET /admin/v1/liquidity: every configured coin with what its ledger holds. */
export async function listLiquidity(env: Env): Promise<LiquidityEntry[]> {
  const rows = await listBalances(env.DB);
  return Promise.all(
    rows.map(async (r) => ({
      ...(await ledger(env, r.coin, r.network).view(r.coin, r.network)),
      updated_at: r.updated_at,
    })),
  );
}
