import { createRemoteJWKSet, customFetch, errors, jwtVerify } from "jose";
import { type FetchFn, runtimeFetch } from "../http-client";

/**
 * Cloudflare Access in front of /admin/v1: the edge signs a JWT per request
 * (`Cf-Access-Jwt-Assertion`) with the team's keys, published at
 * `https://<team>.cloudflareaccess.com/cdn-cgi/access/certs`. A request is an operator's only if
 * the signature verifies against that JWKS, the issuer is the team domain, the audience is the
 * application's AUD tag and the token is within its lifetime; the operator is its `email` claim.
 */
export interface AccessConfig {
  /** e.g. `myteam.cloudflareaccess.com` (an https:// prefix is accepted). */
  teamDomain: string;
  /** The Access application's Application Audience (AUD) tag. */
  audience: string;
  fetch?: FetchFn;
}

export class AccessDenied extends Error {
  override name = "AccessDenied";
}

export function teamOrigin(teamDomain: string): string {
  const host = teamDomain.replace(/^https?:\/\//i, "").replace(/\/+$/, "");
  return `https://${host}`;
}

// One key set per team per isolate: jose caches the keys, refetches on an unknown `kid` (key
// rotation) and at most every 30 s on repeated misses.
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function keySet(origin: string, fetchFn: FetchFn) {
  let set = keySets.get(origin);
  if (!set) {
    set = createRemoteJWKSet(new URL(`${origin}/cdn-cgi/access/certs`), {
      timeoutDuration: 5_000,
      [customFetch]: (url, init) => fetchFn(url, init),
    });
    keySets.set(origin, set);
  }
  return set;
}

/** The operator's e-mail from a valid Access token; AccessDenied for anything else. */
export async function verifyAccessToken(token: string, config: AccessConfig): Promise<string> {
  const origin = teamOrigin(config.teamDomain);
  try {
    const { payload } = await jwtVerify(token, keySet(origin, config.fetch ?? runtimeFetch), {
      issuer: origin,
      audience: config.audience,
      algorithms: ["RS256"],
      requiredClaims: ["exp", "email"],
    });
    if (typeof payload.email !== "string" || payload.email === "") throw new AccessDenied("no email claim");
    return payload.email.toLowerCase();
  } catch (err) {
    if (err instanceof AccessDenied) throw err;
    if (err instanceof errors.JOSEError) throw new AccessDenied(err.code);
    throw err;
  }
}
