/**
 * What a quote or an order costs, named (docs/integrate.md, "Fees"): the service's spread, the
 * partner's markup and the payout network fee, in the destination coin, so that
 *
 *   amount_to = gross − service − partner − network
 *
 * holds exactly, to the coin's decimals. The split is worked back from amount_to, which the quote
 * math computed as floor(gross × (1 − spread − markup) − network): so it needs no prices, and a
 * fixed order locked at yesterday's prices is split as it was quoted. Spread and markup are
 * rounded down; `gross` is their sum with amount_to and the network fee, amount_from at the
 * mid-market rate up to that rounding (a few units of the coin's last decimal, never more).
 */
import { bps, Dec, type Decimal, floorTo, parseDecimal, toDecimalString } from "./money";

export interface FeeSplit {
  gross: Decimal;
  service: Decimal;
  partner: Decimal;
  network: Decimal;
}

export interface FeeTerms {
  /** The payout network fee (decimal string, coin_to). */
  withdrawFee: string;
  spreadBps: number;
  markupBps: number;
  /** coin_to's decimals. */
  decimals: number;
}

export function feeSplit(amountTo: Decimal, t: FeeTerms): FeeSplit {
  const network = parseDecimal(t.withdrawFee);
  const gross = amountTo.plus(network).div(new Dec(1).minus(bps(t.spreadBps).plus(bps(t.markupBps))));
  const service = floorTo(gross.times(bps(t.spreadBps)), t.decimals);
  const partner = floorTo(gross.times(bps(t.markupBps)), t.decimals);
  return { gross: amountTo.plus(network).plus(service).plus(partner), service, partner, network };
}

/** The split as decimal strings, as an order stores it. */
export type StoredFees = Record<keyof FeeSplit, string>;

export function storedFees(f: FeeSplit): StoredFees {
  return {
    gross: toDecimalString(f.gross),
    service: toDecimalString(f.service),
    partner: toDecimalString(f.partner),
    network: toDecimalString(f.network),
  };
}
