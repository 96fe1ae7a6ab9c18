import { bodyLimit } from "hono/body-limit";
import { getConfig } from "./config";
import { ApiError } from "./http/errors";
import { adminAuth } from "./http/middleware/admin-auth";
import { partnerAuth, publicRateLimit } from "./http/middleware/auth";
import { notFoundHandler, onError } from "./http/middleware/errors";
import { requestId } from "./http/middleware/request-id";
import { createRouter } from "./http/router";
import { adminOrdersRouter } from "./http/routes/admin/orders";
import { adminPartnersRouter } from "./http/routes/admin/partners";
import { adminPricesRouter } from "./http/routes/admin/prices";
import { adminSimRouter } from "./http/routes/admin/sim";
import { benchRouter } from "./http/routes/bench";
import { currenciesRouter } from "./http/routes/currencies";
import { mountDocs } from "./http/routes/docs";
import { iconsRouter } from "./http/routes/icons";
import { ordersRouter } from "./http/routes/orders";
import { ratesRouter } from "./http/routes/rates";

export const MAX_BODY_BYTES = 64 * 1024;

export function createApp() {
  const app = createRouter();
  app.use("*", requestId);
  app.use("*", async (c, next) => {
    c.set("config", getConfig(c.env));
    await next();
  });
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, "payload_too_large", `Request body exceeds ${MAX_BODY_BYTES} bytes.`);
    },
  });
  // GET and HEAD carry no body; a stray `Transfer-Encoding: chunked` on one must not make the body
  // check rebuild the request (which the runtime refuses for those methods).
  app.use("*", (c, next) =>
    c.req.method === "GET" || c.req.method === "HEAD" ? next() : limitBody(c, next),
  );

  // Public API routes count against the client IP; icons and the OpenAPI document are static,
  // immutable-cached assets and are not limited.
  app.use("/api/v1/currencies", publicRateLimit);
  app.use("/api/v1/_bench/*", publicRateLimit);
  app.use("/api/v1/partner/rates", partnerAuth("optional"));
  // Hono's `/*` also matches the bare `/api/v1/partner/orders`; a second registration for it would
  // authenticate (and rate-limit) those requests twice.
  app.use("/api/v1/partner/orders/*", partnerAuth("required"));
  app.use("/admin/v1/*", adminAuth);

  app.route("/api/v1", currenciesRouter);
  app.route("/api/v1", ratesRouter);
  app.route("/api/v1", ordersRouter);
  app.route("/admin/v1", adminPartnersRouter);
  app.route("/admin/v1", adminPricesRouter);
  app.route("/admin/v1", adminOrdersRouter);
  app.route("/admin/v1", adminSimRouter);
  app.route("/api/v1", iconsRouter);
  app.route("/api/v1", benchRouter);
  mountDocs(app);

  app.onError(onError);
  app.notFound(notFoundHandler(app));
  return app;
}
