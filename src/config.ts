import { z } from "zod";
import type { DepositConfig } from "./domain/deposit";

// Env vars arrive as strings (wrangler [vars], .dev.vars, secrets). They are parsed once per env
// object into a typed config carrying the defaults of DESIGN.md, so a missing var is never a crash.
const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const flag = (def: boolean) =>
  z
    .enum(["true", "false", "1", "0", ""])
    .default(def ? "true" : "false")
    .transform((v) => v === "true" || v === "1");
const list = (def: string) =>
  z
    .string()
    .default(def)
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim().toUpperCase())
        .filter(Boolean),
    );

export const configSchema = z.object({
  ADMIN_TOKEN: z.string().optional(),
  PRICE_SOURCE: z.enum(["simulated", "static", "http"]).default("simulated"),
  PRICE_MAX_AGE_SECONDS: int(300, 1),
  STABLECOINS_PINNED: list("USDT,USDC"),
  SPREAD_FLOAT_BPS: int(50),
  SPREAD_FIXED_BPS: int(100),
  FIXED_QUOTE_TTL_SECONDS: int(60, 1),
  ORDER_EXPIRY_SECONDS: int(1800, 1),
  FIXED_AMOUNT_TOLERANCE_BPS: int(10),
  LATE_DEPOSIT_WATCH_HOURS: int(24),
  PUBLIC_RATE_LIMIT_PER_MINUTE: int(60, 1),
  DEFAULT_PARTNER_RATE_LIMIT_PER_MINUTE: int(600, 1),
  CHAIN_MODE: z.string().default("simulated"),
  CHAIN_POLL_SECONDS: int(15, 1),
  EXCHANGE_MODE: z.enum(["simulated", "http"]).default("simulated"),
  PAYOUT_MODE: z.enum(["simulated", "http"]).default("simulated"),
  PAYOUT_MAX_ATTEMPTS: int(5, 1),
  ALLOW_HTTP_WEBHOOKS: flag(false),
});

export type Config = z.infer<typeof configSchema> & { deposit: DepositConfig };

/** DEPOSIT_XPUB_<FAMILY> and DEPOSIT_ADDRESS_<NETWORK> vars, keyed by their suffix. */
function depositConfig(env: object): DepositConfig {
  const xpubs: Record<string, string> = {};
  const addresses: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (typeof value !== "string" || value.trim() === "") continue;
    if (key.startsWith("DEPOSIT_XPUB_")) xpubs[key.slice("DEPOSIT_XPUB_".length)] = value.trim();
    else if (key.startsWith("DEPOSIT_ADDRESS_"))
      addresses[key.slice("DEPOSIT_ADDRESS_".length)] = value.trim();
  }
  return { xpubs, addresses };
}

const cache = new WeakMap<object, Config>();

export class ConfigError extends Error {}

export function getConfig(env: Env): Config {
  let config = cache.get(env);
  if (!config) {
    const parsed = configSchema.safeParse(env);
    if (!parsed.success) {
      const fields = parsed.error.issues.map((i) => i.path.join(".")).join(", ");
      throw new ConfigError(`invalid configuration: ${fields}`);
    }
    config = { ...parsed.data, deposit: depositConfig(env) };
    cache.set(env, config);
  }
  return config;
}
