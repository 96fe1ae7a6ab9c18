/**
 * The sanctions list's download: one text file per asset from a mirror of OFAC's SDN digital-currency
 * addresses (docs/operators.md, "Sanctions list"). The default mirror is
 * 0xB10C/ofac-sanctioned-digital-currency-addresses, whose `lists` branch a nightly job rewrites
 * with `sanctioned_addresses_<ASSET>.txt`, one address per line.
 */
import { createHttpClient, type FetchFn } from "../http-client";

/** The largest file is a few hundred addresses; anything near this is not the list. */
const MAX_BODY_CHARS = 2_000_000;
const TIMEOUT_MS = 15_000;

export class SanctionsDownloadError extends Error {}

/** The asset file's text; throws SanctionsDownloadError on a timeout, a network error or a non-2xx. */
export function downloadSanctionsFile(urlTemplate: string, asset: string, fetch?: FetchFn): Promise<string> {
  const http = createHttpClient("sanctions list", {
    fetch,
    defaultTimeoutMs: TIMEOUT_MS,
    maxBodyChars: MAX_BODY_CHARS,
    fail: (_kind, message) => new SanctionsDownloadError(`${asset}: ${message}`),
  });
  return http.getText(urlTemplate.replaceAll("{asset}", asset));
}
