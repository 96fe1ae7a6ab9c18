/**
 * Payouts that cannot land are refused up front (issue 28 §7, docs/integrate.md "Recipient
 * activation"): with a real reader configured for the payout network, POST /partner/orders asks the
 * provider whether the recipient account exists (answered here by MSW with the providers' own
 * shapes), refuses 422 recipient_not_activated below the activation minimum, and otherwise records
 * the operation the payout needs, which the payout request to the gateway then carries.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { admin, createPartner, expectError, freshIp, json, setPrices, type TestPartner } from "../../helpers";
import { useFakeGateway } from "../../support/fake-gateway";
import { createMockNetwork, type MockNetwork } from "../../support/msw";
import { read, simMine, simSend, step } from "../../support/orders";
import { postToWorker } from "../../support/worker-post";

describe("recipient-activation", () => {
  const RIPPLED = "https://rippled.test/";
  const HORIZON = "https://horizon.test";
  const TONCENTER = "https://toncenter.test/api/v3";

  /** Live modes that agree (guard rails: a public cabinet origin too), real readers for XRP, XLM and TON, non-dev deposit accounts. */
  const LIVE_REAL = {
    PAYOUT_MODE: "http",
    PAYOUT_GATEWAY_URL: "https://signer.test",
    PAYOUT_GATEWAY_SECRET: "s",
    EXCHANGE_MODE: "binance",
    EXCHANGE_URL: "https://venue.test",
    EXCHANGE_API_KEY: "k",
    EXCHANGE_API_SECRET: "s",
    CABINET_ORIGIN: "https://api.example.test",
    CHAIN_MODE: "XRP:rippled,XLM:horizon,TON:toncenter,*:simulated",
    CHAIN_URL_XRP: RIPPLED,
    CHAIN_URL_XLM: HORIZON,
    CHAIN_URL_TON: TONCENTER,
    DEPOSIT_ADDRESS_XRP: "rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe",
    DEPOSIT_ADDRESS_XLM: "GCUB7JL4APK7LKJ6MZF7Q2JTLHAGNBIUA7XIXD5SQTG52GQ2DAT6XZMK",
  };
  const XRP_ID = "6f1c1f2e-0c1a-4b7e-9a01-00000000000d";
  const XLM_ID = "6f1c1f2e-0c1a-4b7e-9a01-00000000000e";

  /** Which accounts exist, per provider; anything else is missing. */
  const accounts = { xrp: new Set<string>(), xlm: new Set<string>(), ton: new Map<string, string>() };

  const providers = [
    http.post(RIPPLED, async ({ request }) => {
      const { method, params } = (await request.json()) as { method: string; params: [{ account: string }] };
      if (method !== "account_info")
        return HttpResponse.json({ result: { status: "error", error: "unknownCmd" } });
      const account = params[0].account;
      if (accounts.xrp.has(account))
        return HttpResponse.json({
          result: {
            account_data: { Account: account, Balance: "25000000", Flags: 0, LedgerEntryType: "AccountRoot" },
            ledger_index: 90000010,
            status: "success",
            validated: true,
          },
        });
      return HttpResponse.json({
        result: {
          account,
          error: "actNotFound",
          error_code: 19,
          error_message: "Account not found.",
          ledger_index: 90000010,
          request: { account, command: "account_info", ledger_index: "validated" },
          status: "error",
          validated: true,
        },
      });
    }),
    http.get(`${HORIZON}/accounts/:id`, ({ params }) => {
      const id = String(params.id);
      if (accounts.xlm.has(id)) return HttpResponse.json({ id, account_id: id, sequence: "1", balances: [] });
      return HttpResponse.json(
        {
          type: "https://stellar.org/horizon-errors/not_found",
          title: "Resource Missing",
          status: 404,
          detail: "The resource at the url requested was not found.",
        },
        { status: 404 },
      );
    }),
    http.get(`${TONCENTER}/addressInformation`, ({ request }) => {
      const address = new URL(request.url).searchParams.get("address") ?? "";
      return HttpResponse.json({
        balance: "0",
        code: null,
        data: null,
        last_transaction_lt: null,
        last_transaction_hash: null,
        frozen_hash: null,
        status: accounts.ton.get(address) ?? "uninit",
      });
    }),
  ];

  let net: MockNetwork;
  let partner: TestPartner;

  /** POST /partner/orders with the live real-reader vars, the providers answered by `net`. */
  const post = (body: Record<string, unknown>, key = partner.key, vars = LIVE_REAL): Promise<Response> =>
    postToWorker(net, "/api/v1/partner/orders", body, key, vars);

  const xlmToXrp = (amount: number, recipient: string) => ({
    coin_from: "XLM",
    network_from: "XLM",
    coin_to: "XRP",
    network_to: "XRP",
    amount_from: amount,
    rate_type: "float",
    recipient_address: recipient,
  });
  const xrpToXlm = (amount: number, recipient: string) => ({
    coin_from: "XRP",
    network_from: "XRP",
    coin_to: "XLM",
    network_to: "XLM",
    amount_from: amount,
    rate_type: "float",
    recipient_address: recipient,
  });
  const xlmToTon = (recipient: string) => ({
    coin_from: "XLM",
    network_from: "XLM",
    coin_to: "TON",
    network_to: "TON",
    amount_from: 120,
    rate_type: "float",
    recipient_address: recipient,
  });

  interface Created {
    id: string;
    amount_to_expected: number;
    deposit_address: string;
    deposit_address_tag: string | null;
  }

  beforeAll(async () => {
    await setPrices();
    partner = await createPartner({ name: "recipient-activation", rate_limit_per_minute: 100_000 });
    // Small orders, so a payout below the 1 XRP / 1 XLM activation minimum can be asked for.
    for (const [id, min] of [
      [XLM_ID, "0.1"],
      [XRP_ID, "0.1"],
    ] as const)
      expect((await admin(`/currencies/${id}`, { method: "PATCH", json: { min_amount: min } })).status).toBe(
        200,
      );
  });

  beforeEach(() => {
    net = createMockNetwork(...providers);
  });

  afterEach(() => {
    expect(net.unhandled).toEqual([]);
  });

  describe("XRP: a payout to an account that does not exist must carry the base reserve", () => {
    it("below 1 XRP to a missing account: 422 recipient_not_activated with the minimum; nothing created", async () => {
      const recipient = "rN7n7otQDd6FczFgLdSqtcsAUxDkw6fzRH";
      const before = await listCount();
      const err = await expectError(await post(xlmToXrp(5, recipient)), 422, "recipient_not_activated");
      expect(err.detail).toContain("at least 1 XRP");
      expect(err.errors).toEqual([
        { code: "recipient_not_activated", detail: err.detail, side: "to", min_amount_to: 1 },
      ]);
      expect(net.requests.map((r) => [r.url, JSON.parse(r.body)])).toEqual([
        [RIPPLED, { method: "account_info", params: [{ account: recipient, ledger_index: "validated" }] }],
      ]);
      expect(await listCount()).toBe(before);
    });

    it("at or above the minimum to a missing account: created; the answer is cached for the next order", async () => {
      const recipient = "rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf";
      const res = await post(xlmToXrp(50, recipient));
      expect(res.status, await res.clone().text()).toBe(201);
      expect((await json<Created>(res)).amount_to_expected).toBeGreaterThan(1);
      const again = await post(xlmToXrp(5, recipient));
      await expectError(again, 422, "recipient_not_activated");
      expect(net.requests).toHaveLength(1);
    });

    it("an account that exists takes any amount", async () => {
      const recipient = "r9cZA1mLK5R5Am25ArfXFmqgNwjZgnfk59";
      accounts.xrp.add(recipient);
      const res = await post(xlmToXrp(5, recipient));
      expect(res.status, await res.clone().text()).toBe(201);
      expect((await json<Created>(res)).amount_to_expected).toBeLessThan(1);
    });

    it("a provider error does not block orders: created (the gateway decides), and asked again next time", async () => {
      const recipient = "rBqb89MRQJnMPq8wTwEbtz4kvxrEDfcYvt";
      net.use(http.post(RIPPLED, () => new HttpResponse("upstream down", { status: 503 })));
      const errors = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        expect((await post(xlmToXrp(5, recipient))).status).toBe(201);
        expect((await post(xlmToXrp(5, recipient))).status).toBe(201);
        expect(net.requests).toHaveLength(2);
        expect(errors.mock.calls.some(([m]) => String(m).includes("recipient account check failed"))).toBe(
          true,
        );
      } finally {
        errors.mockRestore();
      }
    });

    it("never asked for a test order, nor where the network's reader is simulated", async () => {
      const recipient = "rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B";
      const keyRes = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { mode: "test" } });
      const testKey = (await json<{ key: string }>(keyRes)).key;
      const testVars = {
        ...LIVE_REAL,
        TEST_DEPOSIT_ADDRESS_XLM: "GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6",
      };
      const test = await post(xlmToXrp(5, recipient), testKey, testVars);
      expect(test.status, await test.clone().text()).toBe(201);
      const simulatedXrp = { ...LIVE_REAL, CHAIN_MODE: "XLM:horizon,*:simulated" };
      expect((await post(xlmToXrp(5, recipient), partner.key, simulatedXrp)).status).toBe(201);
      expect(net.requests).toEqual([]);
    });
  });

  describe("XLM: a new account needs create_account with the minimum balance", () => {
    it("below 1 XLM to an account Horizon does not know (404): 422 with the minimum", async () => {
      const recipient = "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
      const err = await expectError(await post(xrpToXlm(0.1, recipient)), 422, "recipient_not_activated");
      expect(err.errors?.[0]).toMatchObject({
        code: "recipient_not_activated",
        side: "to",
        min_amount_to: 1,
      });
      expect(net.requests.map((r) => r.url)).toEqual([`${HORIZON}/accounts/${recipient}`]);
    });

    it("an existing account takes a small payout; a missing one a large one", async () => {
      const existing = "GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ";
      accounts.xlm.add(existing);
      expect((await post(xrpToXlm(0.1, existing))).status).toBe(201);
      const res = await post(xrpToXlm(1, "GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6"));
      expect(res.status, await res.clone().text()).toBe(201);
    });
  });

  describe("the payout request tells the gateway which operation to use", () => {
    const fake = useFakeGateway();

    /** Pays the XLM deposit of `order` and steps it until its payout is sent; the request's body. */
    async function payoutRequest(order: Created, deposit: string): Promise<Record<string, unknown>> {
      await fake.attach(order.id);
      await simSend("XLM", order.deposit_address, deposit, order.deposit_address_tag);
      await simMine("XLM", 2);
      for (let i = 0; i < 12 && (await read(partner, order.id)).status !== "completed"; i++) {
        await setPrices();
        await step(order.id, 120_000);
      }
      expect((await read(partner, order.id)).status).toBe("completed");
      const sends = fake.gw.ops.filter((o) => o.op === "send" && o.key === `${order.id}:payout`);
      expect(sends).toHaveLength(1);
      return JSON.parse(sends[0]?.body ?? "{}") as Record<string, unknown>;
    }

    it("XRP to a missing account: activate: true", async () => {
      const res = await post(xlmToXrp(50, "rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe"));
      expect(res.status, await res.clone().text()).toBe(201);
      const body = await payoutRequest(await json<Created>(res), "50");
      expect(body).toMatchObject({ kind: "payout", network: "XRP", activate: true });
      expect(body).not.toHaveProperty("bounce");
    });

    it("TON to an uninitialised wallet: bounce: false", async () => {
      const res = await post(xlmToTon("UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI"));
      expect(res.status, await res.clone().text()).toBe(201);
      const body = await payoutRequest(await json<Created>(res), "120");
      expect(body).toMatchObject({ kind: "payout", network: "TON", bounce: false });
      expect(body).not.toHaveProperty("activate");
    });

    it("TON to an active wallet: an ordinary transfer, neither field", async () => {
      const recipient = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs";
      accounts.ton.set(recipient, "active");
      const res = await post(xlmToTon(recipient));
      expect(res.status, await res.clone().text()).toBe(201);
      const body = await payoutRequest(await json<Created>(res), "120");
      expect(body).not.toHaveProperty("bounce");
      expect(body).not.toHaveProperty("activate");
    });
  });

  async function listCount(): Promise<number> {
    const res = await worker.fetch(
      new Request("http://local.test/api/v1/partner/orders?limit=100", {
        headers: { Authorization: `Bearer ${partner.key}`, "CF-Connecting-IP": freshIp() },
      }),
      env,
      createExecutionContext(),
    );
    return (await json<{ data: unknown[] }>(res)).data.length;
  }
});
