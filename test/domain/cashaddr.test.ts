import { hex } from "@scure/base";
import { describe, expect, it } from "vitest";
import { validateAddress } from "../../src/domain/addresses";
import { decodeCashAddr, encodeCashAddr, validateBchAddress } from "../../src/domain/addresses/cashaddr";

// bitcoincashorg/bitcoincash.org spec/cashaddr.md, "Test vectors".
const LEGACY_PAIRS: [legacy: string, cashaddr: string][] = [
  ["1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu", "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a"],
  ["1KXrWXciRDZUpQwQmuM1DbwsKDLYAYsVLR", "bitcoincash:qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy"],
  ["16w1D5WRVKJuZUsSRzdLp9w3YGcgoxDXb", "bitcoincash:qqq3728yw0y47sqn6l2na30mcw6zm78dzqre909m2r"],
  ["3CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzC", "bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq"],
  ["3LDsS579y7sruadqu11beEJoTjdFiFCdX4", "bitcoincash:pr95sy3j9xwd2ap32xkykttr4cvcu7as4yc93ky28e"],
  ["31nwvkZwyPdgzjBJZXfDmSWsC4ZLKpYyUw", "bitcoincash:pqq3728yw0y47sqn6l2na30mcw6zm78dzq5ucqzc37"],
];

// "Larger test vectors", the 160-bit rows (type 0 P2PKH, type 1 P2SH), and the checksum-only vectors.
const HASH = hex.decode("f5bf48b397dae70be82b3cca4793f8eb2b6cdac9");
const SIZED: [prefix: string, type: 0 | 1, address: string][] = [
  ["bitcoincash", 0, "bitcoincash:qr6m7j9njldwwzlg9v7v53unlr4jkmx6eylep8ekg2"],
  ["bchtest", 1, "bchtest:pr6m7j9njldwwzlg9v7v53unlr4jkmx6eyvwc0uz5t"],
  ["pref", 1, "pref:pr6m7j9njldwwzlg9v7v53unlr4jkmx6ey65nvtks5"],
];
const CHECKSUM_ONLY = [
  "prefix:x64nx6hz",
  "p:gpf8m4h7",
  "bitcoincash:qpzry9x8gf2tvdw0s3jn54khce6mua7lcw20ayyn",
  "bchtest:spectestnetaddressrealrealaddressqpan2k9lh",
  "bchreg:555555555555555555555555555555555555555555555udxmlmrz",
];

describe("CashAddr (spec vectors)", () => {
  it("encodes the spec's 160-bit vectors and decodes them back", () => {
    for (const [prefix, type, address] of SIZED) {
      expect(encodeCashAddr(prefix, type, HASH)).toBe(address);
      const decoded = decodeCashAddr(address, "unused");
      expect(decoded).toEqual({ ok: true, prefix, payload: Uint8Array.of(type << 3, ...HASH) });
    }
  });

  it("verifies the checksum-only vectors, and refuses each with one character changed", () => {
    // Their payloads are deliberately not valid, so what is checked is only that the checksum held.
    const checksumHolds = (address: string) => {
      const decoded = decodeCashAddr(address, "unused");
      return decoded.ok || decoded.reason !== "bad checksum";
    };
    for (const address of CHECKSUM_ONLY) {
      const sep = address.indexOf(":");
      expect(checksumHolds(address)).toBe(true);
      const last = address.at(-1) === "q" ? "p" : "q";
      expect(decodeCashAddr(address.slice(0, -1) + last, "unused")).toEqual({
        ok: false,
        reason: "bad checksum",
      });
      // The prefix is part of the checksum: the same payload under another prefix fails.
      expect(checksumHolds(`x${address.slice(sep)}`)).toBe(false);
    }
  });

  it("translates each legacy address to the spec's CashAddr and accepts both, prefixed or not, either case", () => {
    for (const [legacy, cashaddr] of LEGACY_PAIRS) {
      expect(validateAddress("BCH", legacy)).toEqual({ ok: true, address: cashaddr, tag: null });
      expect(validateAddress("BCH", cashaddr)).toEqual({ ok: true, address: cashaddr, tag: null });
      const bare = cashaddr.slice("bitcoincash:".length);
      expect(validateAddress("BCH", bare)).toEqual({ ok: true, address: cashaddr, tag: null });
      expect(validateAddress("BCH", cashaddr.toUpperCase())).toEqual({
        ok: true,
        address: cashaddr,
        tag: null,
      });
    }
  });
});

describe("Bitcoin Cash addresses: what is refused", () => {
  const reason = (network: string, address: string) => {
    const check = validateAddress(network, address);
    return check.ok ? `accepted as ${check.address}` : check.reason;
  };
  const [, cashaddr] = LEGACY_PAIRS[0]!;

  it("refuses mixed case, testnet and other prefixes, other types and lengths", () => {
    expect(reason("BCH", `bitcoincash:${cashaddr.slice(12, 20).toUpperCase()}${cashaddr.slice(20)}`)).toMatch(
      /mixed-case/,
    );
    expect(reason("BCH", SIZED[1]![2])).toBe("not a mainnet address (bchtest:)");
    expect(reason("BCH", SIZED[2]![2])).toBe("not a Bitcoin Cash address");
    // 192-bit P2PKH (spec vector, size bits 1) and the checksum-only vector's type byte.
    expect(reason("BCH", "bitcoincash:q9adhakpwzztepkpwp5z0dq62m6u5v5xtyj7j3h2ws4mr9g0")).toMatch(
      /unsupported CashAddr type/,
    );
    expect(reason("BCH", CHECKSUM_ONLY[2]!)).toMatch(/unsupported CashAddr type|wrong payload length/);
  });

  it("refuses Bitcoin's own formats (segwit) and the legacy testnet versions", () => {
    expect(reason("BCH", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")).toBe(
      "a Bitcoin segwit address, not a Bitcoin Cash one",
    );
    expect(reason("BCH", "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn")).toBe("not a mainnet address");
    expect(reason("BCH", "LTVdcw8fdTTK4TcebTZ4jiiCbvTXaRxZNh")).toBe("not a Bitcoin Cash address");
  });

  it("a CashAddr is refused for BTC, LTC and DOGE with its own reason, prefixed or not", () => {
    for (const address of [cashaddr, cashaddr.slice(12), cashaddr.toUpperCase(), SIZED[1]![2]])
      expect(reason("BTC", address)).toBe("a Bitcoin Cash address, not a Bitcoin one");
    expect(reason("LTC", cashaddr)).toBe("a Bitcoin Cash address, not a Litecoin one");
    expect(reason("DOGE", cashaddr)).toBe("a Bitcoin Cash address, not a Dogecoin one");
  });

  it("BTC keeps its legacy base58 addresses (the format Bitcoin Cash shares)", () => {
    expect(validateAddress("BTC", LEGACY_PAIRS[0]![0])).toEqual({
      ok: true,
      address: LEGACY_PAIRS[0]![0],
      tag: null,
    });
  });

  it("test mode's testnet: bchtest CashAddr and legacy m/n/2 addresses, normalised; mainnet refused", () => {
    expect(validateBchAddress(SIZED[1]![2], true)).toEqual({ ok: true, address: SIZED[1]![2], tag: null });
    const testLegacy = validateBchAddress("mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", true);
    expect(testLegacy.ok && testLegacy.address.startsWith("bchtest:q")).toBe(true);
    expect(validateBchAddress(cashaddr, true)).toEqual({
      ok: false,
      reason: "not a testnet address (bitcoincash:)",
    });
  });
});
