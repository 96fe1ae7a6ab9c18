export const CHAIN_MODES = ["simulated", "esplora", "evm", "trongrid"] as const;
export type ChainMode = (typeof CHAIN_MODES)[number];

/**
 * CHAIN_MODE is either one mode for every network (`simulated`) or a comma-separated list of
 * `NETWORK:mode` entries with an optional `*:mode` default, e.g.
 * `BTC:esplora,LTC:esplora,ETH:evm,BSC:evm,TRX:trongrid,*:simulated`. Unlisted networks without
 * a default are `simulated`. Unknown modes yield undefined, so callers can refuse them loudly.
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
