import { z } from "zod";
import { ALERT_ROUTE_FORMATS } from "./domain/alert-routing";
import type { DepositConfig } from "./domain/deposit";
import { parseHoldPolicy } from "./domain/holds";

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
  /** Cloudflare Access in front of /admin/v1 (docs/operators.md): team domain and application AUD tag. */
  ACCESS_TEAM_DOMAIN: z.string().trim().min(1).optional(),
  ACCESS_AUD: z.string().trim().min(1).optional(),
  PRICE_SOURCE: z.enum(["simulated", "static", "http"]).default("simulated"),
  PRICE_MAX_AGE_SECONDS: int(300, 1),
  STABLECOINS_PINNED: list("USDT,USDC"),
  SPREAD_FLOAT_BPS: int(50),
  SPREAD_FIXED_BPS: int(100),
  FIXED_QUOTE_TTL_SECONDS: int(60, 1),
  ORDER_EXPIRY_SECONDS: int(1800, 1),
  FIXED_AMOUNT_TOLERANCE_BPS: int(10),
  FIXED_RATE_CONFIRM_MINUTES: int(120, 1),
  LATE_DEPOSIT_WATCH_HOURS: int(24),
  /** The slow sweep reads an address for new deposits this long after its late-deposit watch (docs/lifecycle.md). */
  AFTER_WATCH_HORIZON_DAYS: int(90),
  /**
   * A terminal order's object keeps all its storage this long, and at least until the slow sweep's
   * horizon; then it compacts to its record and event log (docs/operators.md, "Retention").
   */
  ORDER_RETENTION_DAYS: int(90),
  /**
   * A deposit-address pool (SOL) with fewer unassigned addresses than this alerts the operator
   * (docs/operators.md, "Deposit-address pools"): room for every region's shard block, and a margin.
   */
  ADDRESS_POOL_LOW_WATER: int(200, 1),
  PUBLIC_RATE_LIMIT_PER_MINUTE: int(60, 1),
  /**
   * Operator API requests per IP per minute, counted before the token is checked (its own bucket:
   * the CLI, the soak and an operator's scripts make hundreds a minute from one address).
   */
  ADMIN_RATE_LIMIT_PER_MINUTE: int(1200, 1),
  /** Orders created through widgets and referral links per end-user IP per hour (docs/widget.md). */
  WIDGET_ORDERS_PER_IP_PER_HOUR: int(10, 1),
  /** … and per widget per hour, whoever creates them. */
  WIDGET_ORDERS_PER_WIDGET_PER_HOUR: int(300, 1),
  /** Cloudflare Turnstile on widget order creation: both set, or it is off (docs/widget.md). */
  TURNSTILE_SITE_KEY: z.string().trim().min(1).optional(),
  TURNSTILE_SECRET: z.string().trim().min(1).optional(),
  DEFAULT_PARTNER_RATE_LIMIT_PER_MINUTE: int(600, 1),
  CHAIN_MODE: z.string().default("simulated"),
  CHAIN_POLL_SECONDS: int(15, 1),
  /** Which live networks' orders share their chain reads through a ChainWatch object (docs/performance.md). */
  CHAIN_SHARED_READS: z.enum(["providers", "all", "off"]).default("providers"),
  /** Shared reads: the oldest tip served, and the shortest interval between two multi-address listings. */
  CHAIN_TIP_SECONDS: int(5, 1),
  /** Shared reads: the longest an address's listing is served (a quiet address's new deposit is seen this late at most). */
  CHAIN_ADDRESS_SECONDS: int(180, 1),
  /**
   * Shared reads on a block-scanned network (Esplora, Blockbook): re-listings of quiet addresses (mempool
   * sightings) a minute, all addresses together; mined deposits are found by the block scan.
   */
  CHAIN_LISTINGS_PER_MINUTE: int(60, 1),
  /** Ops only (the soak): each order object counts what it costs (src/objects/order/meter.ts). */
  ORDER_METER: flag(false),
  /** `binance`: market orders on the venue at EXCHANGE_URL (docs/venue.md). */
  EXCHANGE_MODE: z.enum(["simulated", "binance"]).default("simulated"),
  PAYOUT_MODE: z.enum(["simulated", "http"]).default("simulated"),
  PAYOUT_MAX_ATTEMPTS: int(8, 1),
  /**
   * Failed exchange steps before the order takes `exchange_failed`. A venue configuration error is
   * never one, and nothing counts once a leg may be on the venue (docs/lifecycle.md, "The exchange").
   */
  EXCHANGE_MAX_ATTEMPTS: int(8, 1),
  /** The venue's REST base (Binance spot or its testnet); with PRICE_SOURCE=http its ticker prices quotes. */
  EXCHANGE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Worker secrets: the venue's API key and its HMAC secret (EXCHANGE_MODE=binance). */
  EXCHANGE_API_KEY: z.string().optional(),
  EXCHANGE_API_SECRET: z.string().optional(),
  RETRY_BASE_SECONDS: int(15, 1),
  PAYOUT_GATEWAY_URL: z.string().optional(),
  PAYOUT_GATEWAY_SECRET: z.string().optional(),
  ALLOW_HTTP_WEBHOOKS: flag(false),
  WEBHOOK_TIMEOUT_SECONDS: int(10, 1),
  // Longer than a delivery's 3 days of retries, so history never goes while it can still change.
  WEBHOOK_RETENTION_DAYS: int(30, 4),
  /**
   * Where operator alerts go (docs/operators.md, "Alert routing"): unset, they are log lines and
   * GET /admin/v1/alerts only. The secret signs `json` deliveries and is PagerDuty's integration key.
   */
  ALERT_ROUTE_URL: z.url({ protocol: /^https?$/ }).optional(),
  ALERT_ROUTE_FORMAT: z.enum(ALERT_ROUTE_FORMATS).default("json"),
  ALERT_ROUTE_SECRET: z.string().trim().min(1).optional(),
  /** Partner payouts (docs/earnings.md): hours after month close before a statement is paid (≤ 24). */
  STATEMENT_PAYOUT_DELAY_HOURS: int(6),
  /** Hours a new payout address waits before payouts go to it. */
  PAYOUT_COOLING_HOURS: int(48),
  /** The assets partners may choose to be paid in, COIN/NETWORK (a subset of the four offered). */
  PARTNER_PAYOUT_ASSETS: list("BTC/BTC,ETH/ETH,USDC/ETH,USDT/TRX"),
  /** The partner API request log (docs/cabinet.md, "Logs"): off only to measure what it costs. */
  REQUEST_LOG: flag(true),
  REQUEST_LOG_RETENTION_DAYS: int(7, 1),
  /**
   * Screening (docs/operators.md, "Screening"): the sanctions list's per-asset file URL (`{asset}`
   * is the mirror's asset code) and how often the cron downloads it.
   */
  SANCTIONS_LIST_URL: z
    .url({ protocol: /^https?$/ })
    .default(
      "https://raw.githubusercontent.com/0xB10C/ofac-sanctioned-digital-currency-addresses/lists/sanctioned_addresses_{asset}.txt",
    ),
  SANCTIONS_REFRESH_HOURS: int(6, 1),
  /** An optional risk vendor asked about live addresses (`chainalysis`: its public sanctions API). */
  SCREENING_VENDOR: z.enum(["none", "chainalysis"]).default("none"),
  SCREENING_VENDOR_URL: z.url({ protocol: /^https?$/ }).default("https://public.chainalysis.com"),
  /** Worker secret: the vendor's API key. */
  SCREENING_VENDOR_API_KEY: z.string().optional(),
  /** The vendor's budget per address: later, the answer is "unknown" and nothing waits for it. */
  SCREENING_VENDOR_TIMEOUT_MS: int(300, 1),
  /** Live event streams (docs/events.md, "Limits"): an SSE comment this often, so idle connections stay open. */
  STREAM_HEARTBEAT_SECONDS: int(15, 1),
  /** A stream connection is closed after this long; clients reconnect with their last event id. */
  STREAM_MAX_CONNECTION_SECONDS: int(900, 1),
  /** Open stream connections per API key, and per client IP (any stream, with or without a key). */
  STREAM_CONNECTIONS_PER_KEY: int(100, 1),
  STREAM_CONNECTIONS_PER_IP: int(20, 1),
  /** How long a partner's event stream can be resumed from an event id (at least the 7 days promised). */
  STREAM_RETENTION_DAYS: int(7, 7),
  /** The cabinet's origin: WebAuthn's relying-party id is its host name (docs/cabinet.md). */
  CABINET_ORIGIN: z.url().default("http://localhost:8787"),
  /** Per-category hold deadlines and outcomes over the defaults (src/domain/holds.ts, docs/operators.md). */
  HOLD_POLICY: z.string().optional().transform(parseHoldPolicy),
});

