import { getConfig } from "../config";
import { decodeCursor, pageOf } from "../domain/keyset-cursor";
import { listOrdersNeedingAction } from "../storage/orders";
import { orderSummary, UUID_RE } from "./orders";

/**
 * GET /admin/v1/orders?needs_action=true: every live order waiting for a decision on money it holds
 * (its `actions` is not null), oldest first, one keyset page at a time from the D1 index.
 */
export async function reviewQueuePage(
  env: Env,
  req: { limit: number; cursor?: string | undefined },
): Promise<{
  data: (ReturnType<typeof orderSummary> & { partner_id: string })[];
  next_cursor: string | null;
}> {
  const rows = await listOrdersNeedingAction(
    env.DB,
    req.cursor ? decodeCursor(req.cursor, (id) => UUID_RE.test(id)) : undefined,
    req.limit + 1,
  );
  const { page, next_cursor } = pageOf(rows, req.limit, (r) => ({ createdAt: r.created_at, id: r.id }));
  const origin = getConfig(env).CABINET_ORIGIN;
  return { data: page.map((r) => ({ ...orderSummary(r, origin), partner_id: r.partner_id })), next_cursor };
}
