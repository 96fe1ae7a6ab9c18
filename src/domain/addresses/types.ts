export type AddressFamily = "btc" | "bch" | "ltc" | "doge" | "evm" | "tron" | "sol" | "xrp" | "xlm" | "ton";

export type AddressCheck = { ok: true; address: string; tag: string | null } | { ok: false; reason: string };

export type TagCheck = { ok: true; tag: string } | { ok: false; reason: string };

export function accepted(address: string, tag: string | null = null): AddressCheck {
  return { ok: true, address, tag };
}

export function rejected(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
