import { backoffMs, CONFIG_RETRY_MS, RETRY_CAP_MS } from "./retry";

/**
 * When a venue leg is placed, looked up, placed again or given up (docs/venue.md).
 * Pure: the order object stores the LegState next to the leg's intent and calls these with each
 * outcome. The venue's client order ids are unique only among OPEN orders (a filled market order's
 * id may be reused), so nothing here ever places again while the venue might hold the first order:
 * a leg whose placement may have reached the venue is looked up by its client order id, and it is
 * placed again (with the same id) only after LOST_AFTER_LOOKUPS not-found answers spread over at
 * least LOST_WINDOW_MS, which covers the venue's own "execution status unknown" (-1007) delay.
 * Lookups that cannot tell (5xx, no answer, an order still open) back off as the payout gateway's
 * do (`backoffMs`, src/domain/retry.ts), from LOOKUP_INTERVAL_MS up to RETRY_CAP_MS.
 */
export const LOOKUP_INTERVAL_MS = 10_000;
export const LOST_AFTER_LOOKUPS = 3;
export const LOST_WINDOW_MS = 60_000;

/** A venue answer, as the adapter classifies it (src/adapters/exchange/types.ts). */
export type LegOutcome =
  | { kind: "filled" }
  | { kind: "pending" }
  | { kind: "not_found" }
  | { kind: "rejected"; reason: "filter" | "insufficient_balance" | "expired" | "other" }
  | { kind: "rate_limited"; retryAfterSeconds: number }
  | { kind: "clock_skew" }
  | { kind: "config" }
  | { kind: "unknown" };

export type LegState =
  /** Intent stored; nothing was sent. */
  | { phase: "ready" }
  /** A placement may be on the wire. Stored BEFORE the request, so an eviction reads as uncertain. */
  | { phase: "sending" }
  /**
   * The venue may or may not hold the order: only lookups until it is found or declared lost.
   * `unknown`: lookups in a row that could not tell (absent on legs stored before it was kept).
   */
  | { phase: "uncertain"; notFound: number; firstNotFoundAt: number | null; unknown?: number }
  | { phase: "filled" }
  | { phase: "rejected"; reason: "filter" | "insufficient_balance" | "expired" | "other" };

export type LegAction = { do: "place" | "lookup"; notBefore: number } | { do: "none" };

export interface LegStep {
  state: LegState;
  next: LegAction;
}

type Uncertain = Extract<LegState, { phase: "uncertain" }>;
const UNCERTAIN: Uncertain = { phase: "uncertain", notFound: 0, firstNotFoundAt: null };

/** What to do with a leg in this state (also after the object restarts with it). */
export function legAction(state: LegState, now: number): LegAction {
  switch (state.phase) {
    case "ready":
      return { do: "place", notBefore: now };
    case "sending":
    case "uncertain":
      return { do: "lookup", notBefore: now };
    default:
      return { do: "none" };
  }
}

/** After a placement request: a definite answer settles it; anything ambiguous is looked up. */
export function afterPlace(outcome: LegOutcome, now: number): LegStep {
  switch (outcome.kind) {
    case "filled":
      return { state: { phase: "filled" }, next: { do: "none" } };
    case "rejected":
      return { state: { phase: "rejected", reason: outcome.reason }, next: { do: "none" } };
    // Both are refused before the matching engine: nothing was placed, so placing again is safe.
    case "rate_limited":
      return {
        state: { phase: "ready" },
        next: { do: "place", notBefore: now + outcome.retryAfterSeconds * 1000 },
      };
    case "clock_skew":
      return { state: { phase: "ready" }, next: { do: "place", notBefore: now } };
    // Our key or signature refused: the venue never read the order. Placed again once the operator fixed it.
    case "config":
      return { state: { phase: "ready" }, next: { do: "place", notBefore: now + CONFIG_RETRY_MS } };
    // Accepted but not yet done (pending), or no answer we can trust (timeout, 5xx, -1007).
    default:
      return { state: UNCERTAIN, next: { do: "lookup", notBefore: now + LOOKUP_INTERVAL_MS } };
  }
}

/** After a lookup by client order id of a leg in the sending or uncertain phase. */
export function afterLookup(state: LegState, outcome: LegOutcome, now: number): LegStep {
  const current: Uncertain = state.phase === "uncertain" ? state : UNCERTAIN;
  switch (outcome.kind) {
    case "filled":
      return { state: { phase: "filled" }, next: { do: "none" } };
    case "rejected":
      return { state: { phase: "rejected", reason: outcome.reason }, next: { do: "none" } };
    case "not_found": {
      const notFound = current.notFound + 1;
      const firstNotFoundAt = current.firstNotFoundAt ?? now;
      if (notFound >= LOST_AFTER_LOOKUPS && now - firstNotFoundAt >= LOST_WINDOW_MS)
        return { state: { phase: "ready" }, next: { do: "place", notBefore: now } };
      // An answer, so the backoff starts again; the lost-leg window keeps its pace.
      return {
        state: { phase: "uncertain", notFound, firstNotFoundAt, unknown: 0 },
        next: { do: "lookup", notBefore: now + LOOKUP_INTERVAL_MS },
      };
    }
    case "rate_limited":
      return { state: current, next: { do: "lookup", notBefore: now + outcome.retryAfterSeconds * 1000 } };
    case "config":
      return { state: current, next: { do: "lookup", notBefore: now + CONFIG_RETRY_MS } };
    // pending, clock_skew (resynced by the adapter), unknown: look again later, backing off on the
    // lookups in a row that could not tell; the count of not-found answers is kept, so one flaky
    // lookup does not restart the window.
    default: {
      const unknown = (current.unknown ?? 0) + 1;
      return {
        state: { ...current, unknown },
        next: { do: "lookup", notBefore: now + backoffMs(unknown, LOOKUP_INTERVAL_MS, RETRY_CAP_MS) },
      };
    }
  }
}

/** A leg the exchange has waited on this long alerts the operator (and puts the order in review). */
export const WAIT_ALERT_AFTER_MS = 15 * 60_000;
/** The longest gap between two reminders of one wait. */
export const WAIT_ALERT_CAP_MS = 24 * 60 * 60_000;

/**
 * When a leg waiting since `since`, already alerted on `alerts` times, alerts next: at 15 min, then
 * after gaps of 15, 30, 60 min … (doubling, at most a day), so a wait that lasts is never silent
 * and never floods. The exchange is stepped then at the latest, however far its lookups backed off.
 */
export function waitAlertAt(since: number, alerts: number): number {
  let due = since + WAIT_ALERT_AFTER_MS;
  for (let n = 0; n < alerts; n++) due += Math.min(WAIT_ALERT_AFTER_MS * 2 ** n, WAIT_ALERT_CAP_MS);
  return due;
}
