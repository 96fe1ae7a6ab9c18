/**
 * The binary swap payload a Ledger device checks, and its signature (docs/ledger.md, "Payload and
 * signature"). The message is `ledger_swap.NewTransactionResponse` of Ledger's exchange app
 * (LedgerHQ/ledger-live libs/ledgerjs/packages/hw-app-exchange/protocol.proto; LedgerHQ/app-exchange
 * src/proto/protocol.proto), with the device's nonce in `device_transaction_id_ng` (field 12) as
 * the unified "SWAP_NEW" flow requires. It travels base64url-encoded and is signed as a JWS with
 * an empty protected header (RFC 7515 §7.2.2, flattened): ECDSA P-256 over SHA-256 of
 * "." + payload, the signature as the 64 bytes r‖s — what the app checks with the partner key's
 * curve set to secp256r1 (app-exchange docs/technical_information/protocol.md, SET_PARTNER_KEY and
 * CHECK_TRANSACTION_SIGNATURE; hw-app-exchange src/SwapSignature.ts).
 */
import { p256 } from "@noble/curves/nist.js";
import { base64urlnopad, hex } from "@scure/base";
import { type Decimal, parseDecimal } from "./money";

export interface SwapPayloadFields {
  payinAddress: string;
  payinExtraId: string | null;
  refundAddress: string;
  refundExtraId: string | null;
  payoutAddress: string;
  payoutExtraId: string | null;
  /** Ledger's own currency ids (`payloadCurrencyFrom/To`): the device knows no other. */
  currencyFrom: string;
  currencyTo: string;
  /** What the user sends and what the wallet receives, in each coin's smallest unit. */
  amountToProvider: bigint;
  amountToWallet: bigint;
  /** The device's nonce (`device_transaction_id_ng`). */
  nonce: Uint8Array;
}

/** An amount in a coin's smallest unit (rounded down: a payload never promises a fraction more). */
export function smallestUnits(amount: Decimal | string, decimals: number): bigint {
  const scaled = parseDecimal(amount).times(parseDecimal(10).pow(decimals)).floor();
  return BigInt(scaled.toFixed(0));
}

/** The device's nonce from Ledger's hex (1–64 bytes); null when it is not hex bytes. */
export function parseNonce(text: string): Uint8Array | null {
  return /^(?:[0-9a-fA-F]{2}){1,64}$/.test(text) ? hex.decode(text.toLowerCase()) : null;
}

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** Unsigned big-endian bytes, none for zero (Ledger's amounts are protobuf `bytes`). */
function bigEndian(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array();
  const text = n.toString(16);
  return hex.decode(text.length % 2 ? `0${text}` : text);
}

/**
 * `NewTransactionResponse` in protobuf's wire format: every field is a string or bytes
 * (length-delimited, wire type 2), in field order; empty ones are left out, as proto3 encodes them.
 */
export function encodeSwapPayload(f: SwapPayloadFields): Uint8Array {
  const text = (s: string | null) => new TextEncoder().encode(s ?? "");
  const fields: [number, Uint8Array][] = [
    [1, text(f.payinAddress)],
    [2, text(f.payinExtraId)],
    [3, text(f.refundAddress)],
    [4, text(f.refundExtraId)],
    [5, text(f.payoutAddress)],
    [6, text(f.payoutExtraId)],
    [7, text(f.currencyFrom)],
    [8, text(f.currencyTo)],
    [9, bigEndian(f.amountToProvider)],
    [10, bigEndian(f.amountToWallet)],
    [12, f.nonce],
  ];
  const bytes: number[] = [];
  for (const [field, value] of fields) {
    if (value.length === 0) continue;
    bytes.push(...varint((field << 3) | 2), ...varint(value.length), ...value);
  }
  return Uint8Array.from(bytes);
}

export interface ProviderSig {
  payload: string;
  signature: string;
}

/** The payload and its flattened-JWS signature, with the signing key (32 bytes, hex). */
export function signSwapPayload(payload: Uint8Array, signingKeyHex: string): ProviderSig {
  const encoded = base64urlnopad.encode(payload);
  const signingInput = new TextEncoder().encode(`.${encoded}`);
  const signature = p256.sign(signingInput, hex.decode(signingKeyHex), { format: "compact" });
  return { payload: encoded, signature: base64urlnopad.encode(signature) };
}

/** The signing key's public key as Ledger registers it: uncompressed SEC1 point, hex. */
export function ledgerPublicKey(signingKeyHex: string): string {
  return hex.encode(p256.getPublicKey(hex.decode(signingKeyHex), false));
}
