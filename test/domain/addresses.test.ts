import { base32nopad, base64url, bech32 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { type AddressCheck, addressFamily, validateAddress, validateTag } from "../../src/domain/addresses";
import { crc16xmodem, encodeBase58Check } from "../../src/domain/addresses/encoding";
import { associatedTokenAddress } from "../../src/domain/addresses/solana";
import { tonAccountId } from "../../src/domain/addresses/ton";

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const BASE58_XRP = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz";
const BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Every single-character substitution of `address` with another character of `alphabet`. */
function substitutions(address: string, alphabet: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < address.length; i++) {
    for (const c of alphabet) {
      if (c !== address[i]) out.push(address.slice(0, i) + c + address.slice(i + 1));
    }
  }
  return out;
}

function expectOk(check: AddressCheck): { address: string; tag: string | null } {
  if (!check.ok) throw new Error(`expected ok, got: ${check.reason}`);
  return check;
}

function reasonOf(check: AddressCheck): string {
  if (check.ok) throw new Error(`expected a rejection, got ok for ${check.address}`);
  return check.reason;
}

type Case = { network: string; address: string; canonical?: string; tag?: string | null; alphabet: string };

// Real published mainnet addresses (spec vectors, famous accounts, token contracts) and the
// "abandon ×11 about" derivation vectors. Each is also corrupted one character at a time below.
const VALID: Case[] = [
  // BTC: genesis coinbase, BIP13/wiki P2SH, bitcoinjs fixtures, BIP173/BIP350/BIP84 vectors
  { network: "BTC", address: "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", alphabet: BASE58 },
  { network: "BTC", address: "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", alphabet: BASE58 },
  { network: "BTC", address: "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH", alphabet: BASE58 },
  { network: "BTC", address: "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", alphabet: BASE58 },
  { network: "BTC", address: "3LRW7jeCvQCRdPF8S3yUCfRAx4eqXFmdcr", alphabet: BASE58 },
  { network: "BTC", address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", alphabet: BECH32 },
  {
    network: "BTC",
    address: "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4",
    canonical: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
    alphabet: BECH32.toUpperCase(),
  },
  {
    network: "BTC",
    address: "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3",
    alphabet: BECH32,
  },
  {
    network: "BTC",
    address: "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
    alphabet: BECH32,
  },
  {
    network: "BTC",
    address: "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y",
    alphabet: BECH32,
  },
  { network: "BTC", address: "BC1SW50QGDZ25J", canonical: "bc1sw50qgdz25j", alphabet: BECH32.toUpperCase() },
  { network: "BTC", address: "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", alphabet: BECH32 },
  { network: "BTC", address: "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", alphabet: BECH32 },
  { network: "BTC", address: "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g", alphabet: BECH32 },
  // BCH: CashAddr spec vectors (bitcoincashorg/bitcoincash.org spec/cashaddr.md), P2PKH and P2SH;
  // the legacy form of the first, normalised to it
  { network: "BCH", address: "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", alphabet: BECH32 },
  { network: "BCH", address: "bitcoincash:pr95sy3j9xwd2ap32xkykttr4cvcu7as4yc93ky28e", alphabet: BECH32 },
  {
    network: "BCH",
    address: "1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu",
    canonical: "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a",
    alphabet: BASE58,
  },
  // LTC: L (0x30), M (0x32), legacy 3 (0x05), bech32
  { network: "LTC", address: "LTVdcw8fdTTK4TcebTZ4jiiCbvTXaRxZNh", alphabet: BASE58 },
  { network: "LTC", address: "LV7LV7Z4bWDEjYkfx9dQo6k6RjGbXsg6hS", alphabet: BASE58 },
  { network: "LTC", address: "MGxNPPB7eBoWPUaprtX9v9CXJZoD2465zN", alphabet: BASE58 },
  { network: "LTC", address: "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", alphabet: BASE58 },
  { network: "LTC", address: "ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh", alphabet: BECH32 },
  { network: "LTC", address: "ltc1qx88q7zjd74lxwgkjmmwlqv5pd3vujuehexfttt", alphabet: BECH32 },
  { network: "LTC", address: "ltc1qudhthew8h03vzc7x99m3qg0z8wjq2f759hp4ej", alphabet: BECH32 },
  // DOGE: D (0x1e), 9/A (0x16)
  { network: "DOGE", address: "DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC", alphabet: BASE58 },
  { network: "DOGE", address: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", alphabet: BASE58 },
  { network: "DOGE", address: "DJXvHTVFXxgKPxwCC1MfmHxNySoApA87Pc", alphabet: BASE58 },
  { network: "DOGE", address: "9tp7THhBG3fNNFka1AJm95DU3E4x3pwQA3", alphabet: BASE58 },
  // TRON: USDT, USDC, WTRX contracts, the black-hole address, derivation vector
  { network: "TRX", address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", alphabet: BASE58 },
  { network: "TRX", address: "TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8", alphabet: BASE58 },
  { network: "TRX", address: "TNUC9Qb1rRpS5CbWLmNMxXBjyFoydXjWFR", alphabet: BASE58 },
  { network: "TRX", address: "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb", alphabet: BASE58 },
  { network: "TRX", address: "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH", alphabet: BASE58 },
  // XRP: genesis, ACCOUNT_ZERO/ONE, xrpl.js vectors; X-addresses from ripple-address-codec
  { network: "XRP", address: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh", alphabet: BASE58_XRP },
  { network: "XRP", address: "rrrrrrrrrrrrrrrrrrrrrhoLvTp", alphabet: BASE58_XRP },
  { network: "XRP", address: "rrrrrrrrrrrrrrrrrrrrBZbvji", alphabet: BASE58_XRP },
  { network: "XRP", address: "rN7n7otQDd6FczFgLdSqtcsAUxDkw6fzRH", alphabet: BASE58_XRP },
  { network: "XRP", address: "rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf", alphabet: BASE58_XRP },
  {
    network: "XRP",
    address: "X7AcgcsBL6XDcUb289X4mJ8djcdyKaB5hJDWMArnXr61cqZ",
    canonical: "r9cZA1mLK5R5Am25ArfXFmqgNwjZgnfk59",
    tag: null,
    alphabet: BASE58_XRP,
  },
  {
    network: "XRP",
    address: "X7AcgcsBL6XDcUb289X4mJ8djcdyKaGZMhc9YTE92ehJ2Fu",
    canonical: "r9cZA1mLK5R5Am25ArfXFmqgNwjZgnfk59",
    tag: "1",
    alphabet: BASE58_XRP,
  },
  {
    network: "XRP",
    address: "XVLhHMPHU98es4dbozjVtdWzVrDjtV8AqEL4xcZj5whKbmc",
    canonical: "rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf",
    tag: "0",
    alphabet: BASE58_XRP,
  },
  {
    network: "XRP",
    address: "XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8yuPT7y4xaEHi",
    canonical: "rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf",
    tag: "4294967295",
    alphabet: BASE58_XRP,
  },
  // XLM: SEP-0005 test vectors 1 and 5, Circle's USDC issuer, SEP-0023 account vector
  { network: "XLM", address: "GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6", alphabet: BASE32 },
  { network: "XLM", address: "GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX", alphabet: BASE32 },
  { network: "XLM", address: "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN", alphabet: BASE32 },
  { network: "XLM", address: "GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ", alphabet: BASE32 },
  // TON: USDT jetton master, elector (masterchain), abandon-mnemonic wallets v4r2/v5r1
  { network: "TON", address: "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", alphabet: BASE64URL },
  { network: "TON", address: "Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF", alphabet: BASE64URL },
  { network: "TON", address: "UQAzWZa6nM5mJev91wGc7VCSfBoIsYRqKJpV78N8Add9-RKY", alphabet: BASE64URL },
  { network: "TON", address: "UQBHyu-oZVDHRYQ1-rKlGqpHy5yAqanPBirEQNMNOmfHLtaT", alphabet: BASE64URL },
  { network: "TON", address: "EQBHyu-oZVDHRYQ1-rKlGqpHy5yAqanPBirEQNMNOmfHLotW", alphabet: BASE64URL },
];

// EIP-55 spec vectors and well-known contracts/accounts; corrupted by case flips below.
const EVM_CHECKSUMMED: { network: string; address: string }[] = [
  { network: "ETH", address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" },
  { network: "ETH", address: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359" },
  { network: "ETH", address: "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB" },
  { network: "ETH", address: "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb" },
  { network: "ETH", address: "0xde0B295669a9FD93d5F28D9Ec85E40f4cb697BAe" },
  { network: "ETH", address: "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045" },
  { network: "ETH", address: "0xdAC17F958D2ee523a2206206994597C13D831ec7" },
  { network: "ETH", address: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94" },
  { network: "BSC", address: "0x55d398326f99059fF775485246999027B3197955" },
  { network: "BSC", address: "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c" },
];

// Solana system program, SPL token program, USDC mint, wrapped SOL, Solana docs example wallets.
const SOLANA = [
  "11111111111111111111111111111111",
  "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
  "So11111111111111111111111111111111111111112",
  "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
  "vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg",
];

describe("addressFamily", () => {
  it("maps every catalog network code", () => {
    expect(addressFamily("BTC")).toBe("btc");
    expect(addressFamily("LTC")).toBe("ltc");
    expect(addressFamily("DOGE")).toBe("doge");
    expect(addressFamily("ETH")).toBe("evm");
    expect(addressFamily("BSC")).toBe("evm");
    expect(addressFamily("TRX")).toBe("tron");
    expect(addressFamily("SOL")).toBe("sol");
    expect(addressFamily("XRP")).toBe("xrp");
    expect(addressFamily("XLM")).toBe("xlm");
    expect(addressFamily("TON")).toBe("ton");
  });

  it("returns undefined for anything else, including lower case and prototype keys", () => {
    for (const n of ["btc", "TRON", "MATIC", "", "constructor", "__proto__", "toString"]) {
      expect(addressFamily(n)).toBeUndefined();
    }
    expect(reasonOf(validateAddress("MATIC", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"))).toMatch(
      /unsupported network/,
    );
  });
});

describe("validateAddress: real mainnet addresses", () => {
  it.each(VALID)("$network accepts $address", ({ network, address, canonical, tag }) => {
    const r = expectOk(validateAddress(network, address));
    expect(r.address).toBe(canonical ?? address);
    expect(r.tag).toBe(tag ?? null);
  });

  it.each(VALID)(
    "$network rejects every one-character corruption of $address",
    ({ network, address, alphabet }) => {
      const bad = substitutions(address, alphabet).filter((a) => validateAddress(network, a).ok);
      expect(bad).toEqual([]);
    },
  );

  it.each(EVM_CHECKSUMMED)("$network accepts $address and its single-case forms", ({ network, address }) => {
    expect(expectOk(validateAddress(network, address)).address).toBe(address);
    const body = address.slice(2);
    expect(expectOk(validateAddress(network, `0x${body.toLowerCase()}`)).address).toBe(address);
    expect(expectOk(validateAddress(network, `0x${body.toUpperCase()}`)).address).toBe(address);
  });

  it.each(EVM_CHECKSUMMED)("$network rejects every single case flip of $address", ({ network, address }) => {
    let flips = 0;
    for (let i = 2; i < address.length; i++) {
      const c = address[i]!;
      if (!/[a-fA-F]/.test(c)) continue;
      const flipped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
      const corrupted = address.slice(0, i) + flipped + address.slice(i + 1);
      const body = corrupted.slice(2);
      // A flip that makes the whole address single-case removes the checksum by design (EIP-55).
      if (body === body.toLowerCase() || body === body.toUpperCase()) continue;
      expect(reasonOf(validateAddress(network, corrupted))).toBe("bad checksum (EIP-55)");
      flips++;
    }
    expect(flips).toBeGreaterThanOrEqual(3);
  });

  it.each(SOLANA)("SOL accepts %s", (address) => {
    expect(expectOk(validateAddress("SOL", address)).address).toBe(address);
  });

  it.each(SOLANA)("SOL rejects non-alphabet characters and an extra leading 1 in %s", (address) => {
    // Solana addresses carry no checksum: a substitution inside the alphabet, or a dropped/added
    // character, usually still decodes to some 32-byte key. Only alphabet and byte-count errors are
    // detectable; a leading "1" always adds a zero byte, so that one is guaranteed to fail.
    for (let i = 0; i < address.length; i++) {
      for (const c of "0OIl+/") {
        expect(validateAddress("SOL", address.slice(0, i) + c + address.slice(i + 1)).ok).toBe(false);
      }
    }
    expect(validateAddress("SOL", `1${address}`).ok).toBe(false);
  });

  it("keeps the corruption helper honest", () => {
    expect(substitutions("ab", "abc")).toEqual(["bb", "cb", "aa", "ac"]);
  });
});

describe("validateAddress: rejections", () => {
  it("rejects leading, trailing and inner whitespace on every network without trimming", () => {
    const samples: [string, string][] = [
      ["BTC", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
      ["LTC", "ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh"],
      ["DOGE", "DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC"],
      ["ETH", "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"],
      ["BSC", "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"],
      ["TRX", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
      ["SOL", "11111111111111111111111111111111"],
      ["XRP", "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh"],
      ["XLM", "GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX"],
      ["TON", "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs"],
    ];
    for (const [network, address] of samples) {
      expect(validateAddress(network, address).ok).toBe(true);
      expect(reasonOf(validateAddress(network, ` ${address}`))).toMatch(/whitespace/);
      expect(reasonOf(validateAddress(network, `${address}\n`))).toMatch(/whitespace/);
      expect(reasonOf(validateAddress(network, `${address}\t`))).toMatch(/whitespace/);
      expect(reasonOf(validateAddress(network, `${address.slice(0, 5)} ${address.slice(5)}`))).toMatch(
        /whitespace/,
      );
      expect(reasonOf(validateAddress(network, ""))).toMatch(/empty/);
    }
  });

  it("rejects addresses of another network", () => {
    expect(reasonOf(validateAddress("BTC", "ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh"))).toBe(
      "not a Bitcoin address",
    );
    expect(reasonOf(validateAddress("BTC", "LTVdcw8fdTTK4TcebTZ4jiiCbvTXaRxZNh"))).toBe(
      "not a Bitcoin address",
    );
    expect(reasonOf(validateAddress("BTC", "DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC"))).toBe(
      "not a Bitcoin address",
    );
    expect(reasonOf(validateAddress("LTC", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))).toBe(
      "not a Litecoin address",
    );
    expect(reasonOf(validateAddress("LTC", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"))).toBe(
      "not a Litecoin address",
    );
    expect(reasonOf(validateAddress("DOGE", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"))).toBe(
      "not a Dogecoin address",
    );
    expect(reasonOf(validateAddress("DOGE", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"))).toBe(
      "not a Dogecoin address",
    );
    expect(reasonOf(validateAddress("DOGE", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))).toBe(
      "not a Dogecoin address",
    );
    expect(validateAddress("TRX", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa").ok).toBe(false);
    expect(validateAddress("TRX", "0x9858EfFD232B4033E47d90003D41EC34EcaEda94").ok).toBe(false);
    expect(validateAddress("ETH", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t").ok).toBe(false);
    // Base58 addresses of other chains decode fine but not to 32 bytes.
    expect(reasonOf(validateAddress("SOL", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"))).toBe(
      "does not decode to a 32-byte public key",
    );
    expect(validateAddress("SOL", "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh").ok).toBe(false);
    expect(validateAddress("XRP", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa").ok).toBe(false);
    expect(validateAddress("XLM", "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs").ok).toBe(false);
    expect(validateAddress("TON", "GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX").ok).toBe(false);
  });

  it("accepts a 3… P2SH address on both BTC and LTC, because Litecoin kept version 0x05", () => {
    expect(validateAddress("BTC", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy").ok).toBe(true);
    expect(validateAddress("LTC", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy").ok).toBe(true);
  });

  it("rejects testnet and regtest addresses", () => {
    const hash = new Uint8Array(20).fill(7);
    const withVersion = (v: number) => encodeBase58Check("bitcoin", Uint8Array.of(v, ...hash));
    // bitcoinjs fixtures (testnet P2PKH and P2SH) and the BIP173 testnet P2WSH vector
    expect(reasonOf(validateAddress("BTC", "mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r"))).toBe(
      "not a mainnet address",
    );
    expect(reasonOf(validateAddress("BTC", "2NByiBUaEXrhmqAsg7BbLpcQSAQs1EDwt5w"))).toBe(
      "not a mainnet address",
    );
    expect(
      reasonOf(validateAddress("BTC", "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7")),
    ).toBe("not a mainnet address");
    expect(reasonOf(validateAddress("BTC", bech32.encode("bcrt", [0, ...bech32.toWords(hash)])))).toBe(
      "not a mainnet address",
    );
    expect(reasonOf(validateAddress("LTC", bech32.encode("tltc", [0, ...bech32.toWords(hash)])))).toBe(
      "not a mainnet address",
    );
    expect(reasonOf(validateAddress("LTC", withVersion(0x3a)))).toBe("not a mainnet address");
    expect(reasonOf(validateAddress("LTC", withVersion(0x6f)))).toBe("not a mainnet address");
    expect(reasonOf(validateAddress("DOGE", withVersion(0x71)))).toBe("not a mainnet address");
    expect(reasonOf(validateAddress("DOGE", withVersion(0xc4)))).toBe("not a mainnet address");
    // ripple-address-codec testnet X-address for r9cZA1mLK5R5Am25ArfXFmqgNwjZgnfk59
    expect(reasonOf(validateAddress("XRP", "T719a5UwUCnEs54UsxG9CJYYDhwmFCqkr7wxCcNcfZ6p5GZ"))).toMatch(
      /not a mainnet address/,
    );
    // The v4r2 mainnet wallet above with the testnet flag set, in both bounce modes.
    const ton = base64url.decode("UQAzWZa6nM5mJev91wGc7VCSfBoIsYRqKJpV78N8Add9-RKY");
    for (const flag of [0x91, 0xd1]) {
      const bytes = Uint8Array.from(ton);
      bytes[0] = flag;
      const crc = crc16xmodem(bytes.subarray(0, 34));
      bytes[34] = crc >> 8;
      bytes[35] = crc & 0xff;
      expect(reasonOf(validateAddress("TON", base64url.encode(bytes)))).toMatch(/not a mainnet address/);
    }
  });

  it("applies BIP173/BIP350 rules to segwit addresses", () => {
    const cases: [string, RegExp][] = [
      // BIP350 invalid vectors
      ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", /must use bech32m/],
      ["BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL", /must use bech32m/],
      ["bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", /must use bech32, not bech32m/],
      ["bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4", /outside the bech32 alphabet/],
      ["BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R", /invalid witness version/],
      ["bc1pw5dgrnzv", /invalid witness program length/],
      [
        "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav",
        /program length|too long/,
      ],
      ["BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P", /invalid witness program length/],
      ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq", /mixed-case/],
      ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf", /padding/],
      ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j", /./],
      ["bc1gmk9yu", /missing witness version/],
      // mixed case of a valid v0 address
      ["bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", /mixed-case/],
      ["Bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", /mixed-case/],
    ];
    for (const [address, reason] of cases) expect(reasonOf(validateAddress("BTC", address))).toMatch(reason);
    // 91 characters: one over the BIP173 limit even with a valid-looking shape.
    expect(reasonOf(validateAddress("BTC", `bc1${"q".repeat(88)}`))).toMatch(/too long/);
  });

  it("rejects malformed EVM addresses", () => {
    for (const bad of [
      "9858EfFD232B4033E47d90003D41EC34EcaEda94",
      "0X9858EfFD232B4033E47d90003D41EC34EcaEda94",
      "0x9858EfFD232B4033E47d90003D41EC34EcaEda9",
      "0x9858EfFD232B4033E47d90003D41EC34EcaEda944",
      "0x9858EfFD232B4033E47d90003D41EC34EcaEda9g",
    ]) {
      expect(reasonOf(validateAddress("ETH", bad))).toMatch(/0x followed by 40/);
    }
  });

  it("rejects the TRON hex form and wrong-prefix base58check", () => {
    expect(reasonOf(validateAddress("TRX", "41a614f803b6fd780986a42c78ec9c7f77e6ded13c"))).toMatch(
      /hex TRON form/,
    );
    // Valid base58check, 21 bytes, but version 0x00 (a Bitcoin address) rather than 0x41.
    expect(validateAddress("TRX", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa").ok).toBe(false);
  });

  it("rejects Solana strings that do not decode to exactly 32 bytes", () => {
    expect(reasonOf(validateAddress("SOL", "1111111111111111111111111111111"))).toMatch(/32 to 44/);
    expect(reasonOf(validateAddress("SOL", "z".repeat(44)))).toMatch(/32-byte/);
    expect(reasonOf(validateAddress("SOL", "0".repeat(32)))).toMatch(/base58 alphabet/);
  });

  it("rejects malformed XRP addresses and X-addresses", () => {
    expect(reasonOf(validateAddress("XRP", "XHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh"))).toBe("bad checksum");
    expect(reasonOf(validateAddress("XRP", "1Hb9CJAWyB4rj91VRWn96DkukG4bwdtyTh"))).toMatch(
      /classic r… address/,
    );
    expect(validateAddress("XRP", "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyT").ok).toBe(false);
    // Correct checksum but 20 bytes instead of 21: ACCOUNT_ZERO with its version byte dropped.
    expect(validateAddress("XRP", encodeBase58Check("xrp", new Uint8Array(20))).ok).toBe(false);
  });

  it("rejects Stellar non-account StrKeys with specific reasons", () => {
    // SEP-0023 muxed vector (valid M… StrKey) — refused by policy, see stellar.ts.
    expect(
      reasonOf(
        validateAddress("XLM", "MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAACJUQ"),
      ),
    ).toMatch(/muxed/);
    // SEP-0005 test 1 secret seed: a pasted seed gets a warning, not "bad format".
    expect(
      reasonOf(validateAddress("XLM", "SBGWSG6BTNCKCOB3DIFBGCVMUPQFYPA2G4O34RMTB343OYPXU5DJDVMN")),
    ).toMatch(/secret seed/);
    expect(
      reasonOf(validateAddress("XLM", "CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC")),
    ).toMatch(/contract/);
    expect(
      reasonOf(validateAddress("XLM", "gb3jdwcqjcwmj3iilwigdtqjjc5567pgvevxscvpeqotdn64vjbdqbyx")),
    ).toMatch(/base32/);
    // Swapping the CRC bytes keeps the format but breaks the little-endian checksum.
    const bytes = base32nopad.decode("GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX");
    const swapped = Uint8Array.from(bytes);
    swapped[33] = bytes[34]!;
    swapped[34] = bytes[33]!;
    expect(reasonOf(validateAddress("XLM", base32nopad.encode(swapped)))).toBe("bad checksum");
  });

  it("rejects the raw TON form and other TON malformations", () => {
    expect(
      reasonOf(validateAddress("TON", "0:83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8")),
    ).toBe("raw TON form is not accepted");
    expect(reasonOf(validateAddress("TON", `-1:${"33".repeat(32)}`))).toBe("raw TON form is not accepted");
    expect(reasonOf(validateAddress("TON", "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sD"))).toMatch(/48/);
    // Same address in standard base64 is accepted and stored in the url-safe form.
    const std = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id/sDs";
    expect(expectOk(validateAddress("TON", std)).address).toBe(
      "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs",
    );
    expect(reasonOf(validateAddress("TON", "UQBHyu+oZVDHRYQ1-rKlGqpHy5yAqanPBirEQNMNOmfHLtaT"))).toMatch(
      /mixes/,
    );
    // Unknown tag byte and workchain, with a correct CRC so only the field check can reject them.
    const reencode = (edit: (b: Uint8Array) => void) => {
      const b = Uint8Array.from(base64url.decode("EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs"));
      edit(b);
      const crc = crc16xmodem(b.subarray(0, 34));
      b[34] = crc >> 8;
      b[35] = crc & 0xff;
      return base64url.encode(b);
    };
    expect(
      reasonOf(
        validateAddress(
          "TON",
          reencode((b) => (b[0] = 0x12)),
        ),
      ),
    ).toMatch(/unknown TON address tag/);
    expect(
      reasonOf(
        validateAddress(
          "TON",
          reencode((b) => (b[1] = 0x01)),
        ),
      ),
    ).toMatch(/workchain/);
  });
});

describe("validateTag", () => {
  it("XRP destination tag: uint32 decimal, canonical spelling only", () => {
    for (const ok of ["0", "1", "12345", "4294967295"])
      expect(validateTag("XRP", ok)).toEqual({ ok: true, tag: ok });
    for (const bad of [
      "",
      "4294967296",
      "01",
      "00",
      "-1",
      "+1",
      "1.0",
      "1e3",
      " 1",
      "1 ",
      "0x10",
      "１",
      "99999999999",
    ]) {
      expect(validateTag("XRP", bad).ok, bad).toBe(false);
    }
  });

  it("XLM memo: text of at most 28 UTF-8 bytes", () => {
    for (const ok of ["hello", "a".repeat(28), "€".repeat(9), "😀".repeat(7), "order 42"]) {
      expect(validateTag("XLM", ok)).toEqual({ ok: true, tag: ok });
    }
    for (const bad of ["", "a".repeat(29), "€".repeat(10), "😀".repeat(8), "\uD800", "ab\uDC00"]) {
      expect(validateTag("XLM", bad).ok, bad).toBe(false);
    }
  });

  it("TON comment: at most 120 printable characters", () => {
    for (const ok of ["deposit 123", "x".repeat(120), "😀".repeat(120), "Привет"]) {
      expect(validateTag("TON", ok)).toEqual({ ok: true, tag: ok });
    }
    for (const bad of ["", "x".repeat(121), "a\nb", "a\u0000", "tab\there", "a\u2028b", "\uD800"]) {
      expect(validateTag("TON", bad).ok, JSON.stringify(bad)).toBe(false);
    }
  });

  it("other networks do not use tags", () => {
    for (const network of ["BTC", "LTC", "DOGE", "ETH", "BSC", "TRX", "SOL", "NOPE"]) {
      expect(validateTag(network, "123")).toEqual({ ok: false, reason: "network does not use tags" });
    }
  });
});

describe("tonAccountId", () => {
  const raw = "0:335996ba9cce6625ebfdd7019ced50927c1a08b1846a289a55efc37c01d77df9";

  it("names one account for the bounceable, non-bounceable and raw spellings", () => {
    expect(tonAccountId("UQAzWZa6nM5mJev91wGc7VCSfBoIsYRqKJpV78N8Add9-RKY")).toBe(raw);
    expect(tonAccountId("EQAzWZa6nM5mJev91wGc7VCSfBoIsYRqKJpV78N8Add9-U9d")).toBe(raw);
    expect(tonAccountId(raw.toUpperCase().replace("0X", "0x"))).toBe(raw);
    expect(tonAccountId(`-1:${"ab".repeat(32)}`)).toBe(`-1:${"ab".repeat(32)}`);
  });

  it("null for anything else (bad checksum, other workchains, junk)", () => {
    expect(tonAccountId("UQAzWZa6nM5mJev91wGc7VCSfBoIsYRqKJpV78N8Add9-RKZ")).toBeNull();
    expect(tonAccountId(`5:${"ab".repeat(32)}`)).toBeNull();
    expect(tonAccountId("")).toBeNull();
  });
});

describe("associatedTokenAddress", () => {
  const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

  it("matches the SDKs' published associated token accounts", () => {
    // metaplex-foundation/Solana.Swift AssociatedTokenProgramTests (USDC mainnet mint).
    expect(associatedTokenAddress("3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG", USDC)).toBe(
      "3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3",
    );
    // @solana/spl-token getAssociatedTokenAddress output (devnet USDC mint).
    expect(
      associatedTokenAddress(
        "5waJka9MrCgPFoLo3SQSjLDTGnkoDcwYYPnpk4YNJS6i",
        "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
      ),
    ).toBe("HmBpVD6N1vuGvQpS8KrwWH6Tr8rSwXQBEDKn5VXW6yyw");
  });

  it("refuses what is not a 32-byte key", () => {
    expect(() => associatedTokenAddress("not-base58!", USDC)).toThrow(TypeError);
  });
});
