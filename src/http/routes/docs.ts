import type { Hono } from "hono";
import { REDOC } from "../../generated/redoc";
import { PARTNER_OPENAPI_PATH } from "../apis";
import type { AppEnv } from "../app-env";
import { staticAsset } from "../static-assets";

const REDOC_PATH = `/docs/redoc-${REDOC.hash}.js`;

// Scripts only from this origin. Redoc styles itself with inline <style> (styled-components) and
// runs its search index in a worker made from a blob, hence the two exceptions.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Partner Exchange API — reference</title>
</head>
<body>
  <noscript>The machine-readable reference is at <a href="${PARTNER_OPENAPI_PATH}">${PARTNER_OPENAPI_PATH}</a>.</noscript>
  <redoc spec-url="${PARTNER_OPENAPI_PATH}" hide-download-button="false"></redoc>
  <script src="${REDOC_PATH}"></script>
</body>
</html>`;

/** `/docs`: the partner document rendered by Redoc, served by this Worker (no CDN). */
export function mountDocs(app: Hono<AppEnv>): void {
  app.get("/docs", (c) =>
    c.html(PAGE, 200, {
      "Content-Security-Policy": CSP,
      "Cache-Control": "public, max-age=300",
      "X-Content-Type-Options": "nosniff",
    }),
  );
  // Content-addressed, so it is cached forever; a Redoc upgrade changes the URL.
  app.get(REDOC_PATH, async (c) => {
    const js = await staticAsset(c.env.ASSETS, REDOC_PATH);
    if (!js) return c.notFound();
    return c.body(js.body, 200, {
      "Content-Type": js.type,
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
    });
  });
}
