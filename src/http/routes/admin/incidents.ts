import { createRoute, z } from "@hono/zod-openapi";
import type { IncidentWithNotes } from "../../../services/service-status";
import { annotateIncident, recentIncidents } from "../../../services/service-status";
import { ApiError } from "../../errors";
import { createRouter } from "../../router";
import { errorResponses, out, timestamp } from "../../schemas";
import { IncidentSchema, publicIncident } from "../service-status";

const tags = ["Admin: incidents"];
const security: Record<string, string[]>[] = [{ AdminBearer: [] }, { CloudflareAccess: [] }];
const json = <S extends z.ZodType>(schema: S) => ({ "application/json": { schema } });

const AdminIncidentSchema = IncidentSchema.extend({
  notes: z
    .array(
      z.object({
        at: timestamp("When it was written."),
        body: out.text(2000),
        operator: out.text(320).openapi({ description: "Who wrote it (not shown to the public)." }),
      }),
    )
    .max(100),
}).openapi("AdminIncident");

const adminIncident = (i: IncidentWithNotes) => ({
  ...publicIncident(i),
  notes: i.notes.map((n) => ({ at: n.at, body: n.body, operator: n.operator })),
});

// A string in the document (OWASP: ids that look guessable are flagged); incidents are not secret.
const idParam = z.object({
  id: z
    .string()
    .max(16)
    .regex(/^[1-9]\d{0,15}$/, "an incident id")
    .openapi({ param: { name: "id", in: "path" }, example: "12" }),
});

export const adminIncidentsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/incidents",
      operationId: "adminListIncidents",
      tags,
      security,
      summary: "Incidents: open ones and those opened in the last days",
      description:
        "Opened and closed by the cron from the same signals as GET /api/v1/service-status: one per network (or `webhooks`) while it is not operational. Newest first, with every note.",
      request: {
        query: z.object({
          days: z.coerce
            .number()
            .int()
            .min(1)
            .max(365)
            .default(30)
            .openapi({ format: "int32", description: "How far back, 1–365 days (default 30)." }),
        }),
      },
      responses: {
        200: {
          description: "The incidents (at most 100).",
          content: json(z.object({ data: z.array(AdminIncidentSchema).max(100) })),
        },
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      c.header("Cache-Control", "no-store");
      const list = await recentIncidents(c.env.DB, Date.now(), c.req.valid("query").days, 100);
      return c.json({ data: list.map(adminIncident) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/incidents/{id}/notes",
      operationId: "adminAnnotateIncident",
      tags,
      security,
      summary: "Add a note to an incident",
      description:
        "Audited (incident.annotate). The note is public: /status and GET /api/v1/service-status show its words and time (not its author) within seconds.",
      request: {
        params: idParam,
        body: {
          content: json(
            z.strictObject({
              body: z
                .string()
                .trim()
                .min(1)
                .max(2000)
                .openapi({ example: "The BTC node provider is down; we are switching to a backup." }),
            }),
          ),
          required: true,
        },
      },
      responses: {
        201: { description: "The incident with its notes.", content: json(AdminIncidentSchema) },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const annotated = await annotateIncident(
        c.env,
        { operator: c.get("operator"), requestId: c.get("requestId") },
        Number(c.req.valid("param").id),
        c.req.valid("json").body,
      );
      if (!annotated) throw new ApiError(404, "not_found", "No such incident.");
      return c.json(adminIncident(annotated), 201);
    },
  );
