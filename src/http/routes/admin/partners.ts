import { createRoute, z } from "@hono/zod-openapi";
import { DEFAULT_SCOPES, KEY_KINDS, KEY_SCOPES, parseScopes } from "../../../domain/key-scopes";
import type { WebhookMessage } from "../../../domain/webhooks";
import type { Actor } from "../../../services/cabinet-auth";
import { createKey } from "../../../services/cabinet-team";
import { setLedgerWebhook } from "../../../services/ledger-swap";
import { auditedWrite, operatorAuditStatement } from "../../../services/operator-audit";
import { auditSettings } from "../../../services/partner-settings";
import { configureWebhook, rotateWebhookSecret } from "../../../services/webhooks";
import {
  type ApiKeyRow,
  getPartner,
  insertPartnerStatement,
  invalidateKeyCache,
  listKeys,
  listPartners,
  type PartnerChanges,
  type PartnerRow,
  revokeKeyStatement,
  updatePartner,
} from "../../../storage/partners";
import { type DeliveryRow, listDeliveries, resetDelivery } from "../../../storage/webhooks";
import { ApiError } from "../../errors";
import { operatorOf } from "../../middleware/admin-auth";
import { createRouter } from "../../router";
import { errorResponses, idParam, pageLimit } from "../../schemas";
import { acceptWebhookUrl } from "../../webhook-url";

const PartnerSchema = z
  .object({
    id: z.uuid().max(36),
    name: z.string().max(1024),
    is_active: z.boolean(),
    markup_bps: z
      .int32()
      .openapi({ description: "Partner markup in basis points, on top of the service spread." }),
    max_markup_bps: z.int32().openapi({
      description: "The highest markup the partner's cabinet admins may set themselves (default 200).",
    }),
    contact_email: z.string().max(254).nullable().openapi({ description: "The partner's contact e-mail." }),
    rate_limit_per_minute: z.int32(),
    webhook_url: z
      .string()
      .max(2048)
      .nullable()
      .openapi({ format: "uri", description: "Where order events are POSTed; null: webhooks off." }),
    webhook_secret_set: z
      .boolean()
      .openapi({ description: "Whether a signing secret exists (it is shown only once)." }),
    created_at: z.string().max(40),
    updated_at: z.string().max(40),
  })
  .openapi("Partner");

const KeyModeSchema = z.enum(["live", "test"]).openapi({
  description: "`test` keys (ids `pk_test_…`) create test orders only (docs/test-mode.md).",
});

const ScopesSchema = z
  .array(z.enum(KEY_SCOPES))
  .max(KEY_SCOPES.length)
  .openapi({
    description:
      'What the key may do (docs/auth-and-limits.md, "Key scopes"): `read`, `orders:write`, `orders:act` (refund / continue / payout), `webhooks:write`.',
    example: ["read", "orders:write"],
  });

const KeyKindSchema = z.enum(KEY_KINDS).openapi({
  description:
    'What the key is for (docs/auth-and-limits.md, "App keys"): `server` (default), a secret kept on your servers with its scopes; `app` (ids `pk_app_…`, `pk_app_test_…`), a public key that lives inside an app and may only quote, create orders and read the orders it created.',
});

const KeySchema = z
  .object({
    key_id: z.string().max(128),
    mode: KeyModeSchema,
    scopes: ScopesSchema,
    kind: KeyKindSchema,
    created_at: z.string().max(40),
    last_used_at: z.string().max(40).nullable(),
    revoked_at: z.string().max(40).nullable(),
  })
  .openapi("ApiKey");

const NewKeySchema = z
  .object({
    key_id: z.string().max(128),
    key: z
      .string()
      .max(256)
      .openapi({ description: "The full key `<key_id>.<secret>`. Shown only in this response." }),
    mode: KeyModeSchema,
    scopes: ScopesSchema,
    kind: KeyKindSchema,
    created_at: z.string().max(40),
  })
  .openapi("NewApiKey");

const DeliverySchema = z
  .object({
    event_id: z.string().max(128),
    mode: z.enum(["live", "test"]),
    order_id: z.string().max(128).nullable().openapi({ description: "Null for a test event (`ping`)." }),
    sequence: z.int32(),
    type: z.string().max(1024),
    status: z.enum(["pending", "delivered", "failed", "skipped"]),
    attempts: z.int32(),
    last_status_code: z.int32().nullable(),
    last_error: z.string().max(1024).nullable(),
    next_retry_at: z.string().max(40).nullable(),
    created_at: z.string().max(40),
    delivered_at: z.string().max(40).nullable(),
  })
  .openapi("WebhookDelivery");

