import type { Context, MiddlewareHandler } from "hono";
import type { D1Reads } from "../../storage/session";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";

/**
 * Read-your-writes across requests (docs/architecture.md, "Reads from replicas"): every answer whose
 * D1 reads went through a session carries the session's bookmark here; a client that sends the
 * last one back is answered from a replica at least as fresh as what it saw or wrote before.
 */
export const BOOKMARK_HEADER = "X-D1-Bookmark";

/** D1's bookmarks are opaque: only their alphabet and length are checked before D1 sees one. */
const BOOKMARK = /^[0-9A-Za-z-]{1,128}$/;

/**
 * Refuses a malformed bookmark before the route runs (400 invalid_bookmark, nothing done), and
 * after it, returns the bookmark of the session the route read through, if it opened one.
 */
export const d1Session: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header(BOOKMARK_HEADER);
  if (given !== undefined && !BOOKMARK.test(given))
    throw new ApiError(
      400,
      "invalid_bookmark",
      `${BOOKMARK_HEADER} must be a bookmark this API returned (≤ 128 of A-Za-z0-9-), or absent.`,
    );
  await next();
  const bookmark = c.get("d1Session")?.getBookmark();
  if (bookmark) c.header(BOOKMARK_HEADER, bookmark);
};

/**
 * This request's D1 session for reads that may come from a replica: from the client's bookmark
 * when it sent one, else from any replica. Opened on first use, so a route that reads nothing (or
 * only isolate caches) costs nothing. Writes through it still go to the primary.
 */
export function reads<E extends AppEnv>(c: Context<E>): D1Reads {
  let session = c.get("d1Session");
  if (!session) {
    session = c.env.DB.withSession(c.req.header(BOOKMARK_HEADER) ?? "first-unconstrained");
    c.set("d1Session", session);
  }
  return session;
}
