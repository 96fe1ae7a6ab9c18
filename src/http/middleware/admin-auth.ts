import { createMiddleware } from "hono/factory";
import { constantTimeEqual } from "../../domain/credentials";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";

/** `/admin/v1`: Bearer ADMIN_TOKEN. With no token configured the prefix does not exist (404). */
export const adminAuth = createMiddleware<AppEnv>(async (c, next) => {
  const token = c.get("config").ADMIN_TOKEN;
  if (!token)
    throw new ApiError(404, "not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`);
  const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  if (!m?.[1] || !(await constantTimeEqual(m[1], token))) {
    throw new ApiError(401, "invalid_api_key", "Missing or invalid operator token.", {
      headers: { "WWW-Authenticate": 'Bearer realm="admin"' },
    });
  }
  await next();
});
