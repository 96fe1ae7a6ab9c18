import type { PayoutRequest } from "../../adapters/payout/types";
import { extraRefundKey } from "../../domain/ledger-keys";
import type { SendsLedger } from "./sends-ledger";

/** The order's storage key of its extra deposits, as "txid:index". */
export const EXTRAS_KEY = "extra_deposits";
/** The ledger keys of each extra deposit's refunds, oldest first: `{ "txid:index": [key, …] }`. */
const REFUND_KEYS = "extra_refund_keys";

/** The log reason of an extra deposit, with `{txid, index, amount}` (the record of its amount). */
export const EXTRA_DEPOSIT_LOGGED = "extra deposit to this address: its refund is offered in actions";

export interface ExtraDeposit {
  txid: string;
  index: number;
  /** As received (decimal string). */
  amount: string;
}

export type ExtraRefundState =
  | { state: "awaiting"; refundFailed: boolean }
  | { state: "refunding"; key: string }
  | { state: "refunded"; key: string; txid: string | null };

export const depositId = (d: Pick<ExtraDeposit, "txid" | "index">) => `${d.txid}:${d.index}`;

/**
 * An order's extra deposits: transfers to its address beyond the one it runs on (docs/lifecycle.md,
 * "Extra deposits"). Each is refunded on its own decision, exactly once, through the order's sends
 * ledger under a key of its own (`<order id>:extra:<txid>:<index>`, `…:2` after a refused one).
 * Amounts come from the event log rows that recorded the deposits.
 */
export class ExtraDeposits {
  constructor(
    private readonly kv: SyncKvStorage,
    private readonly sql: SqlStorage,
    private readonly ledger: SendsLedger,
  ) {}

  /** The extra deposits, as "txid:index". */
  ids(): Set<string> {
    return new Set(this.kv.get<string[]>(EXTRAS_KEY) ?? []);
  }

  /** Every extra deposit with its amount, in the order they were logged. */
  list(): ExtraDeposit[] {
    const ids = this.ids();
    if (ids.size === 0) return [];
    const seen = new Map<string, ExtraDeposit>();
    const rows = this.sql
      .exec<{ data: string }>(
        "SELECT data FROM events WHERE reason = ? AND data IS NOT NULL ORDER BY seq",
        EXTRA_DEPOSIT_LOGGED,
      )
      .toArray();
    for (const { data } of rows) {
      const d = JSON.parse(data) as ExtraDeposit;
      if (ids.has(depositId(d)) && !seen.has(depositId(d)))
        seen.set(depositId(d), { txid: d.txid, index: d.index, amount: d.amount });
    }
    return [...seen.values()];
  }

  /** Where the deposit's refund stands: waiting for a decision, under way, or done. */
  state(id: string): ExtraRefundState {
    const key = this.#keys()[id]?.at(-1);
    const row = key ? this.ledger.get(key) : null;
    if (!key || !row) return { state: "awaiting", refundFailed: false };
    if (row.outcome === null) return { state: "refunding", key };
    if (row.outcome === "sent") return { state: "refunded", key, txid: row.txid };
    return { state: "awaiting", refundFailed: true };
  }

  /** The extra deposits whose refund waits for a decision. */
  awaiting(): (ExtraDeposit & { refundFailed: boolean })[] {
    return this.list().flatMap((d) => {
      const s = this.state(depositId(d));
      return s.state === "awaiting" ? [{ ...d, refundFailed: s.refundFailed }] : [];
    });
  }

  /**
   * Freezes the decided refund in the ledger under a new key; the caller has just seen the deposit
   * awaiting (with no await since), so this runs once per decision.
   */
  startRefund(orderId: string, d: ExtraDeposit, request: Omit<PayoutRequest, "idempotencyKey">, at: string) {
    const id = depositId(d);
    const keys = this.#keys();
    const earlier = keys[id] ?? [];
    const key = extraRefundKey(orderId, id, earlier.length + 1);
    this.ledger.put(
      {
        key,
        kind: "extra_refund",
        request: { ...request, idempotencyKey: key } satisfies PayoutRequest,
        attempts: 0,
        failures: 0,
        unknownLookups: 0,
        nextAt: 0,
      },
      at,
    );
    this.kv.put(REFUND_KEYS, { ...keys, [id]: [...earlier, key] });
    return key;
  }

  /** The deposit a refund's ledger key belongs to. */
  depositOf(key: string): string | null {
    return Object.entries(this.#keys()).find(([, ks]) => ks.includes(key))?.[0] ?? null;
  }

  #keys(): Record<string, string[]> {
    return this.kv.get<Record<string, string[]>>(REFUND_KEYS) ?? {};
  }
}
