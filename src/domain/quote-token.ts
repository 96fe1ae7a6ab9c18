import { base64url, base64urlnopad } from "@scure/base";

/**
 * Fixed quotes are self-contained: `quote_id` carries the quote's terms and an HMAC over them, so
 * quoting writes nothing and locking reads nothing. A stored quote would cost one write per
 * request on the single D1 primary, for quotes that are mostly never used (they are requested as
 * users type amounts); the quote that an order locks is stored with the order.
 *
 * Form: `q1.<base64url(JSON terms)>.<base64url(first 16 bytes of HMAC-SHA256(key, "q1." + terms))>`.
 * 128 bits of tag make forgery as hard as guessing a random UUID would have been.
 */
export interface QuoteTerms {
  /** The partner the quote was priced for; null for a public quote, which no order can lock. */
  partnerId: string | null;
  coinFrom: string;
  networkFrom: string;
  coinTo: string;
  networkTo: string;
  /** Decimal strings, as the quote computed them. */
  amountFrom: string;
  amountTo: string;
  rate: string;
  /** Unix milliseconds. */
  expiresAt: number;
}

const PREFIX = "q1.";
const TAG_BYTES = 16;
const NONCE_BYTES = 6;
const QUOTE_ID_RE = /^q1\.([A-Za-z0-9_-]{1,1000})\.([A-Za-z0-9_-]{22})$/;

type Wire = [string | null, string, string, string, string, string, string, string, number, string];

const utf8 = new TextEncoder();

/**
 * base64urlnopad's text, made by the runtime's own encoder where it has one (scure's `base64url`
 * uses `Uint8Array.prototype.toBase64`; its `base64urlnopad` re-groups bits in JavaScript, which
 * was most of what signing a quote cost), without the padding.
 */
function unpadded(bytes: Uint8Array): string {
  const text = base64url.encode(bytes);
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61 /* = */) end--;
  return end === text.length ? text : text.slice(0, end);
}

export async function quoteSigningKey(secret: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

async function tag(key: CryptoKey, signed: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", key, utf8.encode(signed));
  return unpadded(new Uint8Array(mac, 0, TAG_BYTES));
}

export async function signQuote(key: CryptoKey, t: QuoteTerms): Promise<string> {
  // A nonce, so that two identical quotes in the same millisecond still get distinct ids.
  const nonce = unpadded(crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
  const wire: Wire = [
    t.partnerId,
    t.coinFrom,
    t.networkFrom,
    t.coinTo,
    t.networkTo,
    t.amountFrom,
    t.amountTo,
    t.rate,
    t.expiresAt,
    nonce,
  ];
  const signed = `${PREFIX}${unpadded(utf8.encode(JSON.stringify(wire)))}`;
  return `${signed}.${await tag(key, signed)}`;
}

/** The terms of a quote this service signed with `key`; null for anything else (garbled, forged, other key). */
export async function verifyQuote(key: CryptoKey, quoteId: string): Promise<QuoteTerms | null> {
  const m = QUOTE_ID_RE.exec(quoteId);
  if (!m) return null;
  const signed = `${PREFIX}${m[1]}`;
  const expected = await tag(key, signed);
  // Compared as text: a garbled tag is then simply unequal, never a decoding error.
  if (!crypto.subtle.timingSafeEqual(utf8.encode(expected), utf8.encode(m[2] as string))) return null;
  const w = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(m[1] as string))) as Wire;
  return {
    partnerId: w[0],
    coinFrom: w[1],
    networkFrom: w[2],
    coinTo: w[3],
    networkTo: w[4],
    amountFrom: w[5],
    amountTo: w[6],
    rate: w[7],
    expiresAt: w[8],
  };
}
