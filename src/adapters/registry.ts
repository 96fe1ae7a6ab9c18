import type { Config } from "../config";
import { chainModeFor, modeReadsNetwork } from "../domain/chain-mode";
import { confirmationTag, nativeScanBlocks, networkFacts } from "../domain/networks";
import { isLive, type OrderRecord } from "../domain/order";
import { testChainName } from "../domain/test-mode";
import { createBlockbookReader } from "./chain/blockbook";
import { createEsploraReader } from "./chain/esplora";
import { createEvmReader, DEFAULT_NATIVE_SCAN_BLOCKS } from "./chain/evm-rpc";
import { createHorizonReader } from "./chain/horizon";
import { createRippledReader } from "./chain/rippled";
import { createSimulatedReader } from "./chain/simulated";
import { createSolanaReader } from "./chain/solana-rpc";
import { createToncenterReader } from "./chain/toncenter";
import { createTronGridReader } from "./chain/trongrid";
import type { ChainReader } from "./chain/types";
import { createWatchedReader } from "./chain/watched";
import { createBinanceVenue } from "./exchange/binance";
import { createSimulatedExchange } from "./exchange/simulated";
import type { ExchangeVenue, MarketView, SpotVenue } from "./exchange/types";
import { createVenueExchange, type LegStore } from "./exchange/venue-exchange";
import { createHttpPayout } from "./payout/http";
import { createSimulatedPayout } from "./payout/simulated";
import type { BalanceSource, PayoutGateway } from "./payout/types";

/** Raised when configuration names an adapter that cannot be built (missing URL, unknown mode). */
export class AdapterConfigError extends Error {}

/** The chain reader for a network, chosen by CHAIN_MODE (docs/adapters.md). */
export function chainReaderFor(env: Env, config: Config, network: string): ChainReader {
  const mode = chainModeFor(config.CHAIN_MODE, network);
  if (mode === "simulated") return createSimulatedReader(env, network);
  const baseUrl = config.chain.urls[network];
  if (!mode || !baseUrl)
    throw new AdapterConfigError(`no chain reader for ${network}: set CHAIN_MODE and CHAIN_URL_${network}`);
  if (!modeReadsNetwork(mode, network))
    throw new AdapterConfigError(`CHAIN_MODE names ${mode} for ${network}, which does not read that chain`);
  const apiKey = config.chain.apiKeys[network];
  const keyed = apiKey ? { baseUrl, apiKey } : { baseUrl };
  switch (mode) {
    case "esplora":
      return createEsploraReader({ baseUrl });
    case "blockbook":
      return createBlockbookReader(keyed);
    case "evm": {
      const scan = Number(config.chain.scanBlocks[network]);
      const facts = networkFacts(network);
      const fromTable =
        facts && nativeScanBlocks(facts, config.CHAIN_POLL_SECONDS, DEFAULT_NATIVE_SCAN_BLOCKS);
      return createEvmReader({
        baseUrl,
        ...(Number.isInteger(scan) && scan > 0
          ? { nativeScanBlocks: scan }
          : fromTable
            ? { nativeScanBlocks: fromTable }
            : {}),
        ...(facts ? { confirmationTag: confirmationTag(facts) } : {}),
      });
    }
    case "trongrid":
      return createTronGridReader(keyed);
    case "rippled":
      return createRippledReader({ baseUrl });
    case "horizon":
      return createHorizonReader({ baseUrl });
    case "toncenter":
      return createToncenterReader(keyed);
    case "solana":
      return createSolanaReader({ baseUrl });
  }
}

/**
 * A live order's chain reader: through its network's ChainWatch object (shared reads,
 * docs/performance.md) where CHAIN_SHARED_READS applies — `providers`: every network read from a
 * real provider; `all`: SimChain networks too (the soak measures with it); `off`: none.
 */
export function liveReaderFor(env: Env, config: Config, network: string): ChainReader {
  // Built first in any case: a network with no usable reader fails here, as it did unshared.
  const direct = chainReaderFor(env, config, network);
  const mode = chainModeFor(config.CHAIN_MODE, network);
  const shared =
    config.CHAIN_SHARED_READS === "all" ||
    (config.CHAIN_SHARED_READS === "providers" && mode !== "simulated");
  return shared ? createWatchedReader(env, network) : direct;
}

