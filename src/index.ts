import { createApp } from "./app";
import { getConfig } from "./config";
import type { WebhookMessage } from "./domain/webhooks";
import { watchAddressPools } from "./services/address-pools";
import { routeAlerts } from "./services/alert-routing";
import { purgeExpiredCabinetState } from "./services/cabinet-auth";
import { refreshEtas } from "./services/eta";
import { watchSanctions } from "./services/screening";
import { refreshServiceStatus } from "./services/service-status";
import { expireSloCounts } from "./services/slo";
import { runStatements } from "./services/statements";
import { sweepAfterWatch, sweepLostAlarms } from "./services/sweep";
import { watchMemoAddresses } from "./services/unclaimed-deposits";
import { deliverBatch, deliveryOptions, expireWebhookHistory } from "./services/webhook-delivery";
import { refreshPrices } from "./storage/market";

export { AddressPoolShard } from "./objects/address-pool-shard";
export { BenchObject } from "./objects/bench-object";
export { ChainWatch } from "./objects/chain-watch";
export { DepositTag } from "./objects/deposit-tag";
export { LiquidityLedger } from "./objects/liquidity-ledger";
export { LiquidityShard } from "./objects/liquidity-shard";
export { OrderObject } from "./objects/order/object";
export { PartnerEvents } from "./objects/partner-events";
export { PartnerPayouts } from "./objects/partner-payouts";
export { RateLimiter } from "./objects/rate-limiter";
export { RequestLog } from "./objects/request-log";
export { SimChain } from "./objects/sim-chain";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    const config = getConfig(env);
    ctx.waitUntil(refreshPrices(env, config, controller.scheduledTime));
    ctx.waitUntil(sweepLostAlarms(env, controller.scheduledTime, undefined, config.LATE_DEPOSIT_WATCH_HOURS));
    ctx.waitUntil(
      sweepAfterWatch(
        env,
        controller.scheduledTime,
        config.LATE_DEPOSIT_WATCH_HOURS,
        config.AFTER_WATCH_HORIZON_DAYS,
      ),
    );
    ctx.waitUntil(watchMemoAddresses(env, config, controller.scheduledTime));
    ctx.waitUntil(expireWebhookHistory(env, config, controller.scheduledTime));
    ctx.waitUntil(expireSloCounts(env, controller.scheduledTime));
    ctx.waitUntil(runStatements(env, config, controller.scheduledTime));
    ctx.waitUntil(purgeExpiredCabinetState(env.DB, controller.scheduledTime));
    ctx.waitUntil(refreshServiceStatus(env, config, controller.scheduledTime));
    ctx.waitUntil(watchAddressPools(env, config, controller.scheduledTime));
    ctx.waitUntil(refreshEtas(env, controller.scheduledTime));
    ctx.waitUntil(routeAlerts(env, config, controller.scheduledTime));
    ctx.waitUntil(watchSanctions(env, config, controller.scheduledTime));
  },
  async queue(batch, env) {
    await deliverBatch(batch as MessageBatch<WebhookMessage>, env, deliveryOptions(getConfig(env)));
  },
} satisfies ExportedHandler<Env>;
