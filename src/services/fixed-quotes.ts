import { DomainError } from "../domain/errors";
import { type Decimal, parseDecimal, toDecimalString } from "../domain/money";
import type { ResolvedPair } from "../domain/pairs";
import { type QuoteTerms, quoteSigningKey, signQuote, verifyQuote } from "../domain/quote-token";
import { TtlCache } from "../lib/ttl-cache";
import { signingSecret } from "../storage/signing-keys";
import type { PricedQuote } from "./quoting";

// The key is read from D1 once per isolate and ten minutes; a rotated key (row deleted) takes
// effect within that time.
const keys = new TtlCache<CryptoKey>(600_000, 4);

function quoteKey(db: D1Database): Promise<CryptoKey> {
  return keys.get("quote", async () => quoteSigningKey(await signingSecret(db, "quote")));
}

/** The `quote_id` of a fixed quote: its terms, signed. */
export async function issueFixedQuote(db: D1Database, terms: QuoteTerms): Promise<string> {
  return signQuote(await quoteKey(db), terms);
}

/** The `quote_id` that lets `partnerId` (null: a keyless caller) lock what was priced, until `expiresAt`. */
export function issueQuoteFor(
  db: D1Database,
  partnerId: string | null,
  { pair, quote }: Pick<PricedQuote, "pair" | "quote">,
  expiresAt: number,
): Promise<string> {
  return issueFixedQuote(db, {
    partnerId,
    coinFrom: pair.from.coin,
    networkFrom: pair.from.network,
    coinTo: pair.to.coin,
    networkTo: pair.to.network,
    amountFrom: toDecimalString(quote.amountFrom),
    amountTo: toDecimalString(quote.amountTo),
    rate: toDecimalString(quote.rate),
    expiresAt,
  });
}

/** The terms a `quote_id` carries, whoever it was issued to and whether or not it expired; null if not ours. */
export async function readFixedQuote(db: D1Database, quoteId: string): Promise<QuoteTerms | null> {
  return verifyQuote(await quoteKey(db), quoteId);
}

export interface LockRequest {
  partnerId: string;
  pair: ResolvedPair;
  amountFrom: Decimal;
}

/** The terms of `quoteId` if this partner may lock it for this pair and amount now; 422 otherwise. */
export async function lockFixedQuote(
  db: D1Database,
  quoteId: string,
  req: LockRequest,
  now: number,
): Promise<QuoteTerms> {
  const q = await verifyQuote(await quoteKey(db), quoteId);
  if (!q || q.partnerId !== req.partnerId) {
    throw new DomainError(
      "quote_not_found",
      "No such quote for this partner; request a fixed quote with your API key.",
    );
  }
  if (now > q.expiresAt)
    throw new DomainError("quote_expired", `The quote expired at ${new Date(q.expiresAt).toISOString()}.`);
  const { from, to } = req.pair;
  const same =
    q.coinFrom === from.coin &&
    q.networkFrom === from.network &&
    q.coinTo === to.coin &&
    q.networkTo === to.network &&
    parseDecimal(q.amountFrom).eq(req.amountFrom);
  if (!same) {
    throw new DomainError(
      "quote_mismatch",
      `The quote is for ${q.amountFrom} ${q.coinFrom}/${q.networkFrom} → ${q.coinTo}/${q.networkTo}; the order must match it.`,
    );
  }
  return q;
}
