/**
 * When the order asks an outside service again (docs/lifecycle.md): the payout gateway's sends and
 * lookups and the venue's lookups back off on the same curve, and our own credentials refused is
 * retried on its own clock, apart from that backoff.
 */

/** The longest wait between two tries of a send, or two lookups of one. */
export const RETRY_CAP_MS = 30 * 60_000;

/**
 * After our credentials were refused (the venue's key or the payout gateway's secret), or the
 * venue adapter could not be built: the same step again this much later. Only an operator's fix
 * ends it, and the order should go on within a minute of it; it counts towards nothing.
 */
export const CONFIG_RETRY_MS = 60_000;

/** Exponential backoff for retries: base × 2^(attempt−1), capped. */
export function backoffMs(attempt: number, baseMs: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
}