function deliveryView(d: DeliveryRow) {
  return {
    event_id: d.event_id,
    mode: d.mode,
    order_id: d.order_id,
    sequence: d.sequence,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    next_retry_at: d.next_retry_at,
    created_at: d.created_at,
    delivered_at: d.delivered_at,
  };
}

const name = z.string().trim().min(1).max(100);
const markup = z.int32().min(0).max(1000);
const rateLimit = z.int32().min(1).max(1_000_000);

const CreatePartner = z.strictObject({
  name,
  markup_bps: markup.optional(),
  rate_limit_per_minute: rateLimit.optional(),
});
const UpdatePartner = z
  .strictObject({
    name: name.optional(),
    is_active: z.boolean().optional(),
    markup_bps: markup.optional(),
    max_markup_bps: markup.optional().openapi({
      description: "Cap on the markup the partner's cabinet admins may set (0–1000).",
    }),
    contact_email: z.email().max(254).nullable().optional(),
    rate_limit_per_minute: rateLimit.optional(),
    webhook_url: z.string().max(2048).nullable().optional().openapi({
      format: "uri",
      description: "https URL (http on localhost when ALLOW_HTTP_WEBHOOKS); null disables webhooks.",
    }),
  })
  .refine((b) => Object.keys(b).length > 0, { message: "at least one field is required" });

const keyParams = idParam.extend({
  key_id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "key_id", in: "path" } }),
});
const security = [{ AdminBearer: [] }];
const tags = ["Admin: partners"];
const json = <T extends z.ZodType>(schema: T) => ({
  content: { "application/json": { schema } },
  required: true,
});

function partnerView(p: PartnerRow) {
  const { has_webhook_secret, ...rest } = p;
  return { ...rest, is_active: p.is_active === 1, webhook_secret_set: has_webhook_secret === 1 };
}
function keyView(k: ApiKeyRow) {
  return {
    key_id: k.key_id,
    mode: k.mode,
    scopes: parseScopes(k.scopes),
    kind: k.kind,
    created_at: k.created_at,
    last_used_at: k.last_used_at,
    revoked_at: k.revoked_at,
  };
}
const notFound = () => new ApiError(404, "not_found", "Partner not found.");

/** The operator, acting on a partner: changes land in that partner's cabinet audit log. */
function operatorActor(c: { req: { raw: Request } }, partnerId: string): Actor {
  return { partnerId, label: "operator", ip: c.req.raw.headers.get("cf-connecting-ip") };
}
const live = (partnerId: string) => ({ partnerId, mode: "live" as const });

