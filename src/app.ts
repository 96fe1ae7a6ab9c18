import { bodyLimit } from "hono/body-limit";
import { requestId } from "hono/request-id";
import { getConfig } from "./config";
import { timeOrderedId } from "./domain/time-ordered-id";
import { adminApi, PARTNER_OPENAPI_PATH, partnerApi } from "./http/apis";
import { createCabinet } from "./http/cabinet/routes";
import { createCompliancePage } from "./http/compliance/page";
import { ApiError } from "./http/errors";
import { adminAuth } from "./http/middleware/admin-auth";
import { adminRateLimit } from "./http/middleware/auth";
import { publicCors } from "./http/middleware/cors";
import { d1Session } from "./http/middleware/d1-session";
import { documentCache } from "./http/middleware/document-cache";
import { notFoundHandler, onError } from "./http/middleware/errors";
import { requestLog } from "./http/middleware/request-log";
import { sloMeter } from "./http/middleware/slo";
import { createRouter } from "./http/router";
import { benchRouter } from "./http/routes/bench";
import { mountDocs } from "./http/routes/docs";
import { ledgerRouter } from "./http/routes/ledger-swap";
import { createStatusPage } from "./http/status/routes";
import { SWAP_ASSET_PATH } from "./http/track/frame";
import { createSwapAssets, createTrackPages } from "./http/track/routes";
import { createWidgetPages } from "./http/widget/routes";

export const MAX_BODY_BYTES = 64 * 1024;

export function createApp() {
  const app = createRouter();
  // A client-supplied id is echoed when it is safe to log and to put back in a header (≤ 128 of
  // A-Za-z0-9_-=); otherwise a UUID is generated, time-ordered so the request log indexes it cheaply.
  // Outermost but the request id: it times and counts every answer, errors and 404s included.
  app.use("*", sloMeter);
  app.use(
    "*",
    requestId({
      limitLength: 128,
      generator: () => timeOrderedId(Date.now(), crypto.getRandomValues(new Uint8Array(10))),
    }),
  );
  app.use("*", async (c, next) => {
    c.set("config", getConfig(c.env));
    await next();
  });
  app.use("*", d1Session);
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

  // A partner's browser widget may read the catalog, quotes, icons and the document from any
  // origin. Key-protected routes get no CORS at all: keys belong on servers, never in a page.
  const cors = publicCors();
  for (const path of [
    "/api/v1/currencies",
    "/api/v1/partner/rates",
    "/api/v1/partner/permissions",
    "/api/v1/icons/*",
    "/api/v1/orders/:id/status",
    "/api/v1/orders/:id/events",
    "/api/v1/service-status",
    PARTNER_OPENAPI_PATH,
  ])
    app.use(path, cors);
  app.use(PARTNER_OPENAPI_PATH, documentCache());

  // Around the partner routes, so it sees their final answers (the key is checked inside them).
  app.use("/api/v1/partner/*", requestLog);
  app.use("/ledger/v2/*", requestLog);

  // Rate limits and partner authentication are route middleware (see each route), so a method a
  // path does not serve is answered 405 before any key is checked.
  app.route("/", partnerApi());
  // Counted before the token is checked, so guessing it costs the guesser's own bucket.
  app.use("/admin/v1/*", adminRateLimit, adminAuth);
  app.route("/", adminApi());
  app.route("/api/v1", benchRouter);
  // Ledger's Partner Swap Service v2 (docs/ledger.md): Ledger's document, not ours.
  app.route("/ledger/v2", ledgerRouter);
  mountDocs(app);
  // The partner cabinet: HTML pages, not part of the API documents.
  app.route("/cabinet", createCabinet());
  // The end user's pages (docs/widget.md): HTML too, outside the API documents.
  app.route("/track", createTrackPages());
  app.route("/status", createStatusPage());
  app.route("/compliance", createCompliancePage());
  app.route(SWAP_ASSET_PATH, createSwapAssets());
  app.route("/", createWidgetPages());

  app.onError(onError);
  app.notFound(notFoundHandler(app));
  return app;
}
