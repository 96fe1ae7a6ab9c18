import { env } from "cloudflare:workers";
import { ed25519 } from "@noble/curves/ed25519.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { utf8 } from "@scure/base";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { beforeAll, describe, expect, it } from "vitest";
import { deriveDepositAddress, validateAddress } from "../../src/domain/addresses";
import { p2pkhAddress, p2wpkhAddress } from "../../src/domain/addresses/bitcoin";
import { evmAccountId, evmAddressFromAccountId } from "../../src/domain/addresses/evm";
import { encodeStellarAccount } from "../../src/domain/addresses/stellar";
import { tronAddressFromAccountId } from "../../src/domain/addresses/tron";

const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

type Family = "btc" | "bch" | "ltc" | "doge" | "evm" | "tron";

const ACCOUNTS: { family: Family; network: string; path: string; xpub: () => string; index0: string }[] = [
  {
    family: "btc",
    network: "BTC",
    path: "m/84'/0'/0'",
    xpub: () => env.DEPOSIT_XPUB_BTC!,
    index0: "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
  },
  {
    // BIP44 with SLIP-44 coin type 145; the test mnemonic's first address as wallets publish it.
    family: "bch",
    network: "BCH",
    path: "m/44'/145'/0'",
    xpub: () => env.DEPOSIT_XPUB_BCH!,
    index0: "bitcoincash:qqyx49mu0kkn9ftfj6hje6g2wfer34yfnq5tahq3q6",
  },
  {
    family: "ltc",
    network: "LTC",
    path: "m/84'/2'/0'",
    xpub: () => env.DEPOSIT_XPUB_LTC!,
    index0: "ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh",
  },
  {
    family: "doge",
    network: "DOGE",
    path: "m/44'/3'/0'",
    xpub: () => env.DEPOSIT_XPUB_DOGE!,
    index0: "DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC",
  },
  {
    family: "evm",
    network: "ETH",
    path: "m/44'/60'/0'",
    xpub: () => env.DEPOSIT_XPUB_EVM!,
    index0: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
  },
  {
    family: "tron",
    network: "TRX",
    path: "m/44'/195'/0'",
    xpub: () => env.DEPOSIT_XPUB_TRON!,
    index0: "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH",
  },
];

let master: HDKey;
beforeAll(() => {
  master = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
});

/** Address from the full private path, as a wallet holding the mnemonic would compute it. */
function fromPrivatePath(family: Family, path: string): string {
  const pub = master.derive(path).publicKey!;
  switch (family) {
    case "btc":
      return p2wpkhAddress("bc", pub);
    case "bch": {
      // Through the legacy P2PKH form and its normalisation: an encoding path apart from derive's.
      const check = validateAddress("BCH", p2pkhAddress(0x00, pub));
      if (!check.ok) throw new Error(check.reason);
      return check.address;
    }
    case "ltc":
      return p2wpkhAddress("ltc", pub);
    case "doge":
      return p2pkhAddress(0x1e, pub);
    case "evm":
      return evmAddressFromAccountId(evmAccountId(pub));
    case "tron":
      return tronAddressFromAccountId(evmAccountId(pub));
  }
}

