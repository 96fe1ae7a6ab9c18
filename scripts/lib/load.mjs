// autocannon wrapper: a fixed number of connections for a fixed time, optionally rotating over
// several paths, reduced to the figures the bench reports.
import autocannon from "autocannon";

/**
 * @param {{
 *   baseUrl: string, path?: string, paths?: string[], method?: string,
 *   headers?: Record<string, string>, body?: string, connections: number, duration: number,
 *   amount?: number, expect?: number,
 * }} opts `amount`: this many requests instead of `duration` seconds. `expect`: the status a
 *   request should get (default any 2xx); rps counts only those, and every other answer is
 *   counted in `non2xx`.
 */
export async function runLoad(opts) {
  const paths = opts.paths ?? [opts.path];
  let i = 0;
  const result = await autocannon({
    url: `${opts.baseUrl}${paths[0]}`,
    method: opts.method ?? "GET",
    headers: opts.headers ?? {},
    body: opts.body,
    connections: opts.connections,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration }),
    timeout: 10,
    ...(paths.length > 1
      ? {
          requests: [
            {
              setupRequest: (req) => {
                req.path = paths[i++ % paths.length];
                return req;
              },
            },
          ],
        }
      : {}),
  });
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, Number(s.count)]),
  );
  const ok = opts.expect === undefined ? result["2xx"] : (statusCodes[opts.expect] ?? 0);
  return {
    requests: result.requests.total,
    ok,
    rps: ok / result.duration,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx:
      opts.expect === undefined
        ? result.non2xx
        : Object.values(statusCodes).reduce((n, count) => n + count, 0) - ok,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    duration: result.duration,
  };
}

/** A short run whose figures are discarded: isolates, JIT, caches and objects warm up. */
export async function warmUp(opts, seconds) {
  // Every path once first: a row over many objects (one per seeded order) otherwise meets some of
  // them cold inside its measured run, and the next row over the same objects does not: the
  // request log's pair (docs/performance.md) measured exactly that difference as the log's cost.
  if (opts.paths && opts.paths.length > 1) await runLoad({ ...opts, amount: opts.paths.length });
  if (seconds > 0) await runLoad({ ...opts, duration: seconds });
}
