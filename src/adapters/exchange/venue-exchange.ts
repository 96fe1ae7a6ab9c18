import { deliveryFloor } from "../../domain/min-out";
import { Dec, type Decimal, parseDecimal, toDecimalString, toSignificant } from "../../domain/money";
import { commissionSummary, legDelivered, venuePayout } from "../../domain/venue-fills";
import { type LegState, waitAlertAt } from "../../domain/venue-policy";
import {
  type LegSize,
  legClientOrderId,
  legTarget,
  routeLegs,
  sizeLeg,
  sizeLimitLeg,
} from "../../domain/venue-route";
import type {
  ExchangeRequest,
  ExchangeResult,
  ExchangeVenue,
  LegExecution,
  ExchangePending as Pending,
  SpotVenue,
  VenueOrder,
  VenueOutcome,
} from "./types";
import { VENUE_CONFIG_ALERT } from "./types";
import { stepLeg } from "./venue-legs";

/**
 * EXCHANGE_MODE `binance`: the order's exchange as venue legs with intent, then lookup
 * (docs/venue.md). Every leg's intent — its client order id and, once sized, the
 * exact order — is stored in the order's object before the venue hears of it, and each call of
 * `execute` advances the legs as far as the venue lets it now. While any leg may be on the venue,
 * nothing here fails the exchange: an answer it cannot trust, a venue it cannot reach, a lookup
 * still within the lost-leg window, or a balance too small all leave the order `exchanging`
 * (`pending`) until the next step.
 */
export interface VenueLeg {
  symbol: string;
  side: "BUY" | "SELL";
  from: string;
  to: string;
  clientOrderId: string;
  /** Frozen when first sized: every placement of the leg sends exactly this. */
  order: VenueOrder | null;
  state: LegState;
  /** No venue call for this leg before this time (epoch ms). */
  nextAt: number;
  /** Once filled: the venue's figures and per-trade fills (price, qty, commission). */
  execution: LegExecution | null;
  /**
   * While the exchange waits on this leg: since when, and the operator alerts raised for the wait
   * (src/domain/venue-policy.ts, `waitAlertAt`). Absent on legs stored before they were kept.
   */
  waitingSince?: number | null;
  waitAlerts?: number;
  /** The wait's reason as last written to the order's log: a wait is logged when its reason changes. */
  logged?: string | null;
  /** Why a leg after a filled one cannot go now (its retries alert once, then as a wait). */
  blocked?: string | null;
}

export interface VenueExchangeState {
  legs: VenueLeg[];
}

/**
 * Whether any leg of the exchange may be on the venue (placed, possibly placed, or filled): from
 * then on the deposit may be sold, and nothing may fail the exchange (a refund would pay it back).
 * A leg refused for good, or declared lost after the lookup window, is not.
 */
export function mayBeOnVenue(state: VenueExchangeState | null | undefined): boolean {
  return (
    state?.legs.some(
      (l) =>
        l.execution !== null ||
        l.state.phase === "sending" ||
        l.state.phase === "uncertain" ||
        l.state.phase === "filled",
    ) ?? false
  );
}

/**
 * The order object's storage for its venue legs: the exchange's own row of the sends ledger, under
 * its ledger key (one record per exchange and its legs; docs/venue.md).
 */
export interface LegStore {
  get(key: string): VenueExchangeState | undefined;
  /** Must be durable before the next outgoing request (the object's storage, behind its output gate). */
  put(key: string, state: VenueExchangeState): void;
  /** The exchange's number among the order's exchanges, as its row stores it (its legs' ids carry it). */
  number(key: string): number;
}

export interface VenueExchangeDeps {
  venue: SpotVenue;
  store: LegStore;
  /** The destination's network fee a float payout bears (the catalog's withdraw_fee). */
  withdrawFee(coin: string, network: string): Promise<string>;
  now?: () => number;
}

/** A balance too small on the venue is retried this often, with an alert each time. */
export const BALANCE_RETRY_MS = 5 * 60_000;
/** A leg refused after an earlier one filled is sized and placed again this often. */
export const LEG_RETRY_MS = 5 * 60_000;
/** After the venue could not be reached (exchangeInfo, ticker, trades), the next try. */
const UNREACHABLE_RETRY_MS = 30_000;
/** Venue calls one `execute` makes at most, so a venue answering "now" again and again cannot spin. */
const MAX_STEPS = 4;
/** The reason of a step that made no call the leg was waiting for: nothing new to log. */
const IN_PROGRESS = "venue leg in progress";

