import { describe, expect, it } from "vitest";
import { type ExplorerTemplates, explorerLinks, type LinkedOrder } from "../../src/domain/explorer-links";

const BTC: ExplorerTemplates = {
  tx: "https://mempool.space/tx/{txid}",
  address: "https://mempool.space/address/{address}",
};
const TRON: ExplorerTemplates = {
  tx: "https://tronscan.org/#/transaction/{txid}",
  address: "https://tronscan.org/#/address/{address}",
};
const REAL = { depositChainSimulated: false, payoutsSimulated: false };

const order = (o: Partial<LinkedOrder>): LinkedOrder => ({
  livemode: true,
  network_from: "BTC",
  deposit_address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
  recipient_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  deposit_txid: "aa".repeat(32),
  payout_txid: "bb".repeat(32),
  refund_txid: "cc".repeat(32),
  ...o,
});

describe("explorerLinks", () => {
  it("a live order on real chains: the catalog's mainnet explorers, both sides", () => {
    expect(explorerLinks(order({}), BTC, TRON, REAL)).toEqual({
      deposit_address: "https://mempool.space/address/bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
      recipient_address: "https://tronscan.org/#/address/TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      deposit_txid: `https://mempool.space/tx/${"aa".repeat(32)}`,
      payout_txid: `https://tronscan.org/#/transaction/${"bb".repeat(32)}`,
      refund_txid: `https://mempool.space/tx/${"cc".repeat(32)}`,
    });
  });

  it("a live order's simulated transactions have no link; its addresses keep theirs", () => {
    const links = explorerLinks(order({}), BTC, TRON, {
      depositChainSimulated: true,
      payoutsSimulated: true,
    });
    expect(links.deposit_txid).toBeNull();
    expect(links.payout_txid).toBeNull();
    expect(links.refund_txid).toBeNull();
    expect(links.deposit_address).toMatch(/^https:\/\/mempool\.space\/address\//);
    const chainOnly = explorerLinks(order({}), BTC, TRON, {
      depositChainSimulated: true,
      payoutsSimulated: false,
    });
    expect(chainOnly.deposit_txid).toBeNull();
    expect(chainOnly.payout_txid).toMatch(/^https:\/\/tronscan\.org\//);
  });

  it("a test order: the deposit address on its testnet explorer, no txid and no recipient link, whatever the modes", () => {
    const test = order({ livemode: false, deposit_address: "tb1q4gshxmvgjqh4t583c6733c360q8k6p8qz3evwl" });
    expect(explorerLinks(test, BTC, TRON, REAL)).toEqual({
      deposit_address: "https://mempool.space/testnet4/address/tb1q4gshxmvgjqh4t583c6733c360q8k6p8qz3evwl",
      recipient_address: null,
      deposit_txid: null,
      payout_txid: null,
      refund_txid: null,
    });
    const eth = order({
      livemode: false,
      network_from: "ETH",
      deposit_address: "0x52908400098527886E0F7030069857D2E4169EE7",
    });
    expect(explorerLinks(eth, undefined, TRON, REAL).deposit_address).toBe(
      "https://sepolia.etherscan.io/address/0x52908400098527886E0F7030069857D2E4169EE7",
    );
    const trx = order({
      livemode: false,
      network_from: "TRX",
      deposit_address: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7",
    });
    expect(explorerLinks(trx, TRON, TRON, REAL).deposit_address).toBe(
      "https://nile.tronscan.org/#/address/TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7",
    );
  });

  it("a test order on a network without a testnet explorer we rely on: no link at all", () => {
    const ltc = order({ livemode: false, network_from: "LTC", deposit_address: "tltc1qexample" });
    expect(explorerLinks(ltc, BTC, TRON, REAL).deposit_address).toBeNull();
  });

  it("no template or no value: no link", () => {
    const links = explorerLinks(order({ deposit_txid: null }), undefined, { tx: null, address: null }, REAL);
    expect(Object.values(links)).toEqual([null, null, null, null, null]);
  });
});