export const adminPartnersRouter = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/partners",
      operationId: "adminCreatePartner",
      tags,
      security,
      summary: "Create a partner",
      request: { body: json(CreatePartner) },
      responses: {
        201: { description: "Created.", content: { "application/json": { schema: PartnerSchema } } },
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const now = new Date().toISOString();
      const row: PartnerRow = {
        id: crypto.randomUUID(),
        name: body.name,
        is_active: 1,
        markup_bps: body.markup_bps ?? 0,
        max_markup_bps: 200,
        contact_email: null,
        rate_limit_per_minute:
          body.rate_limit_per_minute ?? c.get("config").DEFAULT_PARTNER_RATE_LIMIT_PER_MINUTE,
        webhook_url: null,
        has_webhook_secret: 0,
        created_at: now,
        updated_at: now,
      };
      await auditedWrite(
        c.env.DB,
        operatorOf(c),
        { action: "partner.create", entity: { type: "partner", id: row.id }, before: null, after: row },
        insertPartnerStatement(c.env.DB, row),
      );
      return c.json(partnerView(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partners",
      operationId: "adminListPartners",
      tags,
      security,
      summary: "List partners",
      responses: {
        200: {
          description: "All partners.",
          content: { "application/json": { schema: z.object({ data: z.array(PartnerSchema).max(1000) }) } },
        },
        ...errorResponses(401),
      },
    }),
    async (c) => c.json({ data: (await listPartners(c.env.DB)).map(partnerView) }, 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partners/{id}",
      operationId: "adminGetPartner",
      tags,
      security,
      summary: "Get a partner",
      request: { params: idParam },
      responses: {
        200: { description: "The partner.", content: { "application/json": { schema: PartnerSchema } } },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const row = await getPartner(c.env.DB, c.req.valid("param").id);
      if (!row) throw notFound();
      return c.json(partnerView(row), 200);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/partners/{id}",
      operationId: "adminUpdatePartner",
      tags,
      security,
      summary: "Update a partner (name, activation, markup, rate limit)",
      request: { params: idParam, body: json(UpdatePartner) },
      responses: {
        200: {
          description: "The updated partner.",
          content: { "application/json": { schema: PartnerSchema } },
        },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      const { is_active, webhook_url, ...rest } = c.req.valid("json");
      const changes: PartnerChanges =
        is_active === undefined ? rest : { ...rest, is_active: is_active ? 1 : 0 };
      const url =
        webhook_url === undefined ? undefined : acceptWebhookUrl(c.get("config"), webhook_url, "webhook_url");
      const before = await getPartner(c.env.DB, id);
      if (!before) throw notFound();
      const row = await updatePartner(c.env.DB, id, changes, new Date().toISOString());
      if (!row) throw notFound();
      await auditSettings(c.env.DB, operatorActor(c, id), before, row);
      if (url === undefined) return c.json(partnerView(row), 200);
      await configureWebhook(c.env.DB, operatorActor(c, id), live(id), { url });
      const updated = await getPartner(c.env.DB, id);
      if (!updated) throw notFound();
      return c.json(partnerView(updated), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partners/{id}/keys",
      operationId: "adminCreateKey",
      tags,
      security,
      summary: "Create an API key (the full key is returned only here)",
      request: {
        params: idParam,
        body: {
          content: {
            "application/json": {
              schema: z
                .strictObject({
                  mode: KeyModeSchema.default("live"),
                  scopes: ScopesSchema.min(1)
                    .optional()
                    .openapi({
                      description: `The key's scopes; default \`${DEFAULT_SCOPES.join(" ")}\` (\`orders:act\` only when asked for). Not with \`kind: app\`, whose scopes are fixed.`,
                    }),
                  kind: KeyKindSchema.default("server"),
                })
                .refine((b) => !(b.kind === "app" && b.scopes), {
                  message: "an app key's scopes are fixed: leave `scopes` out",
                  path: ["scopes"],
                })
                .openapi("NewApiKeyRequest"),
            },
          },
          required: false,
        },
      },
      responses: {
        201: { description: "The new key.", content: { "application/json": { schema: NewKeySchema } } },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const partnerId = c.req.valid("param").id;
      if (!(await getPartner(c.env.DB, partnerId))) throw notFound();
      // The body is optional: a POST without one creates a live key with the default scopes.
      const body = c.req.valid("json") as
        | {
            mode?: "live" | "test";
            scopes?: (typeof KEY_SCOPES)[number][];
            kind?: (typeof KEY_KINDS)[number];
          }
        | undefined;
      const issued = await createKey(
        c.env.DB,
        operatorActor(c, partnerId),
        {
          name: "",
          ipAllowlist: null,
          mode: body?.mode ?? "live",
          ...(body?.scopes ? { scopes: body.scopes } : {}),
          ...(body?.kind ? { kind: body.kind } : {}),
        },
        // Never the secret: the key's id, mode, scopes and kind.
        ({ key: _secret, ...recorded }) => [
          operatorAuditStatement(c.env.DB, operatorOf(c), {
            action: "key.issue",
            entity: { type: "api_key", id: recorded.key_id },
            before: null,
            after: { partner_id: partnerId, ...recorded },
          }),
        ],
      );
      c.header("Cache-Control", "no-store");
      return c.json(issued, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partners/{id}/keys",
      operationId: "adminListKeys",
      tags,
      security,
      summary: "List a partner's API keys (no secrets)",
      request: { params: idParam },
      responses: {
        200: {
          description: "Keys.",
          content: { "application/json": { schema: z.object({ data: z.array(KeySchema).max(1000) }) } },
        },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const partnerId = c.req.valid("param").id;
      if (!(await getPartner(c.env.DB, partnerId))) throw notFound();
      return c.json({ data: (await listKeys(c.env.DB, partnerId)).map(keyView) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/partners/{id}/keys/{key_id}",
      operationId: "adminRevokeKey",
      tags,
      security,
      summary: "Revoke an API key",
      request: { params: keyParams },
      responses: {
        204: { description: "Revoked (revoking twice is harmless)." },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { id, key_id } = c.req.valid("param");
      if (!(await listKeys(c.env.DB, id)).some((k) => k.key_id === key_id)) {
        throw new ApiError(404, "not_found", "API key not found for this partner.");
      }
      await auditedWrite(
        c.env.DB,
        operatorOf(c),
        {
          action: "key.revoke",
          entity: { type: "api_key", id: key_id },
          before: null,
          after: { partner_id: id, revoked: true },
        },
        revokeKeyStatement(c.env.DB, id, key_id, new Date().toISOString()),
      );
      invalidateKeyCache();
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/partners/{id}/ledger-webhook",
      operationId: "adminSetLedgerWebhook",
      tags,
      security,
      summary: "Set where a Ledger partner's swap status changes are pushed",
      description:
        "Ledger's status webhook (docs/ledger.md): each Ledger status change of the partner's `/ledger/v2` swaps is POSTed to `{url}/webhook/{swapId}/status` with `x-api-key`, retried like the partner's own webhooks. The key is never answered back.",
      request: {
        params: idParam,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                url: z.string().min(1).max(2000).openapi({ example: "https://swap.ledger.example/v5" }),
                api_key: z.string().min(1).max(512),
                provider_id: z.string().min(1).max(64).openapi({ example: "yourprovider" }),
              }),
            },
          },
        },
      },
      responses: {
        200: {
          description: "The setting, without the key.",
          content: {
            "application/json": {
              schema: z.object({
                url: z.string().max(2000),
                provider_id: z.string().max(64),
                api_key_set: z.literal(true),
              }),
            },
          },
        },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      if (!(await getPartner(c.env.DB, id))) throw notFound();
      const body = c.req.valid("json");
      const url = acceptWebhookUrl(c.get("config"), body.url, "url") as string;
      return c.json(
        await setLedgerWebhook(c.env.DB, operatorOf(c), id, {
          url,
          apiKey: body.api_key,
          providerId: body.provider_id,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partners/{id}/webhook-secret",
      operationId: "adminRotateWebhookSecret",
      tags,
      security,
      summary: "Create or rotate the webhook signing secret (shown only in this response)",
      request: { params: idParam },
      responses: {
        201: {
          description: "The new secret; the previous one stops signing at once.",
          content: {
            "application/json": {
              schema: z.object({ secret: z.string().max(1024).openapi({ example: "whsec_…" }) }),
            },
          },
        },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      if (!(await getPartner(c.env.DB, id))) throw notFound();
      const { secret } = await rotateWebhookSecret(c.env.DB, operatorActor(c, id), live(id), 0);
      c.header("Cache-Control", "no-store");
      return c.json({ secret }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partners/{id}/webhook-deliveries",
      operationId: "adminListWebhookDeliveries",
      tags,
      security,
      summary: "The partner's webhook delivery log, newest first",
      request: {
        params: idParam,
        query: z.object({
          limit: pageLimit(500, 100),
        }),
      },
      responses: {
        200: {
          description: "Deliveries.",
          content: { "application/json": { schema: z.object({ data: z.array(DeliverySchema).max(1000) }) } },
        },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const partnerId = c.req.valid("param").id;
      if (!(await getPartner(c.env.DB, partnerId))) throw notFound();
      const rows = await listDeliveries(c.env.DB, { partnerId, limit: c.req.valid("query").limit });
      return c.json({ data: rows.map(deliveryView) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partners/{id}/webhook-deliveries/{event_id}/retry",
      operationId: "adminRetryWebhookDelivery",
      tags,
      security,
      summary: "Deliver an event again now (also revives a failed one, with a fresh 3-day window)",
      request: {
        params: idParam.extend({
          event_id: z
            .string()
            .max(36)
            .regex(/^evt_[0-9a-f]{32}$/)
            .openapi({ param: { name: "event_id", in: "path" } }),
        }),
      },
      responses: {
        202: { description: "Queued.", content: { "application/json": { schema: DeliverySchema } } },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { id, event_id } = c.req.valid("param");
      const row = await resetDelivery(c.env.DB, id, event_id, new Date().toISOString());
      if (!row) throw new ApiError(404, "not_found", "No such webhook delivery for this partner.");
      const message: WebhookMessage = {
        event_id: row.event_id,
        partner_id: row.partner_id,
        mode: row.mode,
        order_id: row.order_id,
        sequence: row.sequence,
        type: row.type,
        created_at: row.created_at,
        body: row.payload,
      };
      await c.env.WEBHOOKS.send(message);
      return c.json(deliveryView(row), 202);
    },
  );
