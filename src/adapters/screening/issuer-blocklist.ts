/**
 * Whether a stablecoin's issuer has blocked an address, asked of the token contract through the
 * network's provider (CHAIN_MODE / CHAIN_URL_<NETWORK>), as the chain readers read it:
 *
 * - EVM JSON-RPC: `eth_call {to: contract, data: selector ‖ address word}` at `latest` → a 32-byte
 *   bool.
 * - TronGrid (java-tron HTTP API): `POST /wallet/triggerconstantcontract` with `visible: true`
 *   (base58 addresses), `function_selector` the signature and `parameter` the address word →
 *   `constant_result[0]`, the same 32-byte bool (tronprotocol.github.io/documentation-en/api/http/smart-contract/triggerconstantcontract).
 *
 * Any failure throws; the caller counts it as "unknown" (screening never blocks on a provider).
 */
import { z } from "zod";
import type { Config } from "../../config";
import { chainModeFor, modeReadsNetwork } from "../../domain/chain-mode";
import { ChainReaderError, parseBody, readerBase } from "../chain/http-util";
import { createJsonRpc } from "../chain/json-rpc";
import type { FetchFn } from "../http-client";

/** Order creation and the payout step wait at most this long for the contract's answer. */
export const ISSUER_CHECK_TIMEOUT_MS = 2_000;

export interface IssuerCall {
  contract: string;
  signature: string;
  selector: string;
  /** The address as an ABI word (src/domain/screening.ts addressWord). */
  word: string;
}

export interface IssuerBlocklistReader {
  family: "evm" | "tron";
  isBlocked(call: IssuerCall): Promise<boolean>;
}

interface Options {
  baseUrl: string;
  fetch?: FetchFn;
  apiKey?: string;
}

const WORD = /^(0x)?[0-9a-fA-F]{64}$/;

function asBool(source: string, word: string | undefined): boolean {
  if (word === undefined || !WORD.test(word))
    throw new ChainReaderError(source, "invalid_body", "the call did not answer one 32-byte word");
  return BigInt(word.startsWith("0x") ? word : `0x${word}`) !== 0n;
}

export function createEvmIssuerReader(options: Options): IssuerBlocklistReader {
  const { source, url, http } = readerBase({ ...options, timeoutMs: ISSUER_CHECK_TIMEOUT_MS }, "evm-rpc", {
    rpc: true,
  });
  const rpc = createJsonRpc(source, http, url);
  return {
    family: "evm",
    async isBlocked(call) {
      const result = await rpc.call("eth_call", [
        { to: call.contract, data: `0x${call.selector}${call.word}` },
        "latest",
      ]);
      return asBool(source, typeof result === "string" ? result : undefined);
    },
  };
}

const tronConstantResult = z.object({
  result: z.object({ result: z.boolean().optional(), message: z.string().optional() }).optional(),
  constant_result: z.array(z.string()).optional(),
});

export function createTronIssuerReader(options: Options): IssuerBlocklistReader {
  const {
    source,
    url: base,
    http,
  } = readerBase({ ...options, timeoutMs: ISSUER_CHECK_TIMEOUT_MS }, "trongrid", {
    headers: options.apiKey ? { "TRON-PRO-API-KEY": options.apiKey } : undefined,
  });
  return {
    family: "tron",
    async isBlocked(call) {
      const body = await http.postJson(`${base}/wallet/triggerconstantcontract`, {
        owner_address: call.contract,
        contract_address: call.contract,
        function_selector: call.signature,
        parameter: call.word,
        visible: true,
      });
      const answer = parseBody(source, tronConstantResult, body, "triggerconstantcontract");
      if (answer.result?.result !== true)
        throw new ChainReaderError(
          source,
          "rpc_error",
          `triggerconstantcontract: ${answer.result?.message ?? "no result"}`,
        );
      return asBool(source, answer.constant_result?.[0]);
    },
  };
}

/** The issuer-blocklist reader of `network`'s configured real reader, or null (simulated, or not EVM/TRON). */
export function issuerReaderFor(config: Config, network: string): IssuerBlocklistReader | null {
  const mode = chainModeFor(config.CHAIN_MODE, network);
  const baseUrl = config.chain.urls[network];
  if (mode === undefined || mode === "simulated" || !baseUrl || !modeReadsNetwork(mode, network)) return null;
  const apiKey = config.chain.apiKeys[network];
  if (mode === "evm") return createEvmIssuerReader({ baseUrl });
  if (mode === "trongrid") return createTronIssuerReader(apiKey ? { baseUrl, apiKey } : { baseUrl });
  return null;
}
