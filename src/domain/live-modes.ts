// Whether the configured modes may run live money together, and whether a deploy that pays out
// real coin has its public origin (docs/operators.md, "Guard rails").
import { CHAIN_MODES } from "./chain-mode";

export interface ModeSettings {
  CHAIN_MODE: string;
  EXCHANGE_MODE: "simulated" | "binance";
  PAYOUT_MODE: "simulated" | "http";
  CABINET_ORIGIN: string;
}

/**
 * Whether an origin can serve the cabinet to partners: https on a public host. Its default,
 * http://localhost:8787, serves only a developer's machine (passkeys need https off localhost).
 */
function isPublicOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "https:") return false;
  const host = url.hostname;
  return !(
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host.startsWith("127.") ||
    host === "[::1]"
  );
}

/** Whether CHAIN_MODE names any real reader (a bare mode, a `NETWORK:mode` or a `*:mode` entry). */
function namesRealReader(setting: string): boolean {
  return setting
    .split(",")
    .map((entry) => (entry.includes(":") ? entry.slice(entry.indexOf(":") + 1) : entry).trim())
    .some((mode) => mode !== "" && mode !== "simulated" && (CHAIN_MODES as readonly string[]).includes(mode));
}

/**
 * The reasons live orders must not run with these modes, empty when they may. Half-simulated
 * money is worse than none: real payouts for venue trades that never happened, or real deposits
 * whose payouts land on a SimChain. Per-network deposit rules are realPayoutRefusal's.
 */
export function liveModeProblems(modes: ModeSettings): string[] {
  const problems: string[] = [];
  if (modes.PAYOUT_MODE === "http" && modes.EXCHANGE_MODE === "simulated")
    problems.push("payouts are real (PAYOUT_MODE=http) but the venue is simulated (EXCHANGE_MODE=simulated)");
  if (modes.PAYOUT_MODE === "simulated" && namesRealReader(modes.CHAIN_MODE))
    problems.push(
      "deposits are read from real chains (CHAIN_MODE) but payouts are simulated (PAYOUT_MODE=simulated)",
    );
  // Real payouts mean a production deploy: its cabinet (invites, passkeys, the Origin check) must
  // be reachable, not the local default.
  if (modes.PAYOUT_MODE === "http" && !isPublicOrigin(modes.CABINET_ORIGIN))
    problems.push(
      `payouts are real (PAYOUT_MODE=http) but the cabinet's origin is ${modes.CABINET_ORIGIN} (CABINET_ORIGIN): set the public https origin`,
    );
  return problems;
}
