import type { Context, TypedResponse } from "hono";
import { ifNoneMatch } from "../lib/etag";

// What @hono/zod-openapi types a declared response without content as.
// biome-ignore lint/complexity/noBannedTypes: the library's own type for "no body"
export type NotModified = TypedResponse<{}, 304, string>;

/** A JSON body serialised once, with its ETag, kept while what it was made from is unchanged. */
export interface TaggedBody {
  body: string;
  etag: string;
}

/**
 * 304 when the client already holds this ETag; otherwise the body as it was serialised (the same
 * bytes `c.json` would send), typed as the route's JSON response.
 */
export function taggedJson<T>(
  c: Context,
  { body, etag }: TaggedBody,
  caching: Record<string, string>,
): NotModified | TypedResponse<T, 200, "json"> {
  if (ifNoneMatch(c.req.header("if-none-match"), etag))
    return c.body(null, 304, { ...caching, ETag: etag }) as unknown as NotModified;
  return serialisedJson<T>(c, body, { ...caching, ETag: etag });
}

/** A JSON body serialised beforehand, answered as it is (the bytes `c.json` would send), typed as the route's JSON response. */
export function serialisedJson<T>(
  c: Context,
  body: string,
  headers: Record<string, string>,
): TypedResponse<T, 200, "json"> {
  return c.body(body, 200, { "Content-Type": "application/json", ...headers }) as unknown as TypedResponse<
    T,
    200,
    "json"
  >;
}