describe("deriveDepositAddress", () => {
  it.each(ACCOUNTS)("the wrangler.toml $family xpub is the $path account of the test mnemonic", (a) => {
    expect(a.xpub()).toBe(master.derive(a.path).publicExtendedKey);
  });

  it.each(ACCOUNTS)("$family index 0 from the configured xpub equals the published vector", (a) => {
    expect(deriveDepositAddress(a.family, a.xpub(), 0)).toBe(a.index0);
  });

  it("uses the index: published vectors beyond index 0", () => {
    // BIP84 test vector m/84'/0'/0'/0/1, and what MetaMask/TronLink show for this mnemonic.
    expect(deriveDepositAddress("btc", env.DEPOSIT_XPUB_BTC!, 1)).toBe(
      "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g",
    );
    expect(deriveDepositAddress("evm", env.DEPOSIT_XPUB_EVM!, 1)).toBe(
      "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0",
    );
    expect(deriveDepositAddress("evm", env.DEPOSIT_XPUB_EVM!, 2)).toBe(
      "0xb6716976A3ebe8D39aCEB04372f22Ff8e6802D7A",
    );
    expect(deriveDepositAddress("tron", env.DEPOSIT_XPUB_TRON!, 1)).toBe(
      "TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK",
    );
  });

  it.each(ACCOUNTS)("$family indexes 1..5 match derivation from the private path", (a) => {
    const seen = new Set<string>();
    for (const index of [1, 2, 3, 4, 5, 2 ** 31 - 1]) {
      const address = deriveDepositAddress(a.family, a.xpub(), index);
      expect(address).toBe(fromPrivatePath(a.family, `${a.path}/0/${index}`));
      seen.add(address);
    }
    expect(seen.size).toBe(6);
    expect(seen.has(a.index0)).toBe(false);
  });

  it.each(ACCOUNTS)(
    "$family order paths (two and three levels below the chain) match the private path",
    (a) => {
      // Order deposit paths are m/…/0/hi/lo (src/domain/deposit-allocation.ts), derived by the
      // worker's own CKDpub; the private path through @scure/bip32 is the independent reference.
      const random = () => Math.floor(Math.random() * 2 ** 25);
      const paths = [
        [0, 0],
        [2 ** 25 - 1, 2 ** 25 - 1],
        [2 ** 31 - 1, 0],
        [7, 8, 9],
      ];
      for (let n = 0; n < 40; n++) paths.push([random(), random()]);
      for (const path of paths) {
        expect(deriveDepositAddress(a.family, a.xpub(), path)).toBe(
          fromPrivatePath(a.family, `${a.path}/0/${path.join("/")}`),
        );
      }
    },
  );

  it.each(ACCOUNTS)("$family derived addresses validate on $network in canonical form", (a) => {
    for (const index of [0, 1, 77]) {
      const address = deriveDepositAddress(a.family, a.xpub(), index);
      expect(validateAddress(a.network, address)).toEqual({ ok: true, address, tag: null });
    }
  });

  it("derives the same EVM address for ETH and BSC, and TRON shares the 20-byte id", () => {
    const evm = deriveDepositAddress("evm", env.DEPOSIT_XPUB_EVM!, 0);
    expect(validateAddress("BSC", evm).ok).toBe(true);
    // Same key through the EVM xpub gives the TRON encoding of the same account id.
    expect(tronAddressFromAccountId(evmAccountId(master.derive("m/44'/60'/0'/0/0").publicKey!))).toBe(
      deriveDepositAddress("tron", env.DEPOSIT_XPUB_EVM!, 0),
    );
  });

  it("rejects bad indexes", () => {
    for (const index of [-1, 1.5, 2 ** 31, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => deriveDepositAddress("btc", env.DEPOSIT_XPUB_BTC!, index)).toThrow(RangeError);
    }
  });

  it("refuses private keys, non-account depths and garbage", () => {
    const xprv = master.derive("m/84'/0'/0'").privateExtendedKey;
    expect(() => deriveDepositAddress("btc", xprv, 0)).toThrow(/private key/);
    expect(() => deriveDepositAddress("btc", master.publicExtendedKey, 0)).toThrow(/depth 0/);
    expect(() => deriveDepositAddress("btc", master.derive("m/84'/0'/0'/0").publicExtendedKey, 0)).toThrow(
      /depth 4/,
    );
    expect(() => deriveDepositAddress("btc", "xpub-not-a-key", 0)).toThrow();
    expect(() => deriveDepositAddress("btc", `${env.DEPOSIT_XPUB_BTC!.slice(0, -1)}W`, 0)).toThrow();
  });
});

/** SLIP-0010 ed25519 (hardened-only) private derivation, as used by SEP-0005 and BIP39 TON wallets. */
function slip10Ed25519(seed: Uint8Array, path: number[]): Uint8Array {
  let node = hmac(sha512, utf8.decode("ed25519 seed"), seed);
  for (const index of path) {
    const data = new Uint8Array(37);
    data.set(node.subarray(0, 32), 1);
    new DataView(data.buffer).setUint32(33, (index | 0x8000_0000) >>> 0);
    node = hmac(sha512, node.subarray(32), data);
  }
  return node.subarray(0, 32);
}

describe("dev memo deposit addresses in wrangler.toml", () => {
  it("all three pass validateAddress and are stored in canonical form", () => {
    for (const [network, address] of [
      ["XRP", env.DEPOSIT_ADDRESS_XRP!],
      ["XLM", env.DEPOSIT_ADDRESS_XLM!],
      ["TON", env.DEPOSIT_ADDRESS_TON!],
    ] as const) {
      expect(validateAddress(network, address)).toEqual({ ok: true, address, tag: null });
    }
  });

  it("the XLM address is the test mnemonic's SEP-0005 account m/44'/148'/0'", () => {
    const seed = mnemonicToSeedSync(MNEMONIC);
    // SEP-0005 test 1 pins the SLIP-0010 implementation before trusting it for the dev address.
    const test1 = mnemonicToSeedSync(
      "illness spike retreat truth genius clock brain pass fit cave bargain toe",
    );
    expect(encodeStellarAccount(ed25519.getPublicKey(slip10Ed25519(test1, [44, 148, 0])))).toBe(
      "GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6",
    );
    expect(encodeStellarAccount(ed25519.getPublicKey(slip10Ed25519(seed, [44, 148, 0])))).toBe(
      env.DEPOSIT_ADDRESS_XLM!,
    );
  });
});
