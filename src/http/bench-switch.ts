/**
 * Whether the bench's references and switches are on (the var BENCH_ROUTES is "true"): its routes
 * (src/http/routes/bench.ts) and the request log's "log off" header. Off, they do not exist.
 */
export function benchRoutesOn(env: Env): boolean {
  return (env as unknown as { BENCH_ROUTES?: unknown }).BENCH_ROUTES === "true";
}
