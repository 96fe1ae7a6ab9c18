import { createRoute, z } from "@hono/zod-openapi";
import { validateAddress } from "../../../domain/addresses";
import { ORDER_STATUSES } from "../../../domain/order-state";
import { addressPoolLevels } from "../../../services/address-pools";
import { resolveOrderId } from "../../../services/orders";
import { loadCatalog } from "../../../storage/catalog";
import { addPoolAddresses } from "../../../storage/orders";
import { ApiError, badRequest } from "../../errors";
import { createRouter } from "../../router";
import { errorResponses } from "../../schemas";
import { OrderSchema } from "../orders";

const security = [{ AdminBearer: [] }];

/** The order an operator route acts on. */
export const OrderParam = z.object({
  id: z.string().min(1).max(64).openapi({ description: "Order UUID or short_id." }),
});

const EventSchema = z
  .object({
    seq: z.int32(),
    at: z.string().max(40),
    from_status: z.enum(ORDER_STATUSES).nullable(),
    to_status: z.enum(ORDER_STATUSES),
    reason: z.string().max(1024),
    data: z.record(z.string().max(1024), z.unknown()).nullable(),
  })
  .openapi("OrderEvent");

export const adminOrdersRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/orders/{id}",
      operationId: "adminGetOrder",
      tags: ["Admin: orders"],
      security,
      summary: "An order with its full event log (support view)",
      request: {
        params: OrderParam,
      },
      responses: {
        200: {
          description: "The order, its partner and its event log.",
          content: {
            "application/json": {
              schema: OrderSchema.extend({
                partner_id: z.string().max(128),
                events: z.array(EventSchema).max(1000),
              }),
            },
          },
        },
        ...errorResponses(401, 404),
      },
    }),
    async (c) => {
      const id = await resolveOrderId(c.env, c.req.valid("param").id, null);
      const found = id ? await c.env.ORDERS.getByName(id).inspect() : null;
      if (!found) throw new ApiError(404, "order_not_found", "Order not found.");
      return c.json({ ...found.order, partner_id: found.partner_id, events: found.events }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/address-pool/{network}",
      operationId: "adminAddPoolAddresses",
      tags: ["Admin: deposit addresses"],
      security,
      summary: "Load deposit addresses into a network's pool (networks without public derivation, e.g. SOL)",
      request: {
        params: z.object({ network: z.string().min(1).max(20) }),
        body: {
          content: {
            "application/json": {
              schema: z.strictObject({ addresses: z.array(z.string().min(1).max(128)).min(1).max(1000) }),
            },
          },
          required: true,
        },
      },
      responses: {
        201: {
          description: "Addresses added (duplicates ignored).",
          content: {
            "application/json": { schema: z.object({ network: z.string().max(20), added: z.int32() }) },
          },
        },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const network = c.req.valid("param").network.toUpperCase();
      const catalog = await loadCatalog(c.env.DB);
      if (!catalog.some((r) => r.network === network))
        throw new ApiError(404, "not_found", `Unknown network ${network}.`);
      const checked = c.req
        .valid("json")
        .addresses.map((a, i) => ({ i, check: validateAddress(network, a) }));
      const bad = checked.filter((x) => !x.check.ok);
      if (bad.length > 0) {
        throw badRequest(
          `${bad.length} address(es) are not valid ${network} addresses; nothing was added.`,
          bad.map((x) => ({ field: `addresses.${x.i}`, message: x.check.ok ? "" : x.check.reason })),
        );
      }
      const addresses = checked.flatMap((x) => (x.check.ok ? [x.check.address] : []));
      const added = await addPoolAddresses(c.env.DB, network, addresses, new Date().toISOString());
      return c.json({ network, added }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/address-pool",
      operationId: "adminListAddressPools",
      tags: ["Admin: deposit addresses"],
      security,
      summary: "Pool sizes per network",
      description:
        'Every network whose deposits draw from a pool (an empty one included), and any other network with pool rows. A pool below `low_water` unassigned addresses has an open `address_pool_low` alert (GET /admin/v1/alerts); an empty one makes the network\'s deposits `down` in the service status (docs/operators.md, "Deposit-address pools").',
      responses: {
        200: {
          description: "Available, reserved (by which shard) and assigned addresses.",
          content: {
            "application/json": {
              schema: z.object({
                low_water: z.int32().openapi({
                  description:
                    "ADDRESS_POOL_LOW_WATER: fewer unassigned addresses than this alert the operator.",
                }),
                data: z
                  .array(
                    z.object({
                      network: z.string().max(20),
                      free: z.number().openapi({
                        description: "Unassigned (available + reserved): what new orders can still be given.",
                      }),
                      low: z.boolean().openapi({ description: "`free` is below `low_water`." }),
                      available: z.number().openapi({ description: "Free and held by no pool shard." }),
                      reserved: z.number().openapi({
                        description: "Held by a regional pool shard for its next orders (docs/networks.md).",
                      }),
                      assigned: z.number(),
                      shards: z
                        .array(z.object({ shard: z.string().max(1024), reserved: z.number() }))
                        .max(1000)
                        .openapi({ description: "Which shard holds how many of the reserved addresses." }),
                    }),
                  )
                  .max(1000),
              }),
            },
          },
        },
        ...errorResponses(401),
      },
    }),
    async (c) => {
      const config = c.get("config");
      return c.json(
        { low_water: config.ADDRESS_POOL_LOW_WATER, data: await addressPoolLevels(c.env, config) },
        200,
      );
    },
  );
