import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getConfig } from "../../../src/config";
import { deriveDepositAddress, validateAddress } from "../../../src/domain/addresses";
import {
  BITCOIN_TESTNET,
  DOGECOIN_TESTNET,
  LITECOIN_TESTNET,
  type UtxoChain,
  validateUtxoAddress,
} from "../../../src/domain/addresses/bitcoin";
import { validateBchAddress } from "../../../src/domain/addresses/cashaddr";
import { generateApiKey, parseApiKey } from "../../../src/domain/credentials";
import type { DepositConfig } from "../../../src/domain/deposit";
import { testDepositScheme } from "../../../src/domain/test-mode";

const config = getConfig(env);

describe("test-mode deposit addresses", () => {
  const testnets: Record<string, UtxoChain | null> = {
    BTC: BITCOIN_TESTNET,
    LTC: LITECOIN_TESTNET,
    DOGE: DOGECOIN_TESTNET,
    BCH: null,
    ETH: null,
    TRX: null,
  };
  for (const [network, testnet] of Object.entries(testnets)) {
    it(`${network}: never a live address for the same index; UTXO chains in testnet form`, () => {
      const test = testDepositScheme(network, false, config.testDeposit, config.deposit);
      expect(test.kind).toBe("derive");
      if (test.kind !== "derive") return;
      const live = config.deposit.xpubs[test.family.toUpperCase()] ?? "";
      for (const index of [0, 1, 2, 1_000]) {
        const address = deriveDepositAddress(test.family, test.xpub, index, test.testnet);
        expect(address).not.toBe(deriveDepositAddress(test.family, live, index));
        // Not even the live key's address in testnet dress, nor the test key's in mainnet dress.
        expect(address).not.toBe(deriveDepositAddress(test.family, live, index, true));
        if (testnet) {
          expect(validateUtxoAddress(testnet, address)).toMatchObject({ ok: true });
          expect(validateAddress(network, address)).toMatchObject({
            ok: false,
            reason: "not a mainnet address",
          });
        }
      }
    });
  }

  it("testnet prefixes: tb1, tltc1, Dogecoin testnet n…", () => {
    const addr = (family: "btc" | "ltc" | "doge") =>
      deriveDepositAddress(family, config.testDeposit.xpubs[family.toUpperCase()] ?? "", 0, true);
    expect(addr("btc")).toMatch(/^tb1q/);
    expect(addr("ltc")).toMatch(/^tltc1q/);
    expect(addr("doge")).toMatch(/^n/);
    const bch = deriveDepositAddress("bch", config.testDeposit.xpubs.BCH ?? "", 0, true);
    expect(validateBchAddress(bch, true)).toEqual({ ok: true, address: bch, tag: null });
    expect(validateAddress("BCH", bch)).toEqual({ ok: false, reason: "not a mainnet address (bchtest:)" });
  });

  it("refuses a test key that is a live one, pools, and networks without a test key", () => {
    const live: DepositConfig = { xpubs: { BTC: "xpubLIVE" }, addresses: { XRP: "rLIVE" } };
    const same: DepositConfig = { xpubs: { BTC: "xpubLIVE" }, addresses: { XRP: "rLIVE" } };
    expect(testDepositScheme("BTC", false, same, live)).toMatchObject({ kind: "none" });
    expect(testDepositScheme("XRP", true, same, live)).toMatchObject({ kind: "none" });
    expect(testDepositScheme("SOL", false, same, live)).toMatchObject({ kind: "none" });
    expect(testDepositScheme("LTC", false, same, live)).toMatchObject({
      kind: "none",
      reason: expect.stringMatching(/^test mode: /),
    });
    const own: DepositConfig = { xpubs: { BTC: "xpubTEST" }, addresses: { XRP: "rTEST" } };
    expect(testDepositScheme("BTC", false, own, live)).toMatchObject({
      kind: "derive",
      testnet: true,
      xpub: "xpubTEST",
    });
    expect(testDepositScheme("XRP", true, own, live)).toMatchObject({ kind: "memo", address: "rTEST" });
  });
});

describe("test keys", () => {
  it("pk_test_ ids are generated for test mode and parse like live ones", async () => {
    const test = await generateApiKey("test");
    const live = await generateApiKey();
    expect(test.keyId).toMatch(/^pk_test_[A-Za-z0-9_-]{16}$/);
    expect(live.keyId).toMatch(/^pk_[A-Za-z0-9_-]{16}$/);
    expect(parseApiKey(test.key)).toMatchObject({ ok: true, keyId: test.keyId });
    expect(parseApiKey(live.key)).toMatchObject({ ok: true, keyId: live.keyId });
    expect(parseApiKey(`pk_test_short.${test.secret}`)).toMatchObject({ ok: false });
    expect(parseApiKey(`pk_sandbox_${live.keyId.slice(3)}.${live.secret}`)).toMatchObject({ ok: false });
  });
});
