import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { CurrencyRow } from "../../../domain/currency";
import { createCurrency, updateCurrency } from "../../../services/catalog-admin";
import { loadCatalog } from "../../../storage/catalog";
import { listAudit } from "../../../storage/operator-audit";
import type { AppEnv } from "../../app-env";
import { ApiError } from "../../errors";
import { createRouter } from "../../router";
import { DECIMAL_STRING, errorResponses, idParam, pageLimit } from "../../schemas";

const tags = ["Admin: catalog"];
const security: Record<string, string[]>[] = [{ AdminBearer: [] }, { CloudflareAccess: [] }];

const decimal = z.string().max(1024).regex(DECIMAL_STRING, 'a plain decimal string, e.g. "0.001"');
const template = z.string().trim().min(1).max(512).nullable();

const AdminCurrencySchema = z
  .object({
    id: z.uuid().max(36),
    coin: z.string().max(20),
    network: z.string().max(20),
    name: z.string().max(1024),
    is_active: z.boolean(),
    is_deposit_enabled: z.boolean(),
    is_withdraw_enabled: z.boolean(),
    min_amount: z.string().max(64),
    max_amount: z.string().max(64),
    min_confirmations: z.int32(),
    decimals: z.int32(),
    is_memo: z.boolean(),
    withdraw_fee: z.string().max(64),
    contract_address: z.string().max(1024).nullable(),
    explorer_tx_url: z.string().max(2048).nullable(),
    explorer_address_url: z.string().max(2048).nullable(),
    sort_order: z.int32(),
  })
  .openapi("AdminCurrency");

const settable = {
  name: z.string().trim().min(1).max(100),
  is_active: z.boolean(),
  is_deposit_enabled: z.boolean(),
  is_withdraw_enabled: z.boolean(),
  min_amount: decimal,
  max_amount: decimal,
  min_confirmations: z.int32().min(0).max(10_000),
  decimals: z.int32().min(0).max(18).openapi({ description: "Frozen once an order uses the currency." }),
  withdraw_fee: decimal,
  contract_address: z.string().trim().min(1).max(128).nullable().openapi({
    description:
      "Token contract / mint, validated with the network's address rules; null for the native coin.",
  }),
  explorer_tx_url: template.openapi({ description: "https URL template containing {txid}." }),
  explorer_address_url: template.openapi({ description: "https URL template containing {address}." }),
  sort_order: z.int32().min(-1_000_000).max(1_000_000),
};
const code = z
  .string()
  .max(64)
  .trim()
  .regex(/^[A-Za-z0-9]{1,20}$/, "letters and digits, 1–20")
  .transform((s) => s.toUpperCase());

const CreateCurrency = z.strictObject({
  coin: code,
  network: code,
  ...settable,
  is_active: settable.is_active.default(true),
  is_deposit_enabled: settable.is_deposit_enabled.default(true),
  is_withdraw_enabled: settable.is_withdraw_enabled.default(true),
  is_memo: z.boolean().default(false).openapi({ description: "Fixed at creation." }),
  contract_address: settable.contract_address.default(null),
  explorer_tx_url: settable.explorer_tx_url.default(null),
  explorer_address_url: settable.explorer_address_url.default(null),
  sort_order: settable.sort_order.default(0),
});
const UpdateCurrency = z
  .strictObject(settable)
  .partial()
  .refine((b) => Object.keys(b).length > 0, { message: "at least one field is required" });

const AuditSchema = z
  .object({
    id: z.int32(),
    at: z.string().max(40),
    operator: z.string().max(1024).openapi({
      description:
        "Cloudflare Access e-mail, or token[:name] for ADMIN_TOKEN (break_glass[:name] when Access is configured).",
    }),
    action: z.string().max(1024),
    entity_type: z.string().max(1024),
    entity_id: z.string().max(128),
    before: z.unknown().nullable(),
    after: z.unknown(),
    request_id: z.string().max(128),
  })
  .openapi("OperatorAuditEntry");

