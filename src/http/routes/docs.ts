import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";

export const OPENAPI_PATH = "/api/v1/openapi.json";

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Partner Exchange API — reference</title>
</head>
<body>
  <noscript>The machine-readable reference is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
  <script id="api-reference" data-url="${OPENAPI_PATH}"></script>
  <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script>
</body>
</html>`;

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate, and a docs page. */
export function mountDocs(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "PartnerBearer", {
    type: "http",
    scheme: "bearer",
    description: "Partner API key `<key_id>.<secret>`.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "PartnerApiKey", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "The same partner API key, as a header.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminBearer", {
    type: "http",
    scheme: "bearer",
    description: "Operator token (ADMIN_TOKEN secret).",
  });
  app.doc31(OPENAPI_PATH, (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Partner Exchange API",
      version: "1.0.0",
      description:
        "List currencies, quote rates, create exchange orders and follow them to payout. Every error is JSON `{detail, code}`; branch on `code`.",
    },
    servers: [{ url: new URL(c.req.url).origin, description: "This deployment" }],
  }));
  app.get("/docs", (c) => c.html(DOCS_HTML));
}
