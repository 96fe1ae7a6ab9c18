/**
 * Whether a payout's recipient account exists, asked of the same providers the chain readers read
 * (CHAIN_MODE / CHAIN_URL_<NETWORK>), for the activation rule (src/domain/payout-activation.ts).
 * Kept apart from the readers: this is one cheap call at order creation, not deposit tracking.
 *
 * - rippled: `account_info {account, ledger_index: "validated"}` → `account_data` = active; the error
 *   `actNotFound` (error_code 19, "Account not found.") = missing.
 * - Horizon: `GET {base}/accounts/{id}` → 200 = active; 404 (problem "Resource Missing") = missing.
 * - toncenter v3: `GET {base}/addressInformation?address={a}&use_v2=false` → `status`: `active` =
 *   active; `uninit` / `nonexist` (v2 spelling `uninitialized`) = missing; `frozen` = unknown.
 *
 * Anything else (timeouts, 5xx, other errors, bodies of another shape) throws ChainReaderError; the
 * caller treats it as unknown.
 */
import { z } from "zod";
import type { Config } from "../../config";
import { chainModeFor, modeReadsNetwork } from "../../domain/chain-mode";
import type { AccountState } from "../../domain/payout-activation";
import type { FetchFn } from "../http-client";
import { ChainReaderError, parseBody, readerBase } from "./http-util";

/** Order creation waits at most this long for the provider; then the state is unknown. */
export const ACCOUNT_STATE_TIMEOUT_MS = 3_000;

export interface AccountStateReader {
  state(address: string): Promise<AccountState>;
}

interface Options {
  baseUrl: string;
  fetch?: FetchFn;
  timeoutMs?: number;
  apiKey?: string;
}

const withTimeout = (o: Options) => ({ ...o, timeoutMs: o.timeoutMs ?? ACCOUNT_STATE_TIMEOUT_MS });

const rippledResult = z.object({
  result: z.object({
    status: z.string().optional(),
    error: z.string().optional(),
    account_data: z.object({ Account: z.string() }).optional(),
  }),
});

export function createRippledAccountState(options: Options): AccountStateReader {
  const { source, url, http } = readerBase(withTimeout(options), "rippled", { rpc: true });
  return {
    async state(address) {
      const body = await http.postJson(url, {
        method: "account_info",
        params: [{ account: address, ledger_index: "validated" }],
      });
      const { result } = parseBody(source, rippledResult, body, "account_info response");
      if (result.error === "actNotFound") return "missing";
      if (result.error !== undefined)
        throw new ChainReaderError(source, "rpc_error", `account_info: ${result.error}`);
      if (result.account_data?.Account !== address)
        throw new ChainReaderError(source, "invalid_body", "account_info without the account's data");
      return "active";
    },
  };
}

const horizonAccount = z.object({ account_id: z.string() });

export function createHorizonAccountState(options: Options): AccountStateReader {
  const { source, url: base, http } = readerBase(withTimeout(options), "horizon");
  return {
    async state(address) {
      let body: unknown;
      try {
        body = await http.getJson(`${base}/accounts/${encodeURIComponent(address)}`);
      } catch (err) {
        if (err instanceof ChainReaderError && err.status === 404) return "missing";
        throw err;
      }
      if (parseBody(source, horizonAccount, body, "account").account_id !== address)
        throw new ChainReaderError(source, "invalid_body", "account record for another account");
      return "active";
    },
  };
}

const tonAddressInformation = z.object({ status: z.string().max(40) });
const TON_STATES: Readonly<Record<string, AccountState>> = {
  active: "active",
  uninit: "missing",
  uninitialized: "missing",
  nonexist: "missing",
};

export function createToncenterAccountState(options: Options): AccountStateReader {
  const {
    source,
    url: base,
    http,
  } = readerBase(withTimeout(options), "toncenter", {
    headers: options.apiKey ? { "X-API-Key": options.apiKey } : undefined,
  });
  return {
    async state(address) {
      const query = new URLSearchParams({ address, use_v2: "false" });
      const body = await http.getJson(`${base}/addressInformation?${query}`);
      const { status } = parseBody(source, tonAddressInformation, body, "addressInformation");
      return TON_STATES[status] ?? "unknown";
    },
  };
}

/**
 * The account-state reader of `network`'s configured real reader, or null: simulated networks
 * (and networks whose reader has no such question) are never asked.
 */
export function accountStateReaderFor(config: Config, network: string): AccountStateReader | null {
  const mode = chainModeFor(config.CHAIN_MODE, network);
  const baseUrl = config.chain.urls[network];
  if (mode === undefined || mode === "simulated" || !baseUrl || !modeReadsNetwork(mode, network)) return null;
  const apiKey = config.chain.apiKeys[network];
  switch (mode) {
    case "rippled":
      return createRippledAccountState({ baseUrl });
    case "horizon":
      return createHorizonAccountState({ baseUrl });
    case "toncenter":
      return createToncenterAccountState(apiKey ? { baseUrl, apiKey } : { baseUrl });
    default:
      return null;
  }
}
