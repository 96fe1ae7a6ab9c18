/**
 * Simulated market prices for dev and tests: no network, reproducible.
 *
 * price(coin, t) = seed(coin) × (1 + MAX_DEVIATION × noise(coin, floor(t / 60 s)))
 *
 * `noise` is multi-octave value noise: every `period` minutes a knot gets a pseudo-random value in
 * [-1, 1) from a hash of (coin, octave, knot index); minutes between knots interpolate with a
 * smoothstep. Octave weights sum to 1, so |noise| ≤ 1 and the price stays within ±5% of the seed,
 * forever, without iterating over history: each minute is computed directly. Slow octaves give the
 * trend, fast ones the wiggle; one minute never moves more than ~0.3%.
 *
 * The noise uses binary floating point (it is a random number, not money); it is turned into an
 * integer number of parts-per-billion before it touches the seed price, and everything after that
 * is decimal arithmetic. Only IEEE-exact operations (+, −, ×, ÷, Math.imul) are used, so the same
 * (coin, minute) gives the same string on every engine.
 */
import { Dec, type Decimal, parseDecimal } from "../../domain/money";
import { inRequestOrder, normalizeCoins, type PriceQuote, priceString } from "../../domain/prices";
import type { PriceSource } from "./types";

/** Approximate USD prices of every coin in the seed catalog (migrations/, 2025 levels). */
export const SEED_USD_PRICES: Readonly<Record<string, string>> = Object.freeze({
  BTC: "97000",
  ETH: "3400",
  USDT: "1",
  USDC: "1",
  LTC: "105",
  DOGE: "0.32",
  BNB: "650",
  TRX: "0.25",
  SOL: "190",
  XRP: "2.3",
  XLM: "0.4",
  TON: "5.4",
  POL: "0.45",
  AVAX: "35",
  ETC: "25",
  DASH: "35",
  BCH: "450",
  LINK: "15",
});

/** Largest relative distance from the seed price. */
export const MAX_DEVIATION = 0.05;
/** Prices change once per bucket. */
export const BUCKET_MS = 60_000;

const OCTAVES: readonly { periodMinutes: number; weight: number }[] = [
  { periodMinutes: 240, weight: 0.7 },
  { periodMinutes: 30, weight: 0.25 },
  { periodMinutes: 5, weight: 0.05 },
];

const PPB = 1_000_000_000;

/** FNV-1a over the UTF-16 code units, then a murmur3 finalizer for avalanche. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Knot value in [-1, 1). */
function knot(coin: string, octave: number, index: number): number {
  return (hash32(`${coin}|${octave}|${index}`) / 0x1_0000_0000) * 2 - 1;
}

/** Noise in [-1, 1] for a coin at a minute index (any integer, negative included). */
export function noise(coin: string, minute: number): number {
  let sum = 0;
  OCTAVES.forEach(({ periodMinutes, weight }, octave) => {
    const index = Math.floor(minute / periodMinutes);
    const t = (minute - index * periodMinutes) / periodMinutes;
    const s = t * t * (3 - 2 * t);
    const a = knot(coin, octave, index);
    const b = knot(coin, octave, index + 1);
    sum += weight * (a + (b - a) * s);
  });
  return sum;
}

/** The simulated price of `coin` (upper case) with seed price `seed` at `now` (epoch ms). */
export function simulatedPrice(coin: string, seed: Decimal, now: number): string {
  const minute = Math.floor(now / BUCKET_MS);
  const ppb = Math.round(noise(coin, minute) * MAX_DEVIATION * PPB);
  return priceString(seed.mul(PPB + ppb).div(PPB));
}

/**
 * A deterministic PriceSource around `seed` (coin → USD decimal string, > 0). Coins without a seed
 * are left out of the result. Throws RangeError at creation for a bad seed price.
 */
export function createSimulatedSource(seed: Readonly<Record<string, string>> = SEED_USD_PRICES): PriceSource {
  const seeds = new Map<string, Decimal>();
  for (const [rawCoin, usd] of Object.entries(seed)) {
    const price = parseDecimal(usd);
    if (price.isZero()) throw new RangeError(`seed price of ${rawCoin} must be > 0`);
    seeds.set(rawCoin.trim().toUpperCase(), new Dec(price));
  }
  return {
    name: "simulated",
    async fetchPrices(coins: readonly string[], now: number): Promise<PriceQuote[]> {
      if (!Number.isFinite(now)) throw new RangeError(`now must be a finite epoch-ms time, got ${now}`);
      const wanted = normalizeCoins(coins);
      const found = new Map<string, string>();
      for (const coin of wanted) {
        const s = seeds.get(coin);
        if (s) found.set(coin, simulatedPrice(coin, s, now));
      }
      return inRequestOrder(wanted, found);
    },
  };
}
