/**
 * The pure decisions of watching an order's deposit address (the order object's deposit tracker,
 * src/objects/deposit-tracker.ts, reads the chain and applies them): what a listing means while
 * the order waits, how far its deposit has confirmed, which transfers are new extra deposits, and
 * when to read the chain next.
 */

/** What a listing needs of a transfer here. */
export interface ListedTransfer {
  txid: string;
  index: number;
  amount: string;
  blockHeight: number | null;
}

export const transferId = (t: Pick<ListedTransfer, "txid" | "index">) => `${t.txid}:${t.index}`;

/** Polls in a row that changed nothing double the interval, up to 2^MAX_POLL_BACKOFF (8×). */
export const MAX_POLL_BACKOFF = 3;

/**
 * The next chain read: at the base interval after a change, further apart while nothing happens,
 * never sooner than `minMs` (the late watches read at most once a minute).
 */
export function nextPoll(
  now: number,
  idleBefore: number,
  changed: boolean,
  baseMs: number,
  minMs = 0,
): { idle: number; at: number } {
  const idle = changed ? 0 : idleBefore + 1;
  return { idle, at: now + Math.max(minMs, baseMs * 2 ** Math.min(idle, MAX_POLL_BACKOFF)) };
}

/** Earliest first: confirmed by height, then the mempool; the first deposit drives the order. */
export function byArrival<T extends ListedTransfer>(transfers: readonly T[]): T[] {
  return [...transfers].sort(
    (a, b) =>
      (a.blockHeight ?? Number.MAX_SAFE_INTEGER) - (b.blockHeight ?? Number.MAX_SAFE_INTEGER) ||
      a.txid.localeCompare(b.txid) ||
      a.index - b.index,
  );
}

export type WaitingStep<T> =
  | { kind: "nothing"; expire: boolean }
  /** First seen so long after the deadline that nobody can tell when it was sent: handled as late. */
  | { kind: "late"; deposit: T }
  | { kind: "seen"; deposit: T };

/**
 * An order waiting for its deposit, given the listing (earliest first): the first transfer drives
 * it; with none, it expires once the deadline has passed.
 */
export function waitingStep<T extends ListedTransfer>(
  transfers: readonly T[],
  now: number,
  expiresAt: number,
  onTimeGraceMs: number,
): WaitingStep<T> {
  const [first] = transfers;
  if (!first) return { kind: "nothing", expire: now >= expiresAt };
  return now > expiresAt + onTimeGraceMs
    ? { kind: "late", deposit: first }
    : { kind: "seen", deposit: first };
}

export type ConfirmStep =
  | { kind: "confirming"; confirmations: number; changed: boolean }
  | { kind: "confirmed"; confirmations: number };

/** How far the order's deposit has got, with `confirmations` as the chain counts them now. */
export function confirmStep(confirmations: number, required: number, recorded: number | null): ConfirmStep {
  return confirmations < required
    ? { kind: "confirming", confirmations, changed: confirmations !== recorded }
    : { kind: "confirmed", confirmations };
}

/**
 * The transfers in a listing that are neither the order's deposit (`driving`) nor logged already:
 * new extra deposits, to log once each.
 */
export function freshExtras<T extends ListedTransfer>(
  transfers: readonly T[],
  driving: Pick<ListedTransfer, "txid" | "index"> | null,
  logged: ReadonlySet<string>,
): T[] {
  return transfers.filter(
    (t) => !(driving && t.txid === driving.txid && t.index === driving.index) && !logged.has(transferId(t)),
  );
}

/** The listed transfers other than `ours` with the confirmations an order needs: candidates to drive it. */
export function confirmedOthers<T extends ListedTransfer>(
  transfers: readonly T[],
  ours: Pick<ListedTransfer, "txid" | "index">,
  confirmationsOf: (t: T) => number,
  required: number,
): T[] {
  return transfers.filter(
    (t) => !(t.txid === ours.txid && t.index === ours.index) && confirmationsOf(t) >= required,
  );
}
