import type { CurrencyRow } from "../domain/currency";
import { type CurrencyFields, canonicalContract, requireValidCurrency } from "../domain/currency-edit";
import { DomainError } from "../domain/errors";
import {
  currencyInUse,
  getCurrency,
  insertCurrencyStatement,
  invalidateCatalog,
  updateCurrencyStatement,
} from "../storage/catalog";
import { auditStatement } from "../storage/operator-audit";

/** Who made a change and in which request: every audit entry carries both. */
export interface Actor {
  operator: string;
  requestId: string;
}

export type NewCurrency = Pick<CurrencyRow, "coin" | "network"> & CurrencyFields;

function normalised(row: CurrencyRow): CurrencyRow {
  return { ...row, contract_address: canonicalContract(row.network, row.contract_address) };
}

/** Writes the row and its audit entry atomically, then drops this isolate's catalog cache. */
async function commit(
  env: Env,
  actor: Actor,
  action: "currency.create" | "currency.update",
  before: CurrencyRow | null,
  after: CurrencyRow,
): Promise<void> {
  const at = new Date().toISOString();
  const write = before
    ? updateCurrencyStatement(env.DB, after, at)
    : insertCurrencyStatement(env.DB, after, at);
  try {
    await env.DB.batch([
      write,
      auditStatement(env.DB, {
        at,
        operator: actor.operator,
        action,
        entityType: "currency",
        entityId: after.id,
        before,
        after,
        requestId: actor.requestId,
      }),
    ]);
  } catch (err) {
    // Two operators creating the same coin at once: the UNIQUE (coin, network) index decides.
    if (!before && String(err).includes("UNIQUE")) throw exists(after);
    throw err;
  }
  invalidateCatalog();
}

const exists = (row: Pick<CurrencyRow, "coin" | "network">) =>
  new DomainError("currency_exists", `${row.coin} on ${row.network} is already in the catalog.`);

export async function createCurrency(env: Env, actor: Actor, input: NewCurrency): Promise<CurrencyRow> {
  const row = normalised({ ...input, id: crypto.randomUUID() });
  requireValidCurrency(row, null, false);
  const taken = await env.DB.prepare("SELECT 1 FROM currencies WHERE coin = ? AND network = ?")
    .bind(row.coin, row.network)
    .first();
  if (taken) throw exists(row);
  await commit(env, actor, "currency.create", null, row);
  return row;
}

/** null: no such row. A change that sets every field to its current value is stored and audited all the same. */
export async function updateCurrency(
  env: Env,
  actor: Actor,
  id: string,
  changes: Partial<CurrencyFields>,
): Promise<CurrencyRow | null> {
  const before = await getCurrency(env.DB, id);
  if (!before) return null;
  const after = normalised({ ...before, ...changes });
  const inUse = after.decimals !== before.decimals && (await currencyInUse(env.DB, before));
  requireValidCurrency(after, before, inUse);
  await commit(env, actor, "currency.update", before, after);
  return after;
}
