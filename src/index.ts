import { createApp } from "./app";

export { OrderObject } from "./objects/order-object";
export { RateLimiter } from "./objects/rate-limiter";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, _env, _ctx) {
    // Price refresh and the lost-alarm sweep are wired in by the rates and orders modules.
  },
} satisfies ExportedHandler<Env>;