function view(r: CurrencyRow) {
  return {
    ...r,
    is_active: r.is_active === 1,
    is_deposit_enabled: r.is_deposit_enabled === 1,
    is_withdraw_enabled: r.is_withdraw_enabled === 1,
    is_memo: r.is_memo === 1,
  };
}

const FLAGS = ["is_active", "is_deposit_enabled", "is_withdraw_enabled", "is_memo"] as const;
type Flag = (typeof FLAGS)[number];

/** Request booleans → the stored 0/1 flags. */
function stored<T extends Partial<Record<Flag, boolean>>>(
  body: T,
): { [K in keyof T]: K extends Flag ? number : T[K] } {
  const out: Record<string, unknown> = { ...body };
  for (const f of FLAGS) if (typeof body[f] === "boolean") out[f] = body[f] ? 1 : 0;
  return out as { [K in keyof T]: K extends Flag ? number : T[K] };
}

const actor = (c: Context<AppEnv>) => ({ operator: c.get("operator"), requestId: c.get("requestId") });
const notFound = () => new ApiError(404, "not_found", "No such currency.");
const json = <S extends z.ZodType>(schema: S) => ({ "application/json": { schema } });

export const adminCurrenciesRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/currencies",
      operationId: "adminListCurrencies",
      tags,
      security,
      summary: "Every catalog row, active or not, with its operator fields",
      responses: {
        200: {
          description: "The catalog.",
          content: json(z.object({ data: z.array(AdminCurrencySchema).max(1000) })),
        },
        ...errorResponses(401),
      },
    }),
    async (c) => c.json({ data: (await loadCatalog(c.env.DB)).map(view) }, 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/currencies",
      operationId: "adminCreateCurrency",
      tags,
      security,
      summary: "List a coin on a network",
      description:
        "Audited. Visible in /currencies and quotes within the catalog cache bound (docs/operators.md).",
      request: { body: { content: json(CreateCurrency), required: true } },
      responses: {
        201: { description: "Created.", content: json(AdminCurrencySchema) },
        ...errorResponses(400, 401, 409, 422),
      },
    }),
    async (c) => {
      const row = await createCurrency(c.env, actor(c), stored(c.req.valid("json")));
      return c.json(view(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/currencies/{id}",
      operationId: "adminUpdateCurrency",
      tags,
      security,
      summary:
        "Change a catalog row (switches, limits, fee, explorer links, contract; decimals only before first use)",
      description:
        "Audited. Switching a coin's deposits or the coin off stops new quotes and orders only: orders already made with it as the source complete. A destination switched off (inactive, withdrawals) makes existing orders refund.",
      request: { params: idParam, body: { content: json(UpdateCurrency), required: true } },
      responses: {
        200: { description: "The row after the change.", content: json(AdminCurrencySchema) },
        ...errorResponses(400, 401, 404, 422),
      },
    }),
    async (c) => {
      const row = await updateCurrency(c.env, actor(c), c.req.valid("param").id, stored(c.req.valid("json")));
      if (!row) throw notFound();
      return c.json(view(row), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/audit",
      operationId: "adminListAudit",
      tags: ["Admin: audit"],
      security,
      summary: "Operator audit log, newest first",
      request: {
        query: z.object({
          entity_type: z.string().min(1).max(40).optional(),
          entity_id: z.string().min(1).max(64).optional(),
          limit: pageLimit(500, 100),
        }),
      },
      responses: {
        200: { description: "Entries.", content: json(z.object({ data: z.array(AuditSchema).max(1000) })) },
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const rows = await listAudit(c.env.DB, {
        entityType: q.entity_type,
        entityId: q.entity_id,
        limit: q.limit,
      });
      const data = rows.map(({ before_json, after_json, ...r }) => ({
        ...r,
        before: before_json === null ? null : (JSON.parse(before_json) as unknown),
        after: JSON.parse(after_json) as unknown,
      }));
      return c.json({ data }, 200);
    },
  );
