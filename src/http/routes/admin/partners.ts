import { createRoute, z } from "@hono/zod-openapi";
import { generateApiKey } from "../../../domain/credentials";
import {
  type ApiKeyRow,
  getPartner,
  insertKey,
  insertPartner,
  listKeys,
  listPartners,
  type PartnerRow,
  revokeKey,
  updatePartner,
} from "../../../storage/partners";
import { ApiError } from "../../errors";
import { createRouter } from "../../router";
import { errorResponses } from "../../schemas";

const PartnerSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    is_active: z.boolean(),
    markup_bps: z
      .number()
      .int()
      .openapi({ description: "Partner markup in basis points, on top of the service spread." }),
    rate_limit_per_minute: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Partner");

const KeySchema = z
  .object({
    key_id: z.string(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .openapi("ApiKey");

const NewKeySchema = z
  .object({
    key_id: z.string(),
    key: z
      .string()
      .openapi({ description: "The full key `<key_id>.<secret>`. Shown only in this response." }),
    created_at: z.string(),
  })
  .openapi("NewApiKey");

const name = z.string().trim().min(1).max(100);
const markup = z.number().int().min(0).max(1000);
const rateLimit = z.number().int().min(1).max(1_000_000);

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
    rate_limit_per_minute: rateLimit.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: "at least one field is required" });

const idParam = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) });
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
  return { ...p, is_active: p.is_active === 1 };
}
function keyView(k: ApiKeyRow) {
  return {
    key_id: k.key_id,
    created_at: k.created_at,
    last_used_at: k.last_used_at,
    revoked_at: k.revoked_at,
  };
}
const notFound = () => new ApiError(404, "not_found", "Partner not found.");

export const adminPartnersRouter = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/partners",
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
        rate_limit_per_minute:
          body.rate_limit_per_minute ?? c.get("config").DEFAULT_PARTNER_RATE_LIMIT_PER_MINUTE,
        created_at: now,
        updated_at: now,
      };
      await insertPartner(c.env.DB, row);
      return c.json(partnerView(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partners",
      tags,
      security,
      summary: "List partners",
      responses: {
        200: {
          description: "All partners.",
          content: { "application/json": { schema: z.object({ data: z.array(PartnerSchema) }) } },
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
      const { is_active, ...rest } = c.req.valid("json");
      const changes = is_active === undefined ? rest : { ...rest, is_active: is_active ? 1 : 0 };
      const row = await updatePartner(c.env.DB, c.req.valid("param").id, changes, new Date().toISOString());
      if (!row) throw notFound();
      return c.json(partnerView(row), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partners/{id}/keys",
      tags,
      security,
      summary: "Create an API key (the full key is returned only here)",
      request: { params: idParam },
      responses: {
        201: { description: "The new key.", content: { "application/json": { schema: NewKeySchema } } },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const partnerId = c.req.valid("param").id;
      if (!(await getPartner(c.env.DB, partnerId))) throw notFound();
      const key = await generateApiKey();
      const created_at = new Date().toISOString();
      await insertKey(c.env.DB, {
        key_id: key.keyId,
        partner_id: partnerId,
        secret_hash: key.secretHash,
        created_at,
        last_used_at: null,
        revoked_at: null,
      });
      c.header("Cache-Control", "no-store");
      return c.json({ key_id: key.keyId, key: key.key, created_at }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partners/{id}/keys",
      tags,
      security,
      summary: "List a partner's API keys (no secrets)",
      request: { params: idParam },
      responses: {
        200: {
          description: "Keys.",
          content: { "application/json": { schema: z.object({ data: z.array(KeySchema) }) } },
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
      if (!(await revokeKey(c.env.DB, id, key_id, new Date().toISOString()))) {
        throw new ApiError(404, "not_found", "API key not found for this partner.");
      }
      return c.body(null, 204);
    },
  );
