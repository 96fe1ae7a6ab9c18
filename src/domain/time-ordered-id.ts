/**
 * Request ids as UUIDv7 (RFC 9562): the first 48 bits are the Unix time in ms, then the version,
 * then 74 random bits. Still a UUID as docs/errors.md promises, but ids made one after another sort
 * one after another, so the request log's index on them (src/objects/request-log.ts) grows at its
 * end like the table itself instead of taking a write at a random page for every request.
 */

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** The UUIDv7 of `nowMs` with the random bits of `random` (its first 10 bytes are used). */
export function timeOrderedId(nowMs: number, random: Uint8Array): string {
  if (random.length < 10) throw new RangeError("timeOrderedId needs 10 random bytes");
  const time = Math.max(0, Math.floor(nowMs)).toString(16).padStart(12, "0").slice(-12);
  const r = (i: number) => HEX[random[i] as number];
  // Version 7 in the high nibble of byte 6; the variant (binary 10) in the top bits of byte 8.
  const version = HEX[0x70 | ((random[0] as number) & 0x0f)];
  const variant = HEX[0x80 | ((random[2] as number) & 0x3f)];
  return `${time.slice(0, 8)}-${time.slice(8)}-${version}${r(1)}-${variant}${r(3)}-${r(4)}${r(5)}${r(6)}${r(7)}${r(8)}${r(9)}`;
}
