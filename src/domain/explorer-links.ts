// Which explorer page, if any, shows an order's addresses and transactions (the cabinet's order
// page, docs/cabinet.md). A link must show the thing itself: a simulated txid has no page anywhere,
// and a test order's testnet deposit address belongs on a testnet explorer, not a mainnet one.

import { networkFacts } from "./networks";

/** A catalog row's explorer URL templates (`{txid}`, `{address}`), mainnet explorers. */
export interface ExplorerTemplates {
  tx: string | null;
  address: string | null;
}

export interface LinkedOrder {
  livemode: boolean;
  network_from: string;
  deposit_address: string | null;
  recipient_address: string | null;
  deposit_txid: string | null;
  payout_txid: string | null;
  refund_txid: string | null;
}

export type ExplorerLinks = Record<
  "deposit_address" | "recipient_address" | "deposit_txid" | "payout_txid" | "refund_txid",
  string | null
>;

/** Where a live order's transactions come from: simulated ones have no explorer page. */
export interface LiveWorld {
  /** The deposit network's chain is SimChain (CHAIN_MODE). */
  depositChainSimulated: boolean;
  /** Payouts and refunds go through the simulated gateway (PAYOUT_MODE). */
  payoutsSimulated: boolean;
}

const fill = (template: string | null | undefined, key: "txid" | "address", value: string | null) =>
  template && value ? template.replace(`{${key}}`, encodeURIComponent(value)) : null;

/**
 * The links of one order. A live order: the catalog's explorers, except for transactions of a
 * simulated chain or gateway. A test order: its txids are all simulated (its own SimChain) and its
 * recipient is never paid, so only the deposit address, on its network's testnet explorer
 * (src/domain/networks.ts; none where no testnet explorer is relied on).
 */
export function explorerLinks(
  o: LinkedOrder,
  from: ExplorerTemplates | undefined,
  to: ExplorerTemplates | undefined,
  world: LiveWorld,
): ExplorerLinks {
  if (!o.livemode)
    return {
      deposit_address: fill(
        networkFacts(o.network_from)?.testnet.addressExplorer,
        "address",
        o.deposit_address,
      ),
      recipient_address: null,
      deposit_txid: null,
      payout_txid: null,
      refund_txid: null,
    };
  return {
    deposit_address: fill(from?.address, "address", o.deposit_address),
    recipient_address: fill(to?.address, "address", o.recipient_address),
    deposit_txid: world.depositChainSimulated ? null : fill(from?.tx, "txid", o.deposit_txid),
    payout_txid: world.payoutsSimulated ? null : fill(to?.tx, "txid", o.payout_txid),
    refund_txid: world.payoutsSimulated ? null : fill(from?.tx, "txid", o.refund_txid),
  };
}
