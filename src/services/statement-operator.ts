// The operator's side of statements (docs/operators.md, "Partner payouts"): list, hold and release
// a payout, add an adjustment for the next statement, re-run a month close, totals owed per asset.
// Every change is audited (operator_audit).
import type { Config } from "../config";
import { DomainError } from "../domain/errors";
import { type Month, monthOf, type Owed, owedPerAsset, parseSignedUsd } from "../domain/statements";
import { auditStatement } from "../storage/operator-audit";
import { getPartner } from "../storage/partners";
import {
  dueStatements,
  getStatement,
  holdStatement,
  insertAdjustmentStatement,
  releaseStatement,
  resolveStatement,
  type StatementRow,
  unpaidStatements,
} from "../storage/statements";
import type { Actor } from "./catalog-admin";
import { closeLiveMonth, dispatchPayout } from "./statements";

async function audited(
  env: Env,
  actor: Actor,
  action: string,
  before: StatementRow,
  after: StatementRow,
): Promise<void> {
  await auditStatement(env.DB, {
    at: new Date().toISOString(),
    operator: actor.operator,
    action,
    entityType: "statement",
    entityId: after.id,
    before: { status: before.status, hold_reason: before.hold_reason, round: before.round },
    after: { status: after.status, hold_reason: after.hold_reason, round: after.round },
    requestId: actor.requestId,
  }).run();
}

async function statementOrThrow(env: Env, id: string): Promise<StatementRow> {
  const s = await getStatement(env.DB, id);
  if (!s) throw new DomainError("statement_not_found", `No statement ${id}.`);
  return s;
}

/** Holds a pending payout not yet handed to the ledger (409 action_not_available otherwise). */
export async function holdPayout(env: Env, actor: Actor, id: string, reason: string): Promise<StatementRow> {
  const before = await statementOrThrow(env, id);
  if (!(await holdStatement(env.DB, id, reason)))
    throw new DomainError(
      "action_not_available",
      before.status === "pending"
        ? "The payout has been handed to the payout ledger: it can no longer be held."
        : `Only a pending payout can be held; this statement is ${before.status}.`,
    );
  const after = await statementOrThrow(env, id);
  await audited(env, actor, "statement.hold", before, after);
  return after;
}

/** Releases a held payout; it is paid by the next cron run (or now, when `payNow`). */
export async function releasePayout(
  env: Env,
  config: Config,
  actor: Actor,
  id: string,
  now: number,
): Promise<StatementRow> {
  const before = await statementOrThrow(env, id);
  if (!(await releaseStatement(env.DB, id)))
    throw new DomainError(
      "action_not_available",
      `Only a held payout can be released; this statement is ${before.status}.`,
    );
  const after = await statementOrThrow(env, id);
  await audited(env, actor, "statement.release", before, after);
  return Date.parse(after.due_at) <= now ? dispatchPayout(env, config, after, now) : after;
}

/**
 * Records a held payout the operator made by hand (txid, note): the statement is paid with that
 * txid, so no release can pay it again. Repeating it with the same txid answers the statement.
 */
export async function resolvePayout(
  env: Env,
  actor: Actor,
  id: string,
  hand: { txid: string; note: string },
  now: number,
): Promise<StatementRow> {
  const before = await statementOrThrow(env, id);
  if (before.status === "paid" && before.txid === hand.txid) return before;
  if (!(await resolveStatement(env.DB, id, hand.txid, new Date(now).toISOString())))
    throw new DomainError(
      "action_not_available",
      `Only a held payout can be recorded as paid by hand (hold it first); this statement is ${before.status}.`,
    );
  const after = await statementOrThrow(env, id);
  await auditStatement(env.DB, {
    at: new Date(now).toISOString(),
    operator: actor.operator,
    action: "statement.resolve",
    entityType: "statement",
    entityId: id,
    before: { status: before.status, hold_reason: before.hold_reason, round: before.round },
    after: { status: after.status, txid: hand.txid, note: hand.note, round: after.round },
    requestId: actor.requestId,
  }).run();
  return after;
}

export interface NewAdjustment {
  livemode: boolean;
  amount_usd: string;
  reason: string;
}

/** An adjustment for the partner's next statement (a correction never rewrites an issued one). */
export async function addAdjustment(
  env: Env,
  actor: Actor,
  partnerId: string,
  a: NewAdjustment,
): Promise<{
  id: string;
  partner_id: string;
  livemode: boolean;
  amount_usd: string;
  reason: string;
  created_at: string;
}> {
  if (!(await getPartner(env.DB, partnerId))) throw new DomainError("partner_not_found", "No such partner.");
  parseSignedUsd(a.amount_usd);
  const at = new Date().toISOString();
  const row = {
    id: `adj_${crypto.randomUUID().replaceAll("-", "")}`,
    amount_usd: a.amount_usd,
    reason: a.reason,
  };
  const view = { ...row, partner_id: partnerId, livemode: a.livemode, created_at: at };
  await env.DB.batch([
    insertAdjustmentStatement(env.DB, {
      ...row,
      partnerId,
      livemode: a.livemode,
      createdBy: actor.operator,
      createdAt: at,
    }),
    auditStatement(env.DB, {
      at,
      operator: actor.operator,
      action: "statement.adjustment",
      entityType: "partner",
      entityId: partnerId,
      before: null,
      after: view,
      requestId: actor.requestId,
    }),
  ]);
  return view;
}

/**
 * Re-runs a month close: issues the live statements still missing for `month` (none when it ran
 * already) and hands over every due payout (each answered by its ledger without paying again).
 */
export async function rerunMonth(
  env: Env,
  config: Config,
  actor: Actor,
  month: Month,
  now: number,
): Promise<{ month: Month; issued: number; dispatched: number }> {
  if (month >= monthOf(now))
    throw new DomainError(
      "action_not_available",
      `${month} has not closed yet: only a past month can be closed.`,
    );
  const issued = await closeLiveMonth(env, config, month, now);
  const at = new Date(now).toISOString();
  const due = (await dueStatements(env.DB, at, at, 100)).filter((s) => s.month === month);
  for (const s of due) await dispatchPayout(env, config, s, now);
  await auditStatement(env.DB, {
    at,
    operator: actor.operator,
    action: "statement.rerun",
    entityType: "month",
    entityId: month,
    before: null,
    after: { issued, dispatched: due.length },
    requestId: actor.requestId,
  }).run();
  return { month, issued, dispatched: due.length };
}

export async function owed(env: Env): Promise<Owed[]> {
  return owedPerAsset(await unpaidStatements(env.DB));
}
