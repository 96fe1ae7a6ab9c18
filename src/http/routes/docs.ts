import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";

export const OPENAPI_PATH = "/api/v1/openapi.json";

const INTERACTIVE_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Partner Exchange API — interactive reference</title>
</head>
<body>
  <noscript>The machine-readable reference is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
  <script id="api-reference" data-url="${OPENAPI_PATH}"></script>
  <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script>
</body>
</html>`;

const esc = (s: unknown) => String(s ?? "").replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

interface Operation {
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; description?: string }[];
  requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> };
  responses?: Record<string, { description?: string }>;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/**
 * The reference as plain HTML, rendered from the OpenAPI document itself: it needs no script and
 * no network, so it works in offline dev. The interactive viewer (a CDN script) is one link away.
 */
function referenceHtml(doc: { info: { title: string; description?: string }; paths?: object }): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Record<string, Operation>][]) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? "yes" : "no"}</td><td>${esc(p.description)}</td></tr>`,
        )
        .join("");
      const body = Object.values(op.requestBody?.content ?? {})[0]
        ?.schema?.$ref?.split("/")
        .pop();
      const responses = Object.entries(op.responses ?? {})
        .map(([code, r]) => `<li><code>${esc(code)}</code> ${esc(r.description)}</li>`)
        .join("");
      const html = `<section><h3><code>${method.toUpperCase()} ${esc(path)}</code></h3>
<p><strong>${esc(op.summary)}</strong></p><p>${esc(op.description)}</p>
${params ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th></th></tr>${params}</table>` : ""}
${body ? `<p>Body: <code>${esc(body)}</code> (schema in <a href="${OPENAPI_PATH}">openapi.json</a>)</p>` : ""}
<ul>${responses}</ul></section>`;
      const tag = op.tags?.[0] ?? "Other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const sections = [...byTag].map(([tag, ops]) => `<h2>${esc(tag)}</h2>${ops.join("")}`).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${esc(doc.info.title)} — reference</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
section{border-top:1px solid #ddd;padding:.5rem 0}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left}</style>
</head><body><h1>${esc(doc.info.title)}</h1><p>${esc(doc.info.description)}</p>
<p>Machine-readable: <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a> · Interactive viewer (loads a script from a CDN): <a href="/docs/interactive">/docs/interactive</a></p>
${sections}</body></html>`;
}

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate, and a docs page. */
export function mountDocs(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "PartnerBearer", {
    type: "http",
    scheme: "bearer",
    description: "Partner API key `<key_id>.<secret>`.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "PartnerApiKey", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "The same partner API key, as a header.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminBearer", {
    type: "http",
    scheme: "bearer",
    description: "Operator token (ADMIN_TOKEN secret).",
  });
  const config = (origin: string) => ({
    openapi: "3.1.0",
    info: {
      title: "Partner Exchange API",
      version: "1.0.0",
      description:
        "List currencies, quote rates, create exchange orders and follow them to payout. Every error is JSON `{detail, code}`; branch on `code`.",
    },
    servers: [{ url: origin, description: "This deployment" }],
  });
  app.doc31(OPENAPI_PATH, (c) => config(new URL(c.req.url).origin));
  app.get("/docs", (c) => c.html(referenceHtml(app.getOpenAPI31Document(config(new URL(c.req.url).origin)))));
  app.get("/docs/interactive", (c) => c.html(INTERACTIVE_HTML));
}
