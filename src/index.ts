import { createApp } from "./app";
import { getConfig } from "./config";
import { refreshPrices } from "./services/prices";
import { sweepLostAlarms } from "./services/sweep";

export { OrderObject } from "./objects/order-object";
export { RateLimiter } from "./objects/rate-limiter";
export { SimChain } from "./objects/sim-chain";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    const config = getConfig(env);
    ctx.waitUntil(refreshPrices(env, config, controller.scheduledTime));
    ctx.waitUntil(sweepLostAlarms(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;
