// The partner's API request log for scripts (docs/cabinet.md, "Logs"): the key's own mode.
import { createRoute, z } from "@hono/zod-openapi";
import { parseLogCursor, parseRequestLogFilter, requestLogView } from "../../domain/request-log";
import { listRequestLog, logName } from "../../services/request-log";
import type { PartnerEnv } from "../app-env";
import { badRequest } from "../errors";
import { keyedOperation } from "../middleware/scopes";
import { createRouter } from "../router";
import { errorResponses, okResponse, orderRef, out, pageLimit, timestamp } from "../schemas";
import { SignatureHeader } from "./orders";

const LogsQuery = z.object({
  status: z
    .string()
    .max(3)
    .regex(/^[1-5](xx|\d\d)$/)
    .optional()
    .openapi({ description: "A status class (`4xx`) or one status (`404`)." }),
  code: z.string().min(1).max(64).optional().openapi({ description: "The error code (`order_not_found`)." }),
  path: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .openapi({ description: "A path prefix (`/api/v1/partner/orders`)." }),
  key_id: z.string().min(1).max(64).optional(),
  request_id: z.string().min(1).max(128).optional().openapi({ description: "The `X-Request-Id` answered." }),
  order_id: orderRef.filter("The order's UUID or short_id: requests naming it or creating it."),
  cursor: z.string().max(32).optional().openapi({ description: "`next_cursor` of the previous page." }),
  limit: pageLimit(100, 20),
});

const nullable = (max: number) => out.text(max).nullable();

export const RequestLogEntrySchema = z
  .object({
    id: out.text(32).openapi({ description: "The entry's position in your log." }),
    at: timestamp("When the request arrived (milliseconds)."),
    method: out.text(8),
    path: out.text(2048),
    query: out.text(8192).openapi({ description: "The query string as you sent it (no `?`)." }),
    status: z.number().int().min(100).max(599).openapi({ format: "int32" }),
    code: nullable(64).openapi({ description: "The error `code` of an error answer." }),
    latency_ms: out.count(600_000),
    key_id: out.text(64),
    request_id: out.text(128),
    ip: nullable(64),
    order_id: out.uuid().nullable().openapi({ description: "The order the request named or created." }),
    order_short_id: nullable(10),
    error_body: nullable(4096).openapi({ description: "For errors: the body we answered." }),
  })
  .openapi("RequestLogEntry");

export const partnerLogsRouter = createRouter<PartnerEnv>().openapi(
  createRoute({
    method: "get",
    path: "/partner/logs",
    ...keyedOperation("listRequestLogs"),
    tags: ["Logs"],
    summary: "Your API requests in the key's mode, newest first",
    description:
      "Every request made with one of your keys (this mode's), kept 7 days; a request shows within 10 s of its answer. Reading the log is not itself logged.",
    request: { query: LogsQuery, headers: z.object(SignatureHeader) },
    responses: {
      200: okResponse(
        "limited",
        "A page of entries; follow `next_cursor` until it is null.",
        z.object({ data: z.array(RequestLogEntrySchema).max(100), next_cursor: out.text(32).nullable() }),
      ),
      ...errorResponses(400, 401, 403, 429),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const partner = c.get("partner");
    const parsed = parseRequestLogFilter(q);
    if (!parsed.ok) throw badRequest(`Invalid filter: ${parsed.invalid.join(", ")}.`);
    const cursor = q.cursor === undefined ? null : parseLogCursor(q.cursor);
    if (cursor === null && q.cursor !== undefined) throw badRequest("cursor is not one this API gave.");
    const page = await listRequestLog(
      c.env,
      logName(partner.id, partner.livemode),
      parsed.filter,
      cursor,
      q.limit,
      c.get("config").REQUEST_LOG_RETENTION_DAYS,
    );
    c.header("Cache-Control", "no-store");
    return c.json({ data: page.data.map(requestLogView), next_cursor: page.next_cursor }, 200);
  },
);
