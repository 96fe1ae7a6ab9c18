import { env } from "cloudflare:workers";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { describe, expect, it } from "vitest";
import { deriveDepositAddress, validateTag } from "../../../src/domain/addresses";
import { p2wpkhAddress } from "../../../src/domain/addresses/bitcoin";
import {
  depositPath,
  FIRST_DERIVED_MEMO_TAG,
  memoTagCandidate,
} from "../../../src/domain/deposit-allocation";
import { idempotentOrderId } from "../../../src/domain/order";
import {
  type CreationKey,
  creationVerdict,
  idempotentShortId,
  orderIdOf,
  parseOrderRef,
  shortIdOfOrderId,
  shortIdOfValue,
  shortIdValue,
} from "../../../src/domain/order-id";
import { newShortId } from "../../../src/domain/short-id";

const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

/** `n` distinct short ids: consecutive 50-bit values spread over the space by a fixed stride. */
function distinctShortIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => shortIdOfValue((BigInt(i) * 11_258_999_068_423n) % (1n << 50n)));
}

describe("order ids: the UUID is a function of the short_id", () => {
  it("round-trips every short id through a UUIDv8, and the UUID's check bits tell it apart", () => {
    for (let i = 0; i < 2_000; i++) {
      const shortId = newShortId();
      const id = orderIdOf(shortId);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(shortIdOfOrderId(id)).toBe(shortId);
      expect(shortIdOfOrderId(id.toUpperCase())).toBe(shortId);
      expect(shortIdOfValue(shortIdValue(shortId))).toBe(shortId);
    }
    expect(orderIdOf("0000000000")).not.toBe(orderIdOf("0000000001"));
    expect(shortIdOfValue((1n << 50n) - 1n)).toBe("ZZZZZZZZZZ");
  });

  it("ids of the earlier layouts carry no short id: random v4, hash-derived v8, a flipped bit", async () => {
    expect(shortIdOfOrderId(crypto.randomUUID())).toBeNull();
    expect(shortIdOfOrderId(await idempotentOrderId("p", "k"))).toBeNull();
    const id = orderIdOf("ABCDEFGHJK");
    const flipped = `${id.slice(0, -1)}${id.endsWith("0") ? "1" : "0"}`;
    expect(shortIdOfOrderId(flipped)).toBeNull();
    expect(shortIdOfOrderId("not-a-uuid")).toBeNull();
  });

  it("parses every form a partner sends: UUID (any case), short_id (any case), nothing else", () => {
    const id = orderIdOf("7QK2M9XW4D");
    expect(parseOrderRef(id)).toEqual({ kind: "id", id, shortId: "7QK2M9XW4D" });
    expect(parseOrderRef(id.toUpperCase())).toEqual({ kind: "id", id, shortId: "7QK2M9XW4D" });
    expect(parseOrderRef("7qk2M9xw4d")).toEqual({ kind: "short_id", id, shortId: "7QK2M9XW4D" });
    const legacy = crypto.randomUUID();
    expect(parseOrderRef(legacy.toUpperCase())).toEqual({ kind: "id", id: legacy, shortId: null });
    for (const bad of ["", "7QK2M9XW4", "7QK2M9XW4DD", "7QK2M9XW4U", "x".repeat(300)]) {
      expect(parseOrderRef(bad)).toBeNull();
    }
  });

  it("an Idempotency-Key names one short id per attempt, per partner", () => {
    const a = idempotentShortId("partner-1", "key", 0);
    expect(idempotentShortId("partner-1", "key", 0)).toBe(a);
    expect(idempotentShortId("partner-1", "key", 1)).not.toBe(a);
    expect(idempotentShortId("partner-2", "key", 0)).not.toBe(a);
    expect(idempotentShortId("partner-1", "key2", 0)).not.toBe(a);
    expect(a).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
  });

  it("what an existing order means for a creation on its id", () => {
    const mine: CreationKey = { partnerId: "p", idempotencyKey: "k", requestHash: "h" };
    expect(creationVerdict(mine, mine)).toBe("replay");
    expect(creationVerdict(mine, { ...mine, requestHash: "other" })).toBe("conflict");
    expect(creationVerdict(mine, { ...mine, idempotencyKey: null })).toBe("taken");
    expect(creationVerdict(mine, { ...mine, idempotencyKey: "k2" })).toBe("taken");
    expect(creationVerdict(mine, { ...mine, partnerId: "q" })).toBe("taken");
    expect(creationVerdict({ ...mine, idempotencyKey: null }, { ...mine, idempotencyKey: null })).toBe(
      "taken",
    );
  });
});

describe("deposit addresses and tags from the order id", () => {
  it("100,000 distinct short ids → 100,000 distinct derivation paths, all non-hardened", () => {
    const paths = new Set<string>();
    let outOfRange = 0;
    for (const shortId of distinctShortIds(100_000)) {
      const [hi, lo] = depositPath(shortId);
      if (!(hi >= 0 && hi < 2 ** 25 && lo >= 0 && lo < 2 ** 25)) outOfRange++;
      paths.add(`${hi}/${lo}`);
    }
    expect(outOfRange).toBe(0);
    expect(paths.size).toBe(100_000);
    expect(depositPath("ZZZZZZZZZZ")).toEqual([2 ** 25 - 1, 2 ** 25 - 1]);
  });

  it("the address is the account's m/…/0/hi/lo child, as the operator's wallet derives it from the seed", () => {
    const account = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).derive("m/84'/0'/0'");
    for (const shortId of ["0000000000", "ABCDEFGHJK", "ZZZZZZZZZZ"]) {
      const [hi, lo] = depositPath(shortId);
      const key = account.derive(`m/0/${hi}/${lo}`);
      expect(deriveDepositAddress("btc", env.DEPOSIT_XPUB_BTC!, [hi, lo])).toBe(
        p2wpkhAddress("bc", key.publicKey as Uint8Array),
      );
    }
    // Depth 6 never meets the counter-allocated depth-5 addresses of earlier orders.
    expect(deriveDepositAddress("btc", env.DEPOSIT_XPUB_BTC!, depositPath("0000000000"))).not.toBe(
      deriveDepositAddress("btc", env.DEPOSIT_XPUB_BTC!, 0),
    );
  });

  it("500 orders → 500 distinct addresses", () => {
    const addresses = new Set(
      distinctShortIds(500).map((s) => deriveDepositAddress("evm", env.DEPOSIT_XPUB_EVM!, depositPath(s))),
    );
    expect(addresses.size).toBe(500);
  });

  it("memo tag candidates: valid XRP destination tags above every counter-allocated tag, a new one per attempt", () => {
    const id = orderIdOf("ABCDEFGHJK");
    const tags = Array.from({ length: 8 }, (_, attempt) => memoTagCandidate(id, attempt));
    expect(new Set(tags).size).toBe(8);
    const invalid = distinctShortIds(10_000)
      .map((shortId) => memoTagCandidate(orderIdOf(shortId), 0))
      .filter((tag) => Number(tag) < FIRST_DERIVED_MEMO_TAG || !validateTag("XRP", tag).ok);
    expect(invalid).toEqual([]);
  });
});