function describe(o: VenueOutcome): string {
  switch (o.kind) {
    case "rejected":
      return `venue refused (${o.code}): ${o.message}`;
    case "rate_limited":
      return `venue rate limit: retry after ${o.retryAfterSeconds} s`;
    case "unknown":
      return `venue outcome unknown: ${o.error}`;
    case "config":
      return `venue refused our credentials: ${o.error}`;
    default:
      return `venue answered ${o.kind}`;
  }
}

export function createVenueExchange(deps: VenueExchangeDeps): ExchangeVenue {
  const now = deps.now ?? Date.now;
  return {
    async execute(req, key) {
      const t = now();
      let state = deps.store.get(key);
      if (!state) {
        // Nothing has reached the venue for this exchange yet: a throw here is an ordinary failed attempt.
        const route = routeLegs(await deps.venue.markets(), req.coinFrom, req.coinTo);
        if (!route)
          return {
            status: "failed",
            retryable: false,
            error: `the venue lists no market from ${req.coinFrom} to ${req.coinTo}, direct or through USDT`,
          };
        const n = deps.store.number(key);
        state = {
          legs: route.map((leg, i) => ({
            symbol: leg.market.symbol,
            side: leg.side,
            from: leg.from,
            to: leg.to,
            clientOrderId: legClientOrderId(req.orderId, i, n),
            order: null,
            state: { phase: "ready" },
            nextAt: 0,
            execution: null,
            waitingSince: null,
            waitAlerts: 0,
            blocked: null,
          })),
        };
        deps.store.put(key, state);
      }
      const stored = state;
      const save = () => deps.store.put(key, stored);
      const watched = watchCredentials(deps.venue);
      let result: ExchangeResult;
      try {
        result = await advance({ ...deps, venue: watched.venue }, req, stored, save, t);
      } catch (err) {
        if (!mayBeOnVenue(stored)) throw err;
        result = {
          status: "pending",
          retryAt: t + UNREACHABLE_RETRY_MS,
          reason: `venue unreachable: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
      if (result.status !== "pending") return result;
      const waited = watchWait(stored, result, t);
      save();
      return watched.accepted() ? { ...waited, credentialsAccepted: true } : waited;
    },
  };
}

/**
 * The venue, noting what its signed answers say of our credentials: a placement or lookup answered
 * with an order, a "not found" or a refusal of the order got past them; a `config` answer did not.
 * The last such answer of a step counts.
 */
function watchCredentials(venue: SpotVenue): { venue: SpotVenue; accepted(): boolean } {
  let accepted = false;
  const note = (o: VenueOutcome) => {
    if (o.kind === "config") accepted = false;
    else if (o.kind === "filled" || o.kind === "pending" || o.kind === "not_found" || o.kind === "rejected")
      accepted = true;
    return o;
  };
  return {
    venue: {
      ...venue,
      place: async (order, id) => note(await venue.place(order, id)),
      lookup: async (symbol, id) => note(await venue.lookup(symbol, id)),
    },
    accepted: () => accepted,
  };
}

/**
 * A pending exchange is a leg that waits (it may be on the venue, the venue refuses our key, a
 * later leg cannot go). The order's log has one entry when the wait starts and one each time its
 * reason changes, not one per step; the operator is alerted once it has waited
 * `WAIT_ALERT_AFTER_MS`, then on a backoff (the step comes back by then, however far the leg's
 * lookups backed off), and the order is in the review queue from the first alert on.
 */
function watchWait(state: VenueExchangeState, result: Pending, now: number): Pending {
  const leg = state.legs.find((l) => l.state.phase !== "filled" || !l.execution) ?? state.legs.at(-1);
  if (!leg) return result;
  leg.waitingSince ??= now;
  const where = {
    leg: state.legs.indexOf(leg) + 1,
    symbol: leg.symbol,
    client_order_id: leg.clientOrderId,
    phase: leg.state.phase,
  };
  let waited: Pending = result;
  if (result.reason !== IN_PROGRESS && result.reason !== leg.logged) {
    leg.logged = result.reason;
    waited = {
      ...waited,
      event: { reason: "exchange waiting on the venue", data: { ...where, reason: result.reason } },
    };
  }
  const alerts = leg.waitAlerts ?? 0;
  if (now < waitAlertAt(leg.waitingSince, alerts))
    return { ...waited, retryAt: Math.min(waited.retryAt, waitAlertAt(leg.waitingSince, alerts)) };
  leg.waitAlerts = alerts + 1;
  const data = { ...where, waiting_since: new Date(leg.waitingSince).toISOString(), reason: result.reason };
  return {
    ...waited,
    retryAt: Math.min(waited.retryAt, waitAlertAt(leg.waitingSince, alerts + 1)),
    review: true,
    // An alert of its own (a configuration error, a blocked leg) says more than the wait.
    alert: result.alert ?? { msg: "venue leg still pending: needs an operator", data },
  };
}

async function advance(
  deps: VenueExchangeDeps,
  req: ExchangeRequest,
  state: VenueExchangeState,
  save: () => void,
  now: number,
): Promise<ExchangeResult> {
  let steps = 0;
  for (const [i, leg] of state.legs.entries()) {
    const previous = state.legs[i - 1];
    while (leg.state.phase !== "filled" || !leg.execution) {
      // Filled, but its figures never made it to storage: the lookup will read them again.
      if (leg.state.phase === "filled")
        leg.state = { phase: "uncertain", notFound: 0, firstNotFoundAt: null };
      if (leg.state.phase === "rejected")
        return failed(leg, i, state, `leg ${i + 1} (${leg.symbol}) was refused by the venue`, now, save);
      if (now < leg.nextAt || steps >= MAX_STEPS)
        return {
          status: "pending",
          retryAt: Math.max(leg.nextAt, now + 1000),
          reason: IN_PROGRESS,
        };
      if (!leg.order) {
        const amount = previous?.execution
          ? legDelivered({ ...previous.execution, to: previous.to })
          : parseDecimal(req.amountFrom);
        const markets = await deps.venue.markets();
        const market = markets.get(leg.symbol);
        if (!market) return failed(leg, i, state, `the venue no longer lists ${leg.symbol}`, now, save);
        const route = { market, side: leg.side, from: leg.from, to: leg.to };
        const price = parseDecimal(await deps.venue.price(leg.symbol));
        let size: LegSize;
        const floor = req.amountToMin;
        if (floor === undefined) size = sizeLeg(route, amount, price);
        else {
          const limit = sizeLimitLeg(
            route,
            amount,
            price,
            await target(deps, { ...req, amountToMin: floor }, state, i),
          );
          // Before anything is sold, a price already past the floor stops the order: nothing is exchanged.
          if (limit.ok && limit.below && !mayBeOnVenue(state))
            return belowMinOut(
              `at ${leg.symbol} ${toDecimalString(price)} the payout would fall below amount_to_min`,
            );
          size = limit;
        }
        if (!size.ok) return failed(leg, i, state, size.reason, now, save);
        leg.order = { symbol: leg.symbol, side: leg.side, params: size.params };
        save();
      }
      steps++;
      const step = await stepLeg(deps.venue, leg.order, leg.clientOrderId, leg.state, now, (s) => {
        leg.state = s;
        save();
      });
      if (!step)
        throw new Error(`venue leg ${leg.clientOrderId} has nothing to do in phase ${leg.state.phase}`);
      const o = step.outcome;
      if (o.kind === "filled") {
        leg.execution = o.execution;
        leg.nextAt = 0;
        leg.blocked = null;
        save();
        break;
      }
      if (o.kind === "rejected" && o.reason === "insufficient_balance") {
        // A definite refusal: nothing is open under the client id, so the same order may go later.
        leg.state = { phase: "ready" };
        leg.nextAt = now + BALANCE_RETRY_MS;
        save();
        return {
          status: "pending",
          retryAt: leg.nextAt,
          reason: describe(o),
          alert: {
            msg: "venue balance insufficient: the order waits in exchanging",
            data: {
              leg: i + 1,
              symbol: leg.symbol,
              side: leg.side,
              asset: leg.from,
              venue_order: leg.order,
              venue: o.message,
            },
          },
        };
      }
      // A first leg the book could not fill at the floor's price: nothing traded, nothing is open.
      if (o.kind === "rejected" && o.reason === "expired" && !mayBeOnVenue(state))
        return belowMinOut(`the venue could not fill ${leg.symbol} at the floor's price`);
      if (o.kind === "rejected") return failed(leg, i, state, describe(o), now, save);
      leg.nextAt = step.next.do === "none" ? now : step.next.notBefore;
      save();
      if (o.kind === "config")
        // Never a failure: the leg keeps its phase (a lookup stays a lookup) until the key works again.
        return {
          status: "pending",
          retryAt: leg.nextAt,
          reason: describe(o),
          alert: {
            msg: VENUE_CONFIG_ALERT,
            data: { leg: i + 1, symbol: leg.symbol, client_order_id: leg.clientOrderId, venue: o.error },
          },
        };
      if (leg.nextAt > now) return { status: "pending", retryAt: leg.nextAt, reason: describe(o) };
    }
    if (leg.execution.fills.length === 0 && leg.execution.orderId !== undefined) {
      // Found by lookup: the query answer carries no fills, the trade list does.
      const fills = await deps.venue.trades(leg.symbol, leg.execution.orderId);
      // A filled order has trades; none listed yet means the list lags: its commission must count.
      if (fills.length === 0)
        throw new Error(`no trades listed yet for ${leg.symbol} order ${leg.execution.orderId}`);
      leg.execution = { ...leg.execution, fills };
      save();
    }
  }
  return done(deps, req, state, now);
}

const belowMinOut = (error: string): ExchangeResult => ({
  status: "failed",
  retryable: false,
  error,
  belowMinOut: true,
});

/**
 * What leg `i` must deliver for the payout to reach the order's floor, the later legs at the
 * venue's prices now (src/domain/venue-route.ts, `legTarget`).
 */
async function target(
  deps: VenueExchangeDeps,
  req: ExchangeRequest & { amountToMin: string },
  state: VenueExchangeState,
  i: number,
): Promise<Decimal> {
  const fee = parseDecimal(await deps.withdrawFee(req.coinTo, req.networkTo));
  const later = state.legs.slice(i + 1);
  const prices = [
    ...state.legs.slice(0, i + 1).map(() => new Dec(0)),
    ...(await Promise.all(later.map(async (l) => parseDecimal(await deps.venue.price(l.symbol))))),
  ];
  return legTarget(state.legs, i, prices, deliveryFloor(req, fee));
}

/**
 * A leg the venue will not take. The first leg: nothing has moved, the exchange fails (the deposit
 * is still whole). A later leg: an earlier one has sold the deposit, so the exchange must never
 * fail (a refund would pay the deposit back while the service holds what it was sold for). The leg
 * is put back to be sized and placed again (its refusal left nothing open under its id) every
 * `LEG_RETRY_MS`; the order waits in `exchanging`, alerted on at once and then as a wait.
 */
function failed(
  leg: VenueLeg,
  i: number,
  state: VenueExchangeState,
  error: string,
  now: number,
  save: () => void,
): ExchangeResult {
  const held = state.legs[i - 1];
  if (!held) return { status: "failed", retryable: false, error };
  const first = !leg.blocked;
  leg.state = { phase: "ready" };
  leg.order = null;
  leg.blocked = error;
  leg.nextAt = now + LEG_RETRY_MS;
  save();
  return {
    status: "pending",
    retryAt: leg.nextAt,
    reason: `leg ${i + 1} cannot go now, retried: ${error}`,
    review: true,
    ...(first && {
      alert: {
        msg: "exchange stopped after a filled leg: the order waits in exchanging",
        data: { asset: held.to, leg: i + 1, symbol: leg.symbol, error },
      },
    }),
  };
}

async function done(
  deps: VenueExchangeDeps,
  req: ExchangeRequest,
  state: VenueExchangeState,
  now: number,
): Promise<ExchangeResult> {
  const last = state.legs[state.legs.length - 1];
  if (!last?.execution) throw new Error("venue exchange without a filled last leg");
  const delivered = legDelivered({ ...last.execution, to: last.to });
  const fee =
    req.rateType === "float" ? parseDecimal(await deps.withdrawFee(req.coinTo, req.networkTo)) : new Dec(0);
  const payout = venuePayout(req, parseDecimal(req.amountFrom), delivered, fee);
  // The deposit is sold: a failed exchange would refund it. The operator settles it by hand.
  if (!parseDecimal(payout.amountTo).gt(0))
    return {
      status: "pending",
      retryAt: now + LEG_RETRY_MS,
      reason: `the venue delivered ${toDecimalString(delivered)} ${last.to}: nothing to pay out after the fee`,
      review: true,
      alert: {
        msg: "exchange done but nothing to pay out: needs an operator",
        data: { delivered: toDecimalString(delivered), asset: last.to, withdraw_fee: toDecimalString(fee) },
      },
    };
  const record: Record<string, string | number | null> = {
    venue_legs: state.legs.length,
    venue_delivered: toDecimalString(delivered),
    service_difference: payout.difference,
  };
  for (const [i, leg] of state.legs.entries()) {
    const x = leg.execution;
    if (!x) continue;
    const p = `leg${i + 1}_`;
    const qty = parseDecimal(x.executedQty);
    record[`${p}order`] = `${leg.side} ${leg.symbol} ${leg.clientOrderId}`;
    record[`${p}executed_qty`] = x.executedQty;
    record[`${p}quote_qty`] = x.quoteQty;
    record[`${p}price`] = qty.isZero()
      ? null
      : toDecimalString(toSignificant(parseDecimal(x.quoteQty).div(qty)));
    record[`${p}commission`] = x.fills.length ? commissionSummary(x.fills) : "unknown";
    record[`${p}fills`] = JSON.stringify(
      x.fills.map(({ price, qty, commission, commissionAsset }) => [price, qty, commission, commissionAsset]),
    );
  }
  return { status: "done", amountTo: payout.amountTo, record };
}
