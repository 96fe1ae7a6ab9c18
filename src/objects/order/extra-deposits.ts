import type { PayoutRequest } from "../../adapters/payout/types";
import { extraRefundKey } from "../../domain/ledger-keys";
import type { SiblingAsset } from "../../domain/wrong-network";
import type { SendsLedger } from "./sends-ledger";

/** The order's storage key of its extra deposits, as "txid:index". */
export const EXTRAS_KEY = "extra_deposits";
/** The order's storage key of its wrong-network deposits, as "NETWORK:txid:index". */
const WRONG_KEY = "wrong_network_deposits";
/** The ledger keys of each extra deposit's refunds, oldest first: `{ "txid:index": [key, …] }`. */
const REFUND_KEYS = "extra_refund_keys";

/** The log reason of an extra deposit, with `{txid, index, amount}` (the record of its amount). */
export const EXTRA_DEPOSIT_LOGGED = "extra deposit to this address: its refund is offered in actions";
/** The log reason of a wrong-network deposit, with `wrongNetworkLogData`'s fields. */
export const WRONG_NETWORK_LOGGED =
  "deposit to this address on another network: not credited, its refund on that network is offered in actions";

/** A wrong-network deposit's log data: its transfer and, flat, the asset and chain it arrived as. */
export const wrongNetworkLogData = (d: ExtraDeposit & { arrival: SiblingAsset }) => ({
  txid: d.txid,
  index: d.index,
  amount: d.amount,
  ...d.arrival,
});

export interface ExtraDeposit {
  txid: string;
  index: number;
  /** As received (decimal string). */
  amount: string;
  /** A wrong-network deposit's asset and chain (src/domain/wrong-network.ts); absent on the order's own chain. */
  arrival?: SiblingAsset;
}

export type ExtraRefundState =
  | { state: "awaiting"; refundFailed: boolean }
  | { state: "refunding"; key: string }
  | { state: "refunded"; key: string; txid: string | null };

/** "txid:index"; a wrong-network deposit's is prefixed with its network: "BASE:txid:index". */
export const depositId = (d: { txid: string; index: number; arrival?: { network: string } | undefined }) =>
  d.arrival ? `${d.arrival.network}:${d.txid}:${d.index}` : `${d.txid}:${d.index}`;

/**
 * An order's extra deposits: transfers to its address beyond the one it runs on (docs/lifecycle.md,
 * "Extra deposits"), and those that reached its address on another EVM network ("Deposits on
 * another EVM network"). Each is refunded on its own decision, exactly once, through the order's sends
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

  /** The wrong-network deposits, as "NETWORK:txid:index". */
  wrongNetworkIds(): Set<string> {
    return new Set(this.kv.get<string[]>(WRONG_KEY) ?? []);
  }

  /** Records a wrong-network deposit; the caller logs it under WRONG_NETWORK_LOGGED in the same run. */
  addWrongNetwork(d: ExtraDeposit): void {
    this.kv.put(WRONG_KEY, [...this.wrongNetworkIds(), depositId(d)]);
  }

  /** Every extra and wrong-network deposit with its amount, in the order they were logged. */
  list(): ExtraDeposit[] {
    const ids = new Set([...this.ids(), ...this.wrongNetworkIds()]);
    if (ids.size === 0) return [];
    const seen = new Map<string, ExtraDeposit>();
    const rows = this.sql
      .exec<{ data: string }>(
        "SELECT data FROM events WHERE reason IN (?, ?) AND data IS NOT NULL ORDER BY seq",
        EXTRA_DEPOSIT_LOGGED,
        WRONG_NETWORK_LOGGED,
      )
      .toArray();
    for (const { data } of rows) {
      const row = JSON.parse(data) as ExtraDeposit & Partial<SiblingAsset>;
      const { txid, index, amount, coin, network, contract, decimals, confirmations } = row;
      const arrival =
        network !== undefined && coin !== undefined && decimals !== undefined && confirmations !== undefined
          ? { coin, network, contract: contract ?? null, decimals, confirmations }
          : undefined;
      const d: ExtraDeposit = { txid, index, amount, ...(arrival && { arrival }) };
      if (ids.has(depositId(d)) && !seen.has(depositId(d))) seen.set(depositId(d), d);
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
