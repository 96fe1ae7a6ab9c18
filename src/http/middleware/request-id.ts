import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";

// A client-supplied id is echoed only when it is safe to log and to put back in a header.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await next();
});
