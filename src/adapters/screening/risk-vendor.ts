/**
 * An optional risk vendor asked about live addresses (docs/operators.md, "Screening vendor"). One
 * implementation: Chainalysis's free sanctions API, `GET {base}/api/v1/address/{address}` with the
 * key in `X-API-Key`, answering `{"identifications": [{category, name, description, url}]}`; any
 * identification means the address is sanctioned (Chainalysis, "Sanctions Screening API"; the
 * same call Unstoppable Wallet's ChainalysisAddressValidator makes).
 *
 * The vendor never blocks: every call has SCREENING_VENDOR_TIMEOUT_MS (default VENDOR_BUDGET_MS),
 * and a failure or a late answer throws, which the caller counts as "unknown".
 */
import { z } from "zod";
import type { Config } from "../../config";
import type { ScreeningCategory } from "../../domain/screening";
import { createHttpClient, type FetchFn, validateBody } from "../http-client";

export const VENDOR_BUDGET_MS = 300;
/**
 * The most addresses of one deposit's sources (a UTXO transaction's inputs) asked of the vendor: a
 * Worker keeps at most 6 connections open at once (Cloudflare Workers limits), so the calls go out
 * in one wave and the deposit's screening stays within the budget. The rest are screened on the lists.
 */
export const VENDOR_SOURCES_AT_MOST = 6;

export interface RiskVendor {
  /** The categories the vendor lists the address under (none: clear). Throws when it cannot answer. */
  screen(address: string): Promise<ScreeningCategory[]>;
}

export class RiskVendorError extends Error {}

const chainalysisAnswer = z.object({
  identifications: z.array(z.object({ category: z.string().max(200).optional() }).passthrough()).max(1000),
});

export function createChainalysisVendor(options: {
  baseUrl: string;
  apiKey: string;
  fetch?: FetchFn;
  timeoutMs?: number;
}): RiskVendor {
  const fail = (_kind: string, message: string) => new RiskVendorError(`chainalysis: ${message}`);
  const http = createHttpClient("chainalysis", {
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    defaultTimeoutMs: VENDOR_BUDGET_MS,
    maxBodyChars: 200_000,
    headers: { "X-API-Key": options.apiKey },
    fail,
  });
  const base = options.baseUrl.replace(/\/+$/, "");
  return {
    async screen(address) {
      const body = await http.getJson(`${base}/api/v1/address/${encodeURIComponent(address)}`);
      const { identifications } = validateBody(chainalysisAnswer, body, "address answer", fail);
      return identifications.length > 0 ? ["sanctions"] : [];
    },
  };
}

/** The configured vendor, or null (SCREENING_VENDOR=none, or no key). */
export function riskVendorFor(config: Config): RiskVendor | null {
  if (config.SCREENING_VENDOR !== "chainalysis" || !config.SCREENING_VENDOR_API_KEY) return null;
  return createChainalysisVendor({
    baseUrl: config.SCREENING_VENDOR_URL,
    apiKey: config.SCREENING_VENDOR_API_KEY,
  });
}
