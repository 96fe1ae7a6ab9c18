/**
 * Protobuf's wire format read by hand, length-delimited fields only (all of Ledger's
 * NewTransactionResponse): the tests decode the swap payload without the code that encoded it.
 */
export function decodeProtobuf(bytes: Uint8Array): Map<number, Uint8Array> {
  const fields = new Map<number, Uint8Array>();
  let at = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++];
      if (b === undefined) throw new Error("truncated varint");
      value |= (b & 0x7f) << shift;
      if (b < 0x80) return value;
      shift += 7;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    if ((key & 7) !== 2) throw new Error(`field ${key >> 3}: wire type ${key & 7}, not length-delimited`);
    const length = varint();
    fields.set(key >> 3, bytes.slice(at, at + length));
    at += length;
  }
  return fields;
}

/** An unsigned big-endian byte string as a number (protobuf `bytes` amounts); absent is zero. */
export const bigEndian = (b: Uint8Array | undefined): bigint =>
  b ? b.reduce((n, byte) => (n << 8n) | BigInt(byte), 0n) : 0n;
