import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env as HonoEnv, MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env";
import { badRequest, type FieldProblem } from "./errors";

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

export function fieldErrors(issues: readonly ZodIssueLike[]): FieldProblem[] {
  return issues.map((i) => ({ field: i.path.map(String).join(".") || "(root)", message: i.message }));
}

export function describeFieldErrors(target: string, errors: FieldProblem[]): string {
  const first = errors[0];
  const head = first ? `${first.field}: ${first.message}` : "invalid value";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return `Invalid ${target}: ${head}${more}`;
}

function invalid(target: string, issues: readonly ZodIssueLike[]): never {
  const errors = fieldErrors(issues);
  throw badRequest(describeFieldErrors(target, errors), errors);
}

interface ObjectSchemaLike {
  shape?: Record<string, unknown>;
  safeParse(
    value: unknown,
  ): { success: true; data: unknown } | { success: false; error: { issues: ZodIssueLike[] } };
}

type Target = "query" | "param" | "header";

/** What the request carries for `target`, as @hono/zod-validator would hand it to the schema. */
function rawInput(c: Parameters<MiddlewareHandler>[0], target: Target, schema: ObjectSchemaLike) {
  if (target === "param") return c.req.param();
  if (target === "query") {
    const query: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(c.req.queries())) query[k] = v.length === 1 ? (v[0] as string) : v;
    return query;
  }
  // Only the headers the schema names: reading every header the client sent and matching their
  // names costs more than the rest of a keyed read's validation (docs/performance.md).
  if (!schema.shape) return c.req.header();
  const headers: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = c.req.header(name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/** Query texts remembered per repeatable schema; past this many, that schema's start over. */
const MAX_REMEMBERED_QUERIES = 256;
const remembered = new WeakMap<object, Map<string, object>>();

/**
 * Marks a query schema whose result depends on nothing but the query text (no clock, no
 * randomness, no I/O): the isolate then remembers each text's parse, so a query asked again (a
 * widget re-quoting the same pair and amount) is neither split nor parsed again — on GET
 * /partner/rates that was ≈ 12 % of a public quote's CPU. Only valid queries are remembered, frozen
 * since requests share them; an invalid one is parsed every time and answered as before.
 */
export function repeatableQuery<S extends object>(schema: S): S {
  remembered.set(schema, new Map());
  return schema;
}

/**
 * The same for a header schema whose result depends on nothing but the values of the headers it
 * names: each combination's parse is remembered. On GET /partner/rates (`X-End-User-Country`, absent
 * from most requests) zod parsed the same empty set on every quote, 1–2 % of its CPU.
 */
export const repeatableHeaders = repeatableQuery;

/** The query text as the runtime serialised the URL (already normalised), without its "?". */
function queryText(url: string): string {
  const q = url.indexOf("?");
  return q < 0 ? "" : url.slice(q + 1);
}

/** The named headers a request carries, as one text (names and values hold no line breaks). */
function headersText(headers: Record<string, string>): string {
  let text = "";
  for (const name in headers) text += `${name}\n${headers[name]}\n`;
  return text;
}

/**
 * Validates a route's query, path parameters or headers synchronously: @hono/zod-validator parses
 * every part with `safeParseAsync` (a promise chain per field) and reads all request headers for a
 * header schema. Same input, same schema, same 400 as the default hook, same `c.req.valid(target)`.
 */
function validate(target: Target, schema: ObjectSchemaLike): MiddlewareHandler {
  const known = target === "param" ? undefined : remembered.get(schema);
  return async (c, next) => {
    // Headers are read before the memo is asked: their values are its key.
    const raw = target === "header" ? rawInput(c, target, schema) : undefined;
    const text =
      known && (raw === undefined ? queryText(c.req.url) : headersText(raw as Record<string, string>));
    let data = text === undefined ? undefined : known?.get(text);
    if (data === undefined) {
      const result = schema.safeParse(raw ?? rawInput(c, target, schema));
      if (!result.success) invalid(target, result.error.issues);
      data = result.data as object;
      if (known && text !== undefined) {
        if (known.size >= MAX_REMEMBERED_QUERIES) known.clear();
        known.set(text, Object.freeze(data));
      }
    }
    c.req.addValidatedData(target, data);
    await next();
  };
}

/**
 * Where a route's body is optional, an empty one is no body, whatever its Content-Type says
 * (`curl -H 'Content-Type: application/json' -X POST`): the library validates a body by its
 * Content-Type alone and would answer 400 "Malformed JSON" to nothing at all. The request is
 * handed on without the header, so the route sees no body, as when none was sent.
 */
const emptyBodyIsNoBody: MiddlewareHandler = async (c, next) => {
  if (c.req.header("content-type") !== undefined && (await c.req.text()).trim() === "") {
    const headers = new Headers(c.req.raw.headers);
    headers.delete("content-type");
    c.req.raw = new Request(c.req.raw, { headers, body: null });
  }
  await next();
};

type OpenApi = OpenAPIHono["openapi"];
type RouteConfig = Parameters<OpenApi>[0];

/**
 * Every router is created here so schema failures (missing field, wrong type, unknown enum) all
 * become the same 400 `invalid_request` with per-field `errors`. A route's query, parameters and
 * headers are checked by `validate` (in the library's order, after the route's own middleware);
 * its body still by the library. The document is registered from the route as declared.
 */
export function createRouter<E extends HonoEnv = AppEnv>(): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) invalid(result.target, result.error.issues);
    },
  });
  const openapi = app.openapi as unknown as OpenApi;
  const patched = ((
    route: RouteConfig,
    ...rest: Parameters<OpenApi> extends [unknown, ...infer R] ? R : never
  ) => {
    const { middleware, hide, request, ...declared } = route;
    const optionalBody = request?.body !== undefined && request.body.required !== true;
    if (!request || !(request.query || request.params || request.headers || optionalBody))
      return openapi(route, ...rest);
    if (!hide) app.openAPIRegistry.registerPath({ ...declared, request });
    const { query, params, headers, ...others } = request;
    const checks = [
      ...(optionalBody ? [emptyBodyIsNoBody] : []),
      ...(query ? [validate("query", query as unknown as ObjectSchemaLike)] : []),
      ...(params ? [validate("param", params as unknown as ObjectSchemaLike)] : []),
      ...(headers ? [validate("header", headers as unknown as ObjectSchemaLike)] : []),
    ];
    const own = middleware === undefined ? [] : Array.isArray(middleware) ? middleware : [middleware];
    return openapi({ ...declared, hide: true, request: others, middleware: [...own, ...checks] }, ...rest);
  }) as unknown as OpenApi;
  (app as unknown as { openapi: OpenApi }).openapi = patched;
  return app;
}
