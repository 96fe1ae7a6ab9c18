/**
 * Static files (ReDoc, coin icons, the cabinet's scripts and stylesheet) are Workers Static Assets:
 * uploaded beside the Worker from public/ (built by `npm run prepare`, scripts/lib/static-assets.mjs)
 * instead of bundled into its script. wrangler.toml runs the Worker first on every request, so
 * the routes that serve them still set every header (cache policy, ETag, CSP, request id) and
 * answer a missing file with their own 404; they read only the body through the binding.
 */

const TYPES: Readonly<Record<string, string>> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
};

/** The file at `path` under public/ and its Content-Type (by extension); null when there is none. */
export async function staticAsset(
  assets: Fetcher,
  path: string,
): Promise<{ body: ReadableStream; type: string } | null> {
  const type = TYPES[path.slice(path.lastIndexOf(".") + 1)];
  if (!type) return null;
  // A fresh request: the caller's conditional headers are answered by the route, never here.
  const res = await assets.fetch(new URL(path, "https://assets.invalid"));
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel();
    return null;
  }
  return { body: res.body, type };
}
