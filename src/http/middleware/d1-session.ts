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
 * A create's bookmark: `order-<uuid>` names the new order, whose index row is written just after
 * the 201. D1's own are hex groups (`00000001-00000002-00004e2f-0a83…`,
 * developers.cloudflare.com/d1/reference/time-travel), so none begins `order-`.
 */
const CREATED_PREFIX = "order-";
const CREATED = /^order-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** The bookmark a create answers with: only string work, so creation waits for nothing. */
export const createdBookmark = (orderId: string): string => `${CREATED_PREFIX}${orderId}`;

/** The order a create's bookmark names; null for a D1 bookmark or none. */
function createdOrder(bookmark: string | undefined): string | null {
  return CREATED.exec(bookmark ?? "")?.[1] ?? null;
}

/**
 * Refuses a malformed bookmark before the route runs (400 invalid_bookmark, nothing done), and
 * after it, returns the bookmark of the session the route read through, if it opened one. A
 * create's bookmark is answered back unchanged by a route that did not make sure of its order's
 * row (only the list does, `readsAfterCreate`): the primary it read may not have the row yet, so
 * the token stays the client's read position until a list spends it.
 */
export const d1Session: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header(BOOKMARK_HEADER);
  const created = createdOrder(given);
  if (
    given !== undefined &&
    (!BOOKMARK.test(given) || (created === null && given.startsWith(CREATED_PREFIX)))
  )
    throw new ApiError(
      400,
      "invalid_bookmark",
      `${BOOKMARK_HEADER} must be a bookmark this API returned (≤ 128 of A-Za-z0-9-), or absent.`,
    );
  await next();
  const session = c.get("d1Session");
  if (!session) return;
  const bookmark = created !== null && !c.get("createdIndexed") ? given : session.getBookmark();
  if (bookmark) c.header(BOOKMARK_HEADER, bookmark);
};

/**
 * This request's D1 session for reads that may come from a replica: from the client's bookmark
 * when it sent one (the primary for a create's), else from any replica. Opened on first use, so a
 * route that reads nothing (or only isolate caches) costs nothing. Writes through it still go to
 * the primary.
 */
export function reads<E extends AppEnv>(c: Context<E>): D1Reads {
  let session = c.get("d1Session");
  if (!session) {
    const given = c.req.header(BOOKMARK_HEADER);
    session = c.env.DB.withSession(
      given === undefined ? "first-unconstrained" : createdOrder(given) ? "first-primary" : given,
    );
    c.set("d1Session", session);
  }
  return session;
}

/**
 * `reads` for the order index after a create: when the client sent a create's bookmark, `index`
 * first makes sure that order's row is in D1 (the order's object projects it if it has not yet),
 * then the index is read from the primary, and the answer carries D1's bookmark from then on.
 */
export async function readsAfterCreate<E extends AppEnv>(
  c: Context<E>,
  index: (orderId: string) => Promise<void>,
): Promise<D1Reads> {
  const order = createdOrder(c.req.header(BOOKMARK_HEADER));
  if (order) {
    await index(order);
    c.set("createdIndexed", true);
  }
  return reads(c);
}
