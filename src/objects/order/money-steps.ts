import {
  type ExchangeRequest,
  type ExchangeResult,
  type ExchangeVenue,
  VENUE_CONFIG_ALERT,
} from "../../adapters/exchange/types";
import { mayBeOnVenue, type VenueExchangeState } from "../../adapters/exchange/venue-exchange";
import type { PayoutRequest } from "../../adapters/payout/types";
import { AdapterConfigError, type OrderAdapters } from "../../adapters/registry";
import type { Config } from "../../config";
import { sendKey } from "../../domain/ledger-keys";
import { parseDecimal } from "../../domain/money";
import { isLive, type OrderRecord } from "../../domain/order";
import type { ActionInputs } from "../../domain/order-actions";
import { operationFields } from "../../domain/payout-activation";
import { CONFIG_RETRY_MS, RETRY_CAP_MS } from "../../domain/retry";
import { beforeSend, type SendPolicy, type SendRow } from "../../domain/send-step";
import { refundAmountNow } from "../../storage/market";
import { screenAddresses } from "../../storage/screening";
import type { OrderAlerts } from "./alerts";
import { withLiquidityWait } from "./exchange-liquidity";
import type { ExtraDeposits } from "./extra-deposits";
import { type SendOutcomes, sendOnce } from "./send-once";
import type { SendsLedger } from "./sends-ledger";
import type { EventData, OrderTransitions } from "./transitions";

/** Set while the order's exchange waits on something an operator must look at (the review queue). */
const EXCHANGE_REVIEW = "exchange_review";

/** Whether the order's exchange waits for an operator's eye: it is listed in the review queue. */
export function exchangeNeedsReview(kv: SyncKvStorage, r: OrderRecord): boolean {
  return r.status === "exchanging" && kv.get<boolean>(EXCHANGE_REVIEW) === true;
}

/** A failed exchange step whose venue may hold a leg of it is retried this often, in review. */
const STOPPED_ON_VENUE_RETRY_MS = 5 * 60_000;
const STOPPED_ON_VENUE_ALERT = "exchange step failed with a leg on the venue: the order waits in exchanging";

/**
 * What the exchange step does with a failure (a throw, a refusal, nothing to pay out) while a leg
 * may be on the venue: it waits, in the review queue and alerted, rather than fail (and refund) a
 * deposit the venue may have sold. The venue adapter already answers so itself; this holds whatever
 * it, or anything around it, does.
 */
function stoppedOnVenue(result: Exclude<ExchangeResult, { status: "pending" }>, now: number): ExchangeResult {
  const error = result.status === "failed" ? result.error : "exchange produced nothing to pay out";
  return {
    status: "pending",
    retryAt: now + STOPPED_ON_VENUE_RETRY_MS,
    reason: error,
    review: true,
    alert: { msg: STOPPED_ON_VENUE_ALERT, data: { error } },
  };
}

/** What the money steps need from the order object they run in. */
export interface MoneyStepsHost extends OrderTransitions {
  env: Env;
  config: Config;
  kv: SyncKvStorage;
  ledger: SendsLedger;
  extraDeposits: ExtraDeposits;
  alerts: OrderAlerts;
  /** The order's time. */
  now(): number;
  adapters(r: OrderRecord): OrderAdapters;
  /** The inputs of the actions a failure may offer (undefined when it cannot hold funds). */
  inputsIfHeld(r: OrderRecord, now: number, mayHold: boolean): Promise<ActionInputs | undefined>;
}

/**
 * The steps that move money: the exchange, then its payout or a refund, and the refunds of extra
 * deposits. Each goes through the sends ledger: the request is frozen before the outside world is
 * first asked, every call counts as an attempt before it is made, and an unclear outcome is looked
 * up, never sent again (docs/lifecycle.md, "Payouts and refunds happen at most once").
 */
export class MoneySteps {
  readonly #host: MoneyStepsHost;

