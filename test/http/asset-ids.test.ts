/**
 * Identity that spans ecosystems (issue 43 §3, docs/networks.md "Chain-agnostic ids"): every
 * currency carries its CAIP-2 and CAIP-19 ids, and quotes and orders take a CAIP-19 id in place of
 * network and token, with the same errors as token_*.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, createPartner, expectError, json, setPrices, type TestPartner } from "../helpers";
import { BTC_REFUND, postOrder, TRON_ADDR } from "../support/orders";

interface Currency {
  coin: string;
  network: string;
  contract_address: string | null;
  caip2: string | null;
  caip19: string | null;
}

const USDT_BSC = "0x55d398326f99059fF775485246999027B3197955";
const USDT_BSC_ID = `eip155:56/erc20:${USDT_BSC}`;
const rates = (query: string) => call(`/api/v1/partner/rates?${query}`);

describe("CAIP-2 / CAIP-19 asset ids", () => {
  let partner: TestPartner;
  beforeAll(async () => {
    await setPrices();
    partner = await createPartner({ name: "caip", rate_limit_per_minute: 100_000 });
  });

  it("every currency names its chain and asset: slip44 for native coins, the token namespace and contract for tokens", async () => {
    const list = await json<Currency[]>(await call("/api/v1/currencies"));
    const ids = Object.fromEntries(list.map((c) => [`${c.coin}/${c.network}`, [c.caip2, c.caip19]]));
    expect(ids).toMatchObject({
      "BTC/BTC": [
        "bip122:000000000019d6689c085ae165831e93",
        "bip122:000000000019d6689c085ae165831e93/slip44:0",
      ],
      "ETH/ETH": ["eip155:1", "eip155:1/slip44:60"],
      "BNB/BSC": ["eip155:56", "eip155:56/slip44:714"],
      "USDT/BSC": ["eip155:56", USDT_BSC_ID],
      "USDC/ETH": ["eip155:1", "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"],
      "USDT/TRX": ["tron:0x2b6653dc", `tron:0x2b6653dc/trc20:${TRON_ADDR}`],
      "USDC/SOL": [
        "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
        "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
      ],
      "LTC/LTC": [
        "bip122:12a765e31ffd4059bada1e25190f6e98",
        "bip122:12a765e31ffd4059bada1e25190f6e98/slip44:2",
      ],
      "DOGE/DOGE": [
        "bip122:1a91e3dace36e2be3bf030a65679fe82",
        "bip122:1a91e3dace36e2be3bf030a65679fe82/slip44:3",
      ],
      "XRP/XRP": ["xrpl:0", "xrpl:0/slip44:144"],
      "XLM/XLM": ["stellar:pubnet", "stellar:pubnet/slip44:148"],
      "TON/TON": ["tvm:-239", "tvm:-239/slip44:607"],
      "DASH/DASH": [null, null],
    });
  });

  it("a quote by CAIP-19 id is the quote by ticker, on both sides", async () => {
    const byTicker = await json<{ amount_to: number }>(
      await rates("coin_from=USDT&network_from=BSC&coin_to=BTC&amount=100"),
    );
    const res = await rates(
      `asset_from=${encodeURIComponent(USDT_BSC_ID.toLowerCase())}&asset_to=${encodeURIComponent("bip122:000000000019d6689c085ae165831e93/slip44:0")}&amount=100`,
    );
    expect(res.status).toBe(200);
    const q = await json<{ coin_from: string; network_from: string; coin_to: string; amount_to: number }>(
      res,
    );
    expect(q).toMatchObject({
      coin_from: "USDT",
      network_from: "BSC",
      coin_to: "BTC",
      amount_to: byTicker.amount_to,
    });
    // What else the side names must agree: the same network, chain id, token and ticker are fine.
    const agreeing = await rates(
      `asset_from=${encodeURIComponent(USDT_BSC_ID)}&network_from=BSC&chain_id_from=56&token_from=${USDT_BSC.toLowerCase()}&coin_from=USDT&coin_to=BTC&amount=100`,
    );
    expect(agreeing.status).toBe(200);
  });

  it("a CAIP-19 id contradicted by the rest of its side → 422 asset_mismatch; one naming nothing offered → 422 unsupported_asset", async () => {
    const id = encodeURIComponent(USDT_BSC_ID);
    for (const other of [
      "coin_from=USDC",
      "network_from=ETH",
      "chain_id_from=1",
      "token_from=0x0000000000000000000000000000000000000001",
    ]) {
      const e = await expectError(
        await rates(`asset_from=${id}&${other}&coin_to=BTC&amount=100`),
        422,
        "asset_mismatch",
      );
      expect(e.errors).toEqual([expect.objectContaining({ code: "asset_mismatch", side: "from" })]);
    }
    for (const unknown of [
      "eip155:56/erc20:0x0000000000000000000000000000000000000001", // no such token offered
      "eip155:11155111/slip44:60", // a chain not offered
      "eip155:56/slip44:60", // not BSC's gas coin
      "eip155:56/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", // not an EVM token namespace
      "USDT", // not a CAIP-19 id
    ]) {
      const e = await expectError(
        await rates(`asset_from=${encodeURIComponent(unknown)}&coin_to=BTC&amount=100`),
        422,
        "unsupported_asset",
      );
      expect(e.errors, unknown).toEqual([
        expect.objectContaining({ code: "unsupported_asset", side: "from" }),
      ]);
    }
  });

  it("an order by CAIP-19 ids is created on the resolved assets, and needs no network", async () => {
    const res = await postOrder(partner, {
      asset_from: USDT_BSC_ID,
      asset_to: "bip122:000000000019d6689c085ae165831e93/slip44:0",
      amount_from: "100",
      rate_type: "float",
      recipient_address: BTC_REFUND,
    });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({
      coin_from: "USDT",
      network_from: "BSC",
      coin_to: "BTC",
      network_to: "BTC",
    });
    const mismatch = await postOrder(partner, {
      asset_from: USDT_BSC_ID,
      network_from: "TRX",
      asset_to: "bip122:000000000019d6689c085ae165831e93/slip44:0",
      amount_from: "100",
      rate_type: "float",
      recipient_address: BTC_REFUND,
    });
    await expectError(mismatch, 422, "asset_mismatch");
  });
});
