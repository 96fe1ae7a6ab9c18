import { createRoute, z } from "@hono/zod-openapi";
import { ICON_HASHES } from "../../generated/icons";
import { ifNoneMatch } from "../../lib/etag";
import { ApiError } from "../errors";
import { createRouter } from "../router";
import { errorResponses, HEADERS, withCors } from "../schemas";
import { staticAsset } from "../static-assets";

const route = createRoute({
  method: "get",
  path: "/icons/{file}",
  operationId: "getIcon",
  tags: ["Public"],
  security: [],
  summary: "Coin icon (SVG)",
  description:
    "Serves the icon named by a currency's `icon_url`. The `v` query parameter is a content hash, so responses are cacheable forever.",
  request: {
    params: z.object({ file: z.string().max(16_384).openapi({ example: "btc.svg" }) }),
    query: z.object({ v: z.string().max(16_384).optional() }),
  },
  responses: withCors({
    200: {
      description: "The SVG image.",
      headers: { ...HEADERS.requestId, ...HEADERS.cacheControl },
      content: { "image/svg+xml": { schema: z.string().max(1_000_000) } },
    },
    ...errorResponses(400, 404),
  }),
});

export const iconsRouter = createRouter().openapi(route, async (c) => {
  const { file } = c.req.valid("param");
  const hash = Object.hasOwn(ICON_HASHES, file) ? ICON_HASHES[file] : undefined;
  const notFound = () => new ApiError(404, "not_found", `No icon named ${file}.`);
  if (!hash) throw notFound();
  const etag = `"${hash}"`;
  // Immutable only under the URL of this exact content; a stale or missing v is revalidated.
  const cacheControl =
    c.req.valid("query").v === hash ? "public, max-age=31536000, immutable" : "public, max-age=300";
  if (ifNoneMatch(c.req.header("if-none-match"), etag))
    return c.body(null, 304, { ETag: etag, "Cache-Control": cacheControl });
  const icon = await staticAsset(c.env.ASSETS, `/api/v1/icons/${file}`);
  if (!icon) throw notFound();
  return c.body(icon.body, 200, {
    "Content-Type": icon.type,
    "Cache-Control": cacheControl,
    ETag: etag,
    // SVG can carry script; served as a standalone document it gets no power to run any.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
  });
});
