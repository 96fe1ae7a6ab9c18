import { createRoute, z } from "@hono/zod-openapi";
import type { PartnerEnv } from "../app-env";
import { ApiError } from "../errors";
import { createRouter } from "../router";
import { errorResponses } from "../schemas";

const security: Record<string, string[]>[] = [{ PartnerBearer: [] }, { PartnerApiKey: [] }];

// Placeholder until the orders module lands: authentication and rate limiting are real, the
// order store is not there yet, so every id is unknown.
export const ordersRouter = createRouter<PartnerEnv>().openapi(
  createRoute({
    method: "get",
    path: "/partner/orders/{order_id}",
    tags: ["Orders"],
    security,
    summary: "Get an order by UUID or short_id",
    request: { params: z.object({ order_id: z.string().min(1).max(64) }) },
    responses: { 200: { description: "The order." }, ...errorResponses(401, 403, 404) },
  }),
  () => {
    throw new ApiError(404, "order_not_found", "Order not found.");
  },
);
