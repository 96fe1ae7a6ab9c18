// Operator side of the partner cabinet: invitations, members, their sessions (docs/cabinet.md).
import { createRoute, z } from "@hono/zod-openapi";
import { ROLES } from "../../../domain/cabinet";
import { type Actor, createInvite } from "../../../services/cabinet-auth";
import { deactivateMember, revokeInviteAudited, revokeSessions } from "../../../services/cabinet-team";
import { listPendingInvites, listUsers } from "../../../storage/cabinet";
import { getPartner } from "../../../storage/partners";
import { ApiError } from "../../errors";
import { createRouter } from "../../router";
import { errorResponses, idParam, uuidParam } from "../../schemas";

const MemberSchema = z
  .object({
    id: z.uuid().max(36),
    email: z.string().max(254),
    role: z.enum(ROLES),
    status: z.enum(["active", "deactivated"]),
    created_at: z.string().max(40),
    updated_at: z.string().max(40),
  })
  .openapi("CabinetMember");

const InviteSchema = z
  .object({
    id: z.uuid().max(36),
    email: z.string().max(254),
    role: z.enum(ROLES),
    expires_at: z.string().max(40),
    created_by: z.string().max(1024),
    created_at: z.string().max(40),
  })
  .openapi("CabinetInvite");

const NewInviteSchema = z
  .object({
    id: z.uuid().max(36),
    email: z.string().max(254),
    role: z.enum(ROLES),
    expires_at: z.string().max(40),
    url: z.string().max(2048).openapi({ description: "The one-time link (valid 72 h). Shown only here." }),
  })
  .openapi("NewCabinetInvite");

const userParams = idParam.extend({ user_id: uuidParam("user_id") });
const inviteParams = idParam.extend({ invite_id: uuidParam("invite_id") });
const security = [{ AdminBearer: [] }];
const tags = ["Admin: cabinet"];
const ok = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { "application/json": { schema } },
});

async function operatorFor(c: { env: Env; req: { raw: Request } }, partnerId: string): Promise<Actor> {
  if (!(await getPartner(c.env.DB, partnerId))) throw new ApiError(404, "not_found", "Partner not found.");
  return { partnerId, label: "operator", ip: c.req.raw.headers.get("cf-connecting-ip") };
}

export const adminCabinetRouter = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/partners/{id}/invites",
      operationId: "adminCreateInvite",
      tags,
      security,
      summary: "Invite someone to a partner's cabinet (prints a one-time link, valid 72 h)",
      description:
        "An invite for an address that is already a member is a recovery link: using it replaces that member's passkeys and ends their sessions. A newer invite for the same address voids older ones.",
      request: {
        params: idParam,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                email: z.email().max(254),
                role: z.enum(ROLES).default("admin"),
              }),
            },
          },
        },
      },
      responses: { 201: ok("The invite and its link.", NewInviteSchema), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const actor = await operatorFor(c, c.req.valid("param").id);
      const body = c.req.valid("json");
      const invite = await createInvite(c.env.DB, c.get("config").CABINET_ORIGIN, actor, body);
      c.header("Cache-Control", "no-store");
      return c.json(invite, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partners/{id}/invites",
      operationId: "adminListInvites",
      tags,
      security,
      summary: "List a partner's pending cabinet invites",
      request: { params: idParam },
      responses: {
        200: ok("Pending invites.", z.object({ data: z.array(InviteSchema).max(1000) })),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const actor = await operatorFor(c, c.req.valid("param").id);
      const invites = await listPendingInvites(c.env.DB, actor.partnerId, new Date().toISOString());
      return c.json(
        {
          data: invites.map((i) => ({
            id: i.id,
            email: i.email,
            role: i.role,
            expires_at: i.expires_at,
            created_by: i.created_by,
            created_at: i.created_at,
          })),
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/partners/{id}/invites/{invite_id}",
      operationId: "adminRevokeInvite",
      tags,
      security,
      summary: "Revoke a pending cabinet invite (its link stops working at once)",
      request: { params: inviteParams },
      responses: {
        204: { description: "Revoked." },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { id, invite_id } = c.req.valid("param");
      await revokeInviteAudited(c.env.DB, await operatorFor(c, id), invite_id);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partners/{id}/users",
      operationId: "adminListCabinetUsers",
      tags,
      security,
      summary: "List a partner's cabinet members",
      request: { params: idParam },
      responses: {
        200: ok("Members.", z.object({ data: z.array(MemberSchema).max(1000) })),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const actor = await operatorFor(c, c.req.valid("param").id);
      const users = await listUsers(c.env.DB, actor.partnerId);
      return c.json({ data: users.map(({ partner_id: _, ...u }) => u) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partners/{id}/users/{user_id}/revoke-sessions",
      operationId: "adminRevokeCabinetUserSessions",
      tags,
      security,
      summary: "Sign a cabinet member out everywhere",
      request: { params: userParams },
      responses: {
        200: ok("How many sessions ended.", z.object({ revoked_sessions: z.int32() })),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { id, user_id } = c.req.valid("param");
      const n = await revokeSessions(c.env.DB, await operatorFor(c, id), user_id);
      return c.json({ revoked_sessions: n }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partners/{id}/users/{user_id}/deactivate",
      operationId: "adminDeactivateCabinetUser",
      tags,
      security,
      summary: "Deactivate a cabinet member (their sessions end at once; a new invite re-activates)",
      request: { params: userParams },
      responses: { 200: ok("The member.", MemberSchema), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id, user_id } = c.req.valid("param");
      const { partner_id: _, ...user } = await deactivateMember(c.env.DB, await operatorFor(c, id), user_id, {
        enforceLastAdmin: false,
      });
      return c.json(user, 200);
    },
  );
