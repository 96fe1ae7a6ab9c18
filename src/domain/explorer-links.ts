// Which explorer page, if any, shows an order's addresses and transactions (the cabinet's order
// page, docs/cabinet.md). A link must show the thing itself: a simulated txid has no page anywhere,
// and a test order's testnet deposit address belongs on a testnet explorer, not a mainnet one.

/** A catalog row's explorer URL templates (`{txid}`, `{address}`), mainnet explorers. */
export interface ExplorerTemplates {
  tx: string | null;
  address: string | null;
}

/**
 * Testnet explorers for the test deposit addresses (docs/test-mode.md): BTC's are Bitcoin testnet
 * addresses (tb1…), shown on testnet4, the current public testnet; the EVM and TRON test
 * addresses on Sepolia, BSC testnet and Nile. LTC and DOGE testnet addresses have no explorer we
 * rely on, and the memo networks' test addresses are whatever the operator set: no link.
 */
export const TESTNET_ADDRESS_EXPLORERS: Readonly<Record<string, string>> = Object.freeze({
  BTC: "https://mempool.space/testnet4/address/{address}",
  ETH: "https://sepolia.etherscan.io/address/{address}",
  BSC: "https://testnet.bscscan.com/address/{address}",
  TRX: "https://nile.tronscan.org/#/address/{address}",
});

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
 * recipient is never paid, so only the deposit address, on its network's testnet explorer.
 */
export function explorerLinks(
  o: LinkedOrder,
  from: ExplorerTemplates | undefined,
  to: ExplorerTemplates | undefined,
  world: LiveWorld,
): ExplorerLinks {
  if (!o.livemode)
    return {
      deposit_address: fill(TESTNET_ADDRESS_EXPLORERS[o.network_from], "address", o.deposit_address),
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