export interface ChainEndpoints {
  /** CHAIN_URL_<NETWORK>: provider base URL of a network's real chain reader. */
  urls: Readonly<Record<string, string>>;
  /** CHAIN_API_KEY_<NETWORK>: optional provider key (TronGrid). */
  apiKeys: Readonly<Record<string, string>>;
  /** CHAIN_SCAN_BLOCKS_<NETWORK>: the EVM reader's native-coin scan window, in blocks. */
  scanBlocks: Readonly<Record<string, string>>;
}

export type Config = z.infer<typeof configSchema> & {
  deposit: DepositConfig;
  /** TEST_DEPOSIT_XPUB_* / TEST_DEPOSIT_ADDRESS_*: where test orders' deposit addresses come from. */
  testDeposit: DepositConfig;
  chain: ChainEndpoints;
};

/** Vars named `<prefix><SUFFIX>` (DEPOSIT_XPUB_BTC, CHAIN_URL_ETH, ...), keyed by suffix. */
function byPrefix(env: object, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith(prefix) && typeof value === "string" && value.trim() !== "")
      out[key.slice(prefix.length)] = value.trim();
  }
  return out;
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
    config = {
      ...parsed.data,
      deposit: { xpubs: byPrefix(env, "DEPOSIT_XPUB_"), addresses: byPrefix(env, "DEPOSIT_ADDRESS_") },
      testDeposit: {
        xpubs: byPrefix(env, "TEST_DEPOSIT_XPUB_"),
        addresses: byPrefix(env, "TEST_DEPOSIT_ADDRESS_"),
      },
      chain: {
        urls: byPrefix(env, "CHAIN_URL_"),
        apiKeys: byPrefix(env, "CHAIN_API_KEY_"),
        scanBlocks: byPrefix(env, "CHAIN_SCAN_BLOCKS_"),
      },
    };
    cache.set(env, config);
  }
  return config;
}
