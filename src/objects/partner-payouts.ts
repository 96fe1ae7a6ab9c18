import { DurableObject } from "cloudflare:workers";
import type { PayoutGateway, PayoutRequest } from "../adapters/payout/types";
import { statementPayoutGateway } from "../adapters/registry";
import { getConfig } from "../config";
import { payoutSentMessage } from "../domain/payout-events";
import type { SendPolicy } from "../domain/send-step";
import { settleStatementPayout } from "../storage/statements";
import { ALERTS_TABLE, addAlertSubjects, OrderAlerts } from "./order/alerts";
import { orderTables } from "./order/context";
import { type Migration, migrate } from "./order/migrations";
import { OrderSchedule, SCHEDULE_TABLE } from "./order/schedule";
import { sendOnce } from "./order/send-once";
import { SENDS_NUMBER_AND_PROGRESS, SENDS_TABLE, SendsLedger } from "./order/sends-ledger";

/** One statement's payout as the month close hands it over. */
export interface PayoutIntent {
  key: string;
  statementId: string;
  partnerId: string;
  livemode: boolean;
  month: string;
  round: number;
  request: PayoutRequest;
}

export interface PayoutState {
  key: string;
  outcome: "sent" | "failed" | null;
  txid: string | null;
}

const RETRY_CAP_MS = 30 * 60_000;
/** Retry of the D1 write (and webhook) that records a finished payout on its statement. */
const SETTLE_RETRY_MS = 60_000;
const SETTLE = "settle";

/**
 * The object's schema, append-only like the order's (src/objects/order/migrations.ts): the same
 * sends ledger, schedule and alerts tables, so the order's `sendOnce` and alerts run here unchanged.
 */
