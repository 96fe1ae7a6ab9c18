import type { OrderIndexRow } from "../storage/orders";
import { listOrdersNeedingAction } from "../storage/orders";
import { decodeCursor, encodeCursor } from "./orders";

/**
 * GET /admin/v1/orders?needs_action=true: every order waiting for a decision on money it holds
 * (its `actions` is not null), oldest first, one keyset page at a time from the D1 index.
 */
export async function reviewQueuePage(
  env: Env,
  req: { limit: number; cursor?: string | undefined },
): Promise<{ data: OrderIndexRow[]; next_cursor: string | null }> {
  const rows = await listOrdersNeedingAction(
    env.DB,
    req.cursor ? decodeCursor(req.cursor) : undefined,
    req.limit + 1,
  );
  const page = rows.slice(0, req.limit);
  const last = page.at(-1);
  return { data: page, next_cursor: rows.length > req.limit && last ? encodeCursor(last) : null };
}
