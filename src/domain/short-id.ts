// Crockford base32 (no I, L, O, U): unambiguous when read aloud or typed from a screenshot.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const SHORT_ID_LENGTH = 10;
const SHORT_ID_RE = /^[0-9A-HJKMNP-TV-Z]{10}$/;

/** A random 10-character short id (50 bits). */
export function newShortId(
  random: (n: number) => Uint8Array = (n) => crypto.getRandomValues(new Uint8Array(n)),
): string {
  const bytes = random(SHORT_ID_LENGTH);
  let out = "";
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

/** The canonical (upper-case) form of a short id as a partner typed it, or null if it is not one. */
export function normalizeShortId(input: string): string | null {
  const upper = input.toUpperCase();
  return SHORT_ID_RE.test(upper) ? upper : null;
}
