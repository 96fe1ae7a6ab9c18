import type { Context } from "hono";
import { ipRateLimitSubject } from "../../domain/rate-limit";
import type { ConnectionLease } from "../../domain/streams";
import { releaseConnections } from "../../objects/rate-limiter";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { clientIp } from "./rate-limit";

/**
 * A slot for one more stream connection (docs/events.md, "Limits"), as requests are counted
 * (src/http/middleware/auth.ts): a server key's against the key, a keyless stream's against the
 * client IP, an app key's (public hands) against both; 429 `rate_limited` when one is full. The
 * object holding the stream gives the slots back when it closes; a slot whose close was never
 * reported lapses a minute after the longest a connection may stay open.
 */
export async function takeStreamSlots(c: Context<AppEnv>): Promise<ConnectionLease[]> {
  const config = c.get("config");
  const keyId = c.get("apiKeyId");
  const byIp = !keyId || c.get("keyKind") === "app";
  const wanted = [
    ...(byIp
      ? [
          {
            bucket: `stream-ip:${ipRateLimitSubject(clientIp(c))}`,
            limit: config.STREAM_CONNECTIONS_PER_IP,
            of: "this IP address",
          },
        ]
      : []),
    ...(keyId
      ? [{ bucket: `stream-key:${keyId}`, limit: config.STREAM_CONNECTIONS_PER_KEY, of: "this API key" }]
      : []),
  ];
  const ttlMs = (config.STREAM_MAX_CONNECTION_SECONDS + 60) * 1000;
  const leases: ConnectionLease[] = [];
  for (const w of wanted) {
    const slot = await c.env.RATE_LIMITER.getByName(w.bucket).openConnection(w.limit, ttlMs);
    if ("id" in slot) {
      leases.push({ bucket: w.bucket, id: slot.id });
      continue;
    }
    c.executionCtx.waitUntil(releaseConnections(c.env, leases));
    const retryAfter = Math.max(1, Math.ceil((slot.retryAt - Date.now()) / 1000));
    throw new ApiError(
      429,
      "rate_limited",
      `At most ${w.limit} event streams may be open at once for ${w.of}; close one, or retry in ${retryAfter} s at the latest.`,
      { headers: { "Retry-After": String(retryAfter) } },
    );
  }
  return leases;
}