const PAYOUTS_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
  ${SENDS_TABLE};
  ${SCHEDULE_TABLE};
  CREATE TABLE payouts (key TEXT PRIMARY KEY, intent TEXT NOT NULL, settled_at TEXT);`,
  SENDS_NUMBER_AND_PROGRESS,
  `${ALERTS_TABLE};`,
  { sql: "SELECT 1", data: addAlertSubjects },
];

/**
 * A partner's payouts of its statements (docs/earnings.md, "Automatic payout"), one object per
 * partner and mode. It holds the same sends ledger and schedule an order holds, and moves each
 * statement's payout with the order's own `sendOnce`: the request frozen before the first call,
 * every re-send preceded by a lookup, only the gateway's signed word ending a send. Each payout
 * has its own key (partner, mode, month, round), so a month can never be paid twice even if the
 * month close is run again. When a send ends, the statement in D1 is updated and `payout.sent`
 * queued; that step is retried from the schedule until it succeeds.
 */
export class PartnerPayouts extends DurableObject<Env> {
  readonly #schedule: OrderSchedule;
  readonly #ledger: SendsLedger;
  readonly #alerts: OrderAlerts;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, PAYOUTS_MIGRATIONS));
    this.#schedule = new OrderSchedule(sql);
    const tables = orderTables(sql);
    this.#ledger = new SendsLedger(tables.sends, this.#schedule);
    this.#alerts = new OrderAlerts(tables.alerts);
  }

  #gateway(intent: PayoutIntent): PayoutGateway {
    return statementPayoutGateway(this.env, getConfig(this.env), intent.livemode, intent.partnerId);
  }

  #policy(): SendPolicy {
    const config = getConfig(this.env);
    return {
      maxAttempts: config.PAYOUT_MAX_ATTEMPTS,
      retryBaseMs: config.RETRY_BASE_SECONDS * 1000,
      retryCapMs: RETRY_CAP_MS,
    };
  }

  #intent(key: string): PayoutIntent | null {
    const row = this.ctx.storage.sql
      .exec<{ intent: string }>("SELECT intent FROM payouts WHERE key = ?", key)
      .toArray()[0];
    return row ? (JSON.parse(row.intent) as PayoutIntent) : null;
  }

  #state(key: string): PayoutState {
    const row = this.#ledger.get<PayoutRequest>(key);
    const outcome = row?.outcome === "sent" || row?.outcome === "failed" ? row.outcome : null;
    return { key, outcome, txid: row?.txid ?? null };
  }

  /**
   * Starts (or continues) a statement's payout. A second call with the same key changes nothing
   * that is decided: the first intent stays, and a finished payout is only reported.
   */
  async pay(intent: PayoutIntent, now = Date.now()): Promise<PayoutState> {
    this.ctx.storage.sql.exec(
      "INSERT INTO payouts (key, intent) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
      intent.key,
      JSON.stringify(intent),
    );
    await this.#step(intent.key, now);
    await this.#arm(now);
    return this.#state(intent.key);
  }

  async state(key: string): Promise<PayoutState> {
    return this.#state(key);
  }

  /** Runs whatever is due: sends whose next moment has come, then unsettled outcomes. */
  async run(now = Date.now()): Promise<void> {
    for (const { name, dueAt } of this.#schedule.rows()) {
      if (dueAt > now || !name.startsWith("send:")) continue;
      await this.#step(name.slice("send:".length), now);
    }
    await this.#settle(now);
    await this.#arm(now);
  }

  override async alarm(): Promise<void> {
    try {
      await this.run();
    } catch (err) {
      console.error(
        JSON.stringify({ level: "error", msg: "partner payouts alarm failed", error: String(err) }),
      );
      this.#schedule.set(SETTLE, Date.now() + SETTLE_RETRY_MS);
      await this.#arm(Date.now());
    }
  }

  async #step(key: string, now: number): Promise<void> {
    const intent = this.#intent(key);
    if (!intent) return;
    const row = this.#ledger.get(key);
    if (!row || row.outcome === null) {
      const log = (msg: string, data: Record<string, unknown>) =>
        console.error(JSON.stringify({ level: "error", msg, statement: intent.statementId, key, ...data }));
      await sendOnce(
        this.#ledger,
        this.#gateway(intent),
        this.#policy(),
        key,
        async () => intent.request,
        {
          sent: () => {},
          failed: async (error, attempts) => log("partner payout refused", { error, attempts }),
          retrying: () => {},
          // The payout's operator alerts, about its key: listed by GET /admin/v1/alerts under its
          // statement's id, and ended by this payout's answers only (not another month's).
          alerts: (raise, clear) => {
            for (const kind of clear) this.#alerts.clear(intent.statementId, kind, now, key);
            if (raise) this.#alerts.raise(intent.statementId, raise.kind, raise.message, { key }, now, key);
          },
        },
        now,
      );
    }
    await this.#settle(now);
    await this.#alerts.project(
      this.env.DB,
      (ledgerKey) => this.#intent(ledgerKey)?.statementId ?? intent.statementId,
    );
  }

  /** Records every finished payout on its statement (D1) and queues its webhook, once each. */
  async #settle(now: number): Promise<void> {
    const open = this.ctx.storage.sql
      .exec<{ key: string }>("SELECT key FROM payouts WHERE settled_at IS NULL ORDER BY key")
      .toArray();
    const at = new Date(now).toISOString();
    for (const { key } of open) {
      const state = this.#state(key);
      const intent = this.#intent(key);
      if (!state.outcome || !intent) continue;
      try {
        await settleStatementPayout(this.env.DB, intent.statementId, intent.round, state, at);
        // Its event id is the key's: sent again after a crash, the delivery log keeps one event.
        if (state.outcome === "sent" && state.txid)
          await this.env.WEBHOOKS.send(await payoutSentMessage(intent, state.txid, at));
        this.ctx.storage.sql.exec("UPDATE payouts SET settled_at = ? WHERE key = ?", at, key);
      } catch (err) {
        console.error(
          JSON.stringify({
            level: "warn",
            msg: "statement settle failed; will retry",
            key,
            error: String(err),
          }),
        );
        this.#schedule.set(SETTLE, now + SETTLE_RETRY_MS);
        return;
      }
    }
    this.#schedule.clear(SETTLE);
  }

  async #arm(now: number): Promise<void> {
    await this.#schedule.arm(this.ctx.storage, now, 0);
  }
}