  constructor(host: MoneyStepsHost) {
    this.#host = host;
  }

  get #policy(): SendPolicy {
    return {
      maxAttempts: this.#host.config.PAYOUT_MAX_ATTEMPTS,
      retryBaseMs: this.#host.config.RETRY_BASE_SECONDS * 1000,
      retryCapMs: RETRY_CAP_MS,
    };
  }

  /**
   * The operator's alert on a problem of this order (docs/lifecycle.md, "Alerts"): one per kind
   * (the message, unless given), logged when it opens and on a backoff while it is raised again,
   * listed by GET /admin/v1/alerts until `clearAlert`, or until the order completes or is refunded.
   */
  alert(r: OrderRecord, msg: string, data: Record<string, unknown>, kind: string = msg): void {
    this.#host.alerts.raise(r.id, kind, msg, data, this.#host.now());
  }

  /** The problem `kind` of this order is over: its alert clears. */
  clearAlert(r: OrderRecord, kind: string): void {
    this.#host.alerts.clear(r.id, kind, this.#host.now());
  }

  /**
   * A send's alerts, one per kind of problem and kind of send (`payout_outcome_unknown`, …) about
   * its ledger key, so two sends of a kind (two extra deposits' refunds) keep theirs apart.
   */
  #sendAlerts(r: OrderRecord, send: string, key: string): SendOutcomes["alerts"] {
    const { alerts } = this.#host;
    return (raise, clear) => {
      for (const kind of clear) alerts.clear(r.id, `${send}_${kind}`, this.#host.now(), key);
      if (raise) alerts.raise(r.id, `${send}_${raise.kind}`, raise.message, { key }, this.#host.now(), key);
    };
  }

  /**
   * The exchange, behind an intent in the sends ledger. A call that throws is a failed attempt like
   * any other, so no order waits in `exchanging` for ever; a venue that answers "pending" (a leg in
   * progress, no balance, awaiting liquidity) spends no attempt. Two things are never attempts and
   * never fail the order: a venue that cannot be built as configured (the operator's to fix: one
   * configuration alert, retried every CONFIG_RETRY_MS), and anything at all once a leg of the
   * exchange may be on the venue (its deposit may be sold: the order waits in review instead).
   */
  async exchange(r: OrderRecord, now: number): Promise<void> {
    const { ledger } = this.#host;
    const key = sendKey(r, "exchange");
    const at = new Date(now).toISOString();
    const existing = ledger.get<ExchangeRequest>(key);
    if (existing && now < existing.nextAt) return;
    const row: SendRow<ExchangeRequest> = existing ?? {
      key,
      kind: "exchange",
      request: {
        orderId: r.id,
        coinFrom: r.coinFrom,
        networkFrom: r.networkFrom,
        coinTo: r.coinTo,
        networkTo: r.networkTo,
        amountFrom: r.amountFromReceived ?? r.amountFromExpected,
        rateType: r.rateType,
        rateQuoted: r.rateQuoted,
        amountFromExpected: r.amountFromExpected,
        amountToExpected: r.amountToExpected,
        decimalsTo: r.decimalsTo,
        spreadBps: r.spreadBps,
        markupBps: r.markupBps,
        // A continued exchange (sendKeys set by the decision) runs at the rate of its moment.
        ...(r.rateType === "float" && r.amountToMin !== undefined && r.sendKeys?.exchange === undefined
          ? { amountToMin: r.amountToMin }
          : {}),
      },
      attempts: 0,
      failures: 0,
      unknownLookups: 0,
      nextAt: 0,
    };
    const attempts = row.attempts + 1;
    const policy = { ...this.#policy, maxAttempts: this.#host.config.EXCHANGE_MAX_ATTEMPTS };
    ledger.put(beforeSend(row, policy, now), at);
    let result: ExchangeResult;
    try {
      result = await this.#venue(r).execute(row.request, key);
    } catch (err) {
      result =
        err instanceof AdapterConfigError
          ? {
              status: "pending",
              retryAt: now + CONFIG_RETRY_MS,
              reason: err.message,
              alert: { msg: VENUE_CONFIG_ALERT, data: { error: err.message } },
            }
          : { status: "failed", retryable: true, error: `venue call threw: ${String(err)}` };
    }
    const produced = result.status === "done" && parseDecimal(result.amountTo).gt(0);
    if (!produced && result.status !== "pending" && mayBeOnVenue(ledger.progress<VenueExchangeState>(key)))
      result = stoppedOnVenue(result, now);
    else this.clearAlert(r, STOPPED_ON_VENUE_ALERT);
    if (result.status === "pending") {
      // The venue took our credentials again: its configuration alert is over (else on the exchange's end).
      if (result.credentialsAccepted) this.clearAlert(r, VENUE_CONFIG_ALERT);
      ledger.put({ ...row, nextAt: result.retryAt }, at);
      if (result.event) this.#host.note(r, now, result.event.reason, result.event.data);
      if (result.alert) this.alert(r, result.alert.msg, { key, ...result.alert.data });
      if (result.review && !exchangeNeedsReview(this.#host.kv, r)) {
        this.#host.kv.put(EXCHANGE_REVIEW, true);
        // Its own log row: the index row is projected by the log's version, so a change needs one.
        this.#host.note(r, now, "exchange waits for an operator: in the review queue", {
          reason: result.reason,
        });
        this.#host.markProjection(now);
      }
      return;
    }
    // Nothing waits on the venue any more: the order leaves the review queue (unless it fails into it).
    if (exchangeNeedsReview(this.#host.kv, r)) {
      this.#host.kv.delete(EXCHANGE_REVIEW);
      this.#host.markProjection(now);
    }
    if (result.status === "done" && produced) {
      this.clearAlert(r, VENUE_CONFIG_ALERT);
      const next = this.#host.apply(
        r,
        { type: "exchange_done", amountToActual: result.amountTo },
        now,
        {},
        result.record ?? null,
      );
      ledger.finish(key, "sent", null, null, at);
      if (next) await this.send(next, "payout", now);
      return;
    }
    const error = result.status === "failed" ? result.error : "exchange produced nothing to pay out";
    if (result.status === "done" || !result.retryable || attempts >= policy.maxAttempts) {
      if (attempts >= policy.maxAttempts)
        this.alert(r, "exchange failed after every attempt", { error, attempts });
      this.clearAlert(r, VENUE_CONFIG_ALERT);
      const inputs = await this.#host.inputsIfHeld(r, now, true);
      const belowMinOut = result.status === "failed" && result.belowMinOut === true;
      const next = this.#host.apply(
        r,
        { type: "exchange_failed", ...(belowMinOut && { belowMinOut }) },
        now,
        {},
        { error, attempts },
        inputs,
      );
      ledger.finish(key, "failed", null, error, at);
      if (next?.status === "refunding") await this.send(next, "refund", now);
      return;
    }
    this.#host.note(r, now, "exchange attempt failed", { error, attempts });
  }

  /** The venue this order is exchanged on, behind the exchange-time liquidity check. */
  #venue(r: OrderRecord): ExchangeVenue {
    const { env, config, kv } = this.#host;
    return withLiquidityWait(this.#host.adapters(r).venue, {
      env,
      config,
      order: r,
      kv,
      alert: (msg, data) => this.alert(r, msg, data),
    });
  }

  /** Sends the payout or refund at most once, through the ledger (src/objects/order/send-once.ts). */
  async send(r: OrderRecord, kind: "payout" | "refund", now: number): Promise<void> {
    const key = sendKey(r, kind);
    await sendOnce(
      this.#host.ledger,
      this.#host.adapters(r).payout,
      this.#policy,
      key,
      () => this.#request(r, kind),
      {
        sent: (txid) => {
          this.#host.apply(
            r,
            kind === "payout" ? { type: "payout_sent", txid } : { type: "refund_sent", txid },
            now,
          );
        },
        failed: async (error, attempts) => {
          const inputs = await this.#host.inputsIfHeld(r, now, kind === "refund");
          this.#host.apply(
            r,
            kind === "payout" ? { type: "payout_failed" } : { type: "refund_failed" },
            now,
            {},
            { error, attempts },
            inputs,
          );
        },
        retrying: (error, attempts) => {
          this.#host.note(r, now, `${kind} attempt failed`, { error, attempts });
        },
        alerts: this.#sendAlerts(r, kind, key),
      },
      now,
    );
  }

  /** The transfer a payout or refund makes, decided once: it is frozen in the ledger from then on. */
  async #request(r: OrderRecord, kind: "payout" | "refund"): Promise<PayoutRequest | string> {
    const isPayout = kind === "payout";
    const amount = isPayout
      ? r.amountToActual
      : (r.refundAmountDecided ?? (await refundAmountNow(this.#host.env.DB, r)));
    if (amount === null || !parseDecimal(amount).gt(0))
      return `nothing to ${kind}: amount ${amount ?? "unknown"}`;
    const network = isPayout ? r.networkTo : r.networkFrom;
    const coin = isPayout ? r.coinTo : r.coinFrom;
    const contract = isPayout ? r.contractTo : r.contractFrom;
    const to = isPayout ? r.recipientAddress : (r.refundAddress ?? "");
    // Screened again before any money moves: a list may have named the address since creation.
    const [screened] = await screenAddresses(
      this.#host.env,
      isLive(r) ? "live" : "test",
      [{ network, address: to, asset: { coin, contract } }],
      this.#host.now(),
    );
    // A held deposit going back to the address it came from is how a risk or operator hold ends
    // (docs/lifecycle.md, "Holds"); only sanctions (blocking is the law's) and an issuer's
    // blocklist (the transfer would revert on chain) stop money from leaving for a listed address.
    const returning = !isPayout && r.depositSender != null && to === r.depositSender;
    const blocking = (screened?.result === "listed" ? screened.categories : []).filter(
      (c) => !returning || c === "sanctions" || c === "issuer_blocked",
    );
    if (blocking.length > 0)
      return `the ${kind} address is listed (${blocking.join(", ")}): nothing was sent`;
    return {
      idempotencyKey: sendKey(r, kind),
      orderId: r.id,
      kind,
      network,
      coin,
      contract,
      to,
      tag: isPayout ? r.recipientAddressTag : r.refundAddressTag,
      amount,
      // A refund goes back to the account the deposit came from, which exists.
      ...(isPayout ? operationFields(r.payoutOperation) : {}),
    };
  }

  /** Drives the extra deposits' refunds that were decided, each at most once through the ledger. */
  async refundExtras(r: OrderRecord, now: number): Promise<void> {
    const { ledger, extraDeposits } = this.#host;
    for (const key of ledger.unfinished("extra_refund")) {
      const deposit = extraDeposits.depositOf(key);
      const settled = (reason: string, data: EventData) => {
        this.#host.note(r, now, reason, { deposit, ledger_key: key, ...data });
        this.#host.markProjection(now);
      };
      await sendOnce(
        ledger,
        this.#host.adapters(r).payout,
        this.#policy,
        key,
        async () => "the refund request was not frozen",
        {
          sent: (txid) => settled("extra deposit refunded", { txid }),
          failed: async (error, attempts) =>
            settled("extra deposit refund failed: its refund is offered again", { error, attempts }),
          retrying: (error, attempts) => {
            this.#host.note(r, now, "extra deposit refund attempt failed", { deposit, error, attempts });
          },
          alerts: this.#sendAlerts(r, "extra_refund", key),
        },
        now,
      );
    }
  }
}
