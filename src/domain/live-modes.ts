// Whether the configured modes may run live money together (docs/operators.md, "Guard rails").
import { CHAIN_MODES } from "./chain-mode";

export interface ModeSettings {
  CHAIN_MODE: string;
  EXCHANGE_MODE: "simulated" | "binance";
  PAYOUT_MODE: "simulated" | "http";
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
  return problems;
}