function httpPayoutFor(config: Config) {
  if (!config.PAYOUT_GATEWAY_URL || !config.PAYOUT_GATEWAY_SECRET) {
    throw new AdapterConfigError(
      "PAYOUT_MODE=http needs PAYOUT_GATEWAY_URL and the PAYOUT_GATEWAY_SECRET secret",
    );
  }
  return createHttpPayout({ baseUrl: config.PAYOUT_GATEWAY_URL, secret: config.PAYOUT_GATEWAY_SECRET });
}

export function payoutGatewayFor(env: Env, config: Config): PayoutGateway {
  return config.PAYOUT_MODE === "simulated" ? createSimulatedPayout(env) : httpPayoutFor(config);
}

/** The payout gateway's balances, a liquidity balance source; none with simulated payouts. */
export function balanceSourceFor(config: Config): BalanceSource | null {
  return config.PAYOUT_MODE === "http" ? httpPayoutFor(config) : null;
}

// One venue client per isolate and credentials: it caches the venue's markets and its clock offset.
const spotVenues = new Map<string, SpotVenue>();

/** The Binance spot client of EXCHANGE_URL and the EXCHANGE_API_KEY / EXCHANGE_API_SECRET secrets. */
export function spotVenueFor(config: Config): SpotVenue {
  const { EXCHANGE_URL: baseUrl, EXCHANGE_API_KEY: apiKey, EXCHANGE_API_SECRET: apiSecret } = config;
  if (!baseUrl || !apiKey || !apiSecret)
    throw new AdapterConfigError(
      "EXCHANGE_MODE=binance needs EXCHANGE_URL and the EXCHANGE_API_KEY and EXCHANGE_API_SECRET secrets",
    );
  const id = JSON.stringify([baseUrl, apiKey, apiSecret]);
  let venue = spotVenues.get(id);
  if (!venue) {
    venue = createBinanceVenue({ baseUrl, apiKey, apiSecret });
    spotVenues.set(id, venue);
  }
  return venue;
}

/**
 * The exchange step's venue, chosen by EXCHANGE_MODE. `legs` is the order's storage for its venue
 * legs (intent, then lookup); the simulated venue keeps no state.
 */
export function exchangeVenueFor(
  env: Env,
  config: Config,
  legs: LegStore,
  market: MarketView,
): ExchangeVenue {
  if (config.EXCHANGE_MODE === "simulated") return createSimulatedExchange(env, market);
  return createVenueExchange({
    venue: spotVenueFor(config),
    store: legs,
    withdrawFee: (coin, network) => market.withdrawFee(coin, network),
  });
}

/** The adapters one order runs on. */
export interface OrderAdapters {
  reader: ChainReader;
  venue: ExchangeVenue;
  payout: PayoutGateway;
}

type AdapterOrder = Pick<OrderRecord, "id" | "networkFrom" | "livemode">;

/**
 * A live order's adapters follow CHAIN_MODE, EXCHANGE_MODE and PAYOUT_MODE; a test order's are
 * always its own SimChain with the simulated venue and payouts on it, whatever those modes say, so
 * nothing a test order does reaches anything real (docs/test-mode.md). Each is built on first use.
 */
export function orderAdapters(
  env: Env,
  config: Config,
  order: AdapterOrder,
  legs: LegStore,
  market: MarketView,
): OrderAdapters {
  if (isLive(order))
    return {
      get reader() {
        return liveReaderFor(env, config, order.networkFrom);
      },
      get venue() {
        return exchangeVenueFor(env, config, legs, market);
      },
      get payout() {
        return payoutGatewayFor(env, config);
      },
    };
  const chain = testChainName(order.id);
  return {
    reader: createSimulatedReader(env, chain),
    venue: createSimulatedExchange(env, market, chain),
    payout: createSimulatedPayout(env, chain),
  };
}

/**
 * A partner's statement payouts: live ones through PAYOUT_MODE's gateway, test ones always on the
 * partner's own SimChain (docs/test-mode.md), like a test order's.
 */
export function statementPayoutGateway(
  env: Env,
  config: Config,
  livemode: boolean,
  partnerId: string,
): PayoutGateway {
  return livemode ? payoutGatewayFor(env, config) : createSimulatedPayout(env, `TEST:PAYOUTS:${partnerId}`);
}
