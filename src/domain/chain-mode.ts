import { type AddressFamily, addressFamily } from "./addresses";

export const CHAIN_MODES = [
  "simulated",
  "esplora",
  "blockbook",
  "evm",
  "trongrid",
  "rippled",
  "horizon",
  "toncenter",
  "solana",
] as const;
export type ChainMode = (typeof CHAIN_MODES)[number];
export type RealChainMode = Exclude<ChainMode, "simulated">;

/** The address families each real reader can read (docs/adapters.md, "Chain readers"). */
const READS: Readonly<Record<RealChainMode, readonly AddressFamily[]>> = {
  esplora: ["btc", "ltc"],
  blockbook: ["btc", "bch", "ltc", "doge"],
  evm: ["evm"],
  trongrid: ["tron"],
  rippled: ["xrp"],
  horizon: ["xlm"],
  toncenter: ["ton"],
  solana: ["sol"],
};

/** Whether `mode` is a real reader of `network`'s chain (`DOGE:evm` is not). */
export function modeReadsNetwork(mode: RealChainMode, network: string): boolean {
  const family = addressFamily(network.toUpperCase());
  return family !== undefined && READS[mode].includes(family);
}

/**
 * CHAIN_MODE is either one mode for every network (`simulated`) or a comma-separated list of
 * `NETWORK:mode` entries with an optional `*:mode` default, e.g.
 * `BTC:esplora,BCH:blockbook,LTC:esplora,DOGE:blockbook,ETH:evm,BSC:evm,TRX:trongrid,SOL:solana,XRP:rippled,XLM:horizon,TON:toncenter`.
 * Unlisted networks without a default are `simulated`. Unknown modes yield undefined, so callers
 * can refuse them loudly.
 */
export function chainModeFor(setting: string, network: string): ChainMode | undefined {
  const trimmed = setting.trim();
  const isMode = (m: string): m is ChainMode => (CHAIN_MODES as readonly string[]).includes(m);
  if (!trimmed.includes(":")) return isMode(trimmed) ? trimmed : undefined;
  let fallback: string = "simulated";
  for (const entry of trimmed.split(",")) {
    const [net, mode] = entry.split(":").map((s) => s.trim());
    if (net === undefined || mode === undefined) continue;
    if (net.toUpperCase() === network.toUpperCase()) return isMode(mode) ? mode : undefined;
    if (net === "*") fallback = mode;
  }
  return isMode(fallback) ? fallback : undefined;
}
