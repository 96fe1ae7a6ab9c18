import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getConfig } from "../../../src/config";
import { watchMemoAddresses } from "../../../src/services/unclaimed-deposits";
import page from "../../fixtures/chain/rippled-account-tx-p2.json";
import { createPartner, setPrices, type TestPartner } from "../../helpers";
import { createMockNetwork } from "../../support/msw";
import { createOrder, TRON_ADDR, XRP_ADDR } from "../../support/orders";

describe("unclaimed deposits", () => {
  const RPC = "https://rippled.test/";
  const SENDER = "rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe";
  let partner: TestPartner;

  beforeAll(async () => {
    partner = await createPartner({ name: "unclaimed", rate_limit_per_minute: 100_000 });
    await setPrices();
  });

  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  describe("the memo address watch", () => {
    it("records and logs once each confirmed deposit whose tag matches no order; the order's own is left alone", async () => {
      const order = await createOrder(partner, {
        coin_from: "XRP",
        network_from: "XRP",
        coin_to: "USDT",
        network_to: "TRX",
        amount_from: 100,
        rate_type: "float",
        recipient_address: TRON_ADDR,
      });
      const template = page.result.transactions[1]!;
      const payment = (n: number, tag: number | undefined, validated = true) => {
        const { DestinationTag: _, ...tx } = template.tx_json;
        return {
          ...template,
          hash: String(n).padStart(64, "A"),
          validated,
          tx_json: { ...tx, Destination: XRP_ADDR, ...(tag === undefined ? {} : { DestinationTag: tag }) },
        };
      };
      const transactions = [
        payment(1, Number(order.deposit_address_tag)),
        payment(2, 4_000_000_000),
        payment(3, undefined),
        payment(4, 4_000_000_001, false),
      ];
      const net = createMockNetwork(
        http.post(RPC, () =>
          HttpResponse.json({ result: { ...page.result, transactions, status: "success" } }),
        ),
      );
      vi.stubGlobal("fetch", net.fetch);
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const config = getConfig({
        ...env,
        CHAIN_MODE: "XRP:rippled,*:simulated",
        CHAIN_URL_XRP: RPC,
      } as unknown as Env);

      expect(await watchMemoAddresses(env, config, Date.now())).toBe(2);
      expect(await watchMemoAddresses(env, config, Date.now())).toBe(0);
      const { results } = await env.DB.prepare(
        "SELECT network, txid, tag, amount, sender FROM unclaimed_deposits ORDER BY txid",
      ).all();
      expect(results).toEqual([
        {
          network: "XRP",
          txid: String(2).padStart(64, "A"),
          tag: "4000000000",
          amount: "12",
          sender: SENDER,
        },
        { network: "XRP", txid: String(3).padStart(64, "A"), tag: null, amount: "12", sender: SENDER },
      ]);
      expect(warn).toHaveBeenCalledTimes(2);
      expect(JSON.parse(String(warn.mock.calls[0]![0]))).toMatchObject({
        level: "warn",
        network: "XRP",
        tag: "4000000000",
        sender: SENDER,
      });
      expect(net.unhandled).toEqual([]);
    });

    it("does nothing for simulated networks; a failing provider is logged, not thrown", async () => {
      const net = createMockNetwork(http.post(RPC, () => new HttpResponse(null, { status: 503 })));
      vi.stubGlobal("fetch", net.fetch);
      const error = vi.spyOn(console, "error").mockImplementation(() => {});
      expect(await watchMemoAddresses(env, getConfig({ ...env } as Env), Date.now())).toBe(0);
      expect(net.requests).toEqual([]);
      const config = getConfig({ ...env, CHAIN_MODE: "XRP:rippled", CHAIN_URL_XRP: RPC } as unknown as Env);
      expect(await watchMemoAddresses(env, config, Date.now())).toBe(0);
      expect(error).toHaveBeenCalledWith(expect.stringContaining("memo address watch failed"));
    });
  });
});
