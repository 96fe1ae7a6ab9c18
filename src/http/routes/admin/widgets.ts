import { createRoute, z } from "@hono/zod-openapi";
import { MAX_ALLOWED_ORIGINS, type Widget } from "../../../domain/widget";
import { createWidget, partnerWidgets, revokePartnerWidget } from "../../../services/widgets";
import { getPartner } from "../../../storage/partners";
import { ApiError } from "../../errors";
import { createRouter } from "../../router";
import { errorResponses, idParam, out } from "../../schemas";

const tags = ["Admin: partners"];
const security: Record<string, string[]>[] = [{ AdminBearer: [] }, { CloudflareAccess: [] }];

const ticker = z.string().min(1).max(20);
const PairSchema = z
  .strictObject({ coin_from: ticker, network_from: ticker, coin_to: ticker, network_to: ticker })
  .openapi("WidgetPair");
const ThemeSchema = z
  .strictObject({
    accent: z
      .string()
      .max(7)
      .regex(/^#[0-9a-fA-F]{6}$/, "must be a colour such as #1f4fd1")
      .openapi({ example: "#1f4fd1" }),
    scheme: z.enum(["light", "dark", "auto"]),
  })
  .openapi("WidgetTheme");
const LockedSchema = z
  .strictObject({
    address: z.string().min(1).max(128),
    network: ticker,
    tag: z.string().min(1).max(128).nullish(),
  })
  .openapi("LockedRecipient", {
    description: "Every order of the widget pays out here; the user cannot change it.",
  });

/** The widget settings an operator or a cabinet admin sends (docs/widget.md). */
export const WidgetInputSchema = z
  .strictObject({
    mode: z
      .enum(["live", "test"])
      .default("live")
      .openapi({ description: "A test widget creates test orders." }),
    name: z.string().trim().min(1).max(60).optional(),
    allowed_origins: z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(MAX_ALLOWED_ORIGINS)
      .openapi({ description: "Origins that may frame the widget (https; http only for localhost)." }),
    theme: ThemeSchema.partial().optional(),
    default_pair: PairSchema.nullish(),
    default_amount: z
      .string()
      .regex(/^\d+(\.\d+)?$/, "must be a decimal string such as 0.1")
      .max(40)
      .nullish(),
    coins: z
      .array(ticker)
      .max(200)
      .nullish()
      .openapi({ description: "Tickers offered; omitted: every coin." }),
    locked_recipient: LockedSchema.nullish(),
  })
  .openapi("WidgetInput");

export const WidgetSchema = z
  .object({
    id: z.string().max(40).openapi({ example: "wid_3kP9xQ2mB7vT4nR8sL1a" }),
    partner_id: out.uuid(),
    mode: z.enum(["live", "test"]),
    name: z.string().max(60),
    allowed_origins: z.array(z.string().max(200)).max(MAX_ALLOWED_ORIGINS),
    theme: ThemeSchema,
    default_pair: PairSchema.nullable(),
    default_amount: z.string().max(40).nullable(),
    coins: z.array(ticker).max(200).nullable(),
    locked_recipient: z
      .object({ address: z.string().max(128), network: ticker, tag: z.string().max(128).nullable() })
      .nullable(),
    created_by: z.string().max(254),
    created_at: z.string().max(40),
    revoked_at: z.string().max(40).nullable(),
    embed_url: z.string().max(300).openapi({ description: "The iframe URL, /widget/{id}." }),
    referral_url: z.string().max(300).openapi({ description: "The referral link, /swap?ref={id}." }),
  })
  .openapi("Widget");

/** A widget as the API shows it, with its iframe URL and referral link on this host. */
export const widgetView = (w: Widget, origin: string) => ({
  ...w,
  embed_url: `${origin}/widget/${w.id}`,
  referral_url: `${origin}/swap?ref=${w.id}`,
});

const notFound = () => new ApiError(404, "partner_not_found", "Partner not found.");

export const adminWidgetsRouter = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/partners/{id}/widgets",
      operationId: "adminCreateWidget",
      tags,
      security,
      summary: "Create a widget (and its referral link) for a partner",
      request: {
        params: idParam,
        body: { content: { "application/json": { schema: WidgetInputSchema } }, required: true },
      },
      responses: {
        201: { description: "The widget.", content: { "application/json": { schema: WidgetSchema } } },
        ...errorResponses(400, 401, 404, 422),
      },
    }),
    async (c) => {
      const w = await createWidget(c.env.DB, c.req.valid("param").id, c.req.valid("json"), "operator");
      return c.json(widgetView(w, new URL(c.req.url).origin), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partners/{id}/widgets",
      operationId: "adminListWidgets",
      tags,
      security,
      summary: "List a partner's widgets, revoked ones included",
      request: { params: idParam },
      responses: {
        200: {
          description: "Widgets, newest first.",
          content: { "application/json": { schema: z.object({ data: z.array(WidgetSchema).max(10_000) }) } },
        },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      if (!(await getPartner(c.env.DB, id))) throw notFound();
      const origin = new URL(c.req.url).origin;
      return c.json({ data: (await partnerWidgets(c.env.DB, id)).map((w) => widgetView(w, origin)) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/partners/{id}/widgets/{widget_id}",
      operationId: "adminRevokeWidget",
      tags,
      security,
      summary: "Revoke a widget: its frame, referral link and order creation stop at once",
      request: {
        params: idParam.extend({
          widget_id: z
            .string()
            .max(40)
            .openapi({ param: { name: "widget_id", in: "path" } }),
        }),
      },
      responses: {
        204: { description: "Revoked." },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { id, widget_id } = c.req.valid("param");
      await revokePartnerWidget(c.env.DB, id, widget_id);
      return c.body(null, 204);
    },
  );
