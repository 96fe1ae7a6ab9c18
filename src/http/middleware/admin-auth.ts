import type { Context } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { createMiddleware } from "hono/factory";
import { AccessDenied, verifyAccessToken } from "../../adapters/operator-identity/cloudflare-access";
import type { Config } from "../../config";
import { constantTimeEqual } from "../../domain/credentials";
import type { OperatorActor } from "../../services/operator-audit";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";

const OPERATOR_NAME = /^[A-Za-z0-9._@+-]{1,64}$/;

const unauthorized = () =>
  new ApiError(401, "invalid_api_key", "Missing or invalid operator token.", {
    headers: { "WWW-Authenticate": 'Bearer realm="admin"' },
  });

// Every refusal (no header, not Bearer, wrong token) throws our own 401, so the body is the error
// model's and the mapping stays in one place.
const refuse = (): never => {
  throw unauthorized();
};

const adminToken = bearerAuth<AppEnv>({
  verifyToken: async (token, c) => {
    const expected = c.get("config").ADMIN_TOKEN;
    return expected !== undefined && (await constantTimeEqual(token, expected));
  },
  noAuthenticationHeader: { message: refuse },
  invalidAuthenticationHeader: { message: refuse },
  invalidToken: { message: refuse },
});

function accessConfig(config: Config) {
  const { ACCESS_TEAM_DOMAIN: teamDomain, ACCESS_AUD: audience } = config;
  return teamDomain && audience ? { teamDomain, audience } : null;
}

/**
 * `/admin/v1`: a Cloudflare Access JWT (`Cf-Access-Jwt-Assertion`, when ACCESS_TEAM_DOMAIN and
 * ACCESS_AUD are set) or Bearer ADMIN_TOKEN. Sets `operator` for the audit log: the Access e-mail,
 * or `token` / `token:<X-Operator>` (self-declared, for the CLI in dev). A present but invalid
 * Access token is refused outright, never retried as the shared token. With neither configured
 * the prefix does not exist (404). docs/operators.md, "Operator identity".
 */
export const adminAuth = createMiddleware<AppEnv>(async (c, next) => {
  const config = c.get("config");
  const access = accessConfig(config);
  const token = config.ADMIN_TOKEN;
  if (!token && !access)
    throw new ApiError(404, "not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`);

  const assertion = c.req.header("cf-access-jwt-assertion");
  if (access && assertion) {
    try {
      c.set("operator", await verifyAccessToken(assertion, access));
    } catch (err) {
      if (err instanceof AccessDenied) throw unauthorized();
      throw err;
    }
    return next();
  }
  return adminToken(c, async () => {
    const name = c.req.header("x-operator") ?? "";
    // With Access configured the shared token is break-glass: admitted, but every entry says so,
    // and the log shouts, so its use is seen and the token rotated afterwards.
    const kind = access ? "break_glass" : "token";
    const operator = OPERATOR_NAME.test(name) ? `${kind}:${name}` : kind;
    if (access)
      console.warn(
        `BREAK-GLASS: /admin/v1 admitted on ADMIN_TOKEN while Cloudflare Access is configured (${c.req.method} ${new URL(c.req.url).pathname}, operator ${operator}, request ${c.get("requestId")})`,
      );
    c.set("operator", operator);
    await next();
  });
});

/** Who acts, for the operator audit log. */
export const operatorOf = (c: Context<AppEnv>): OperatorActor => ({
  operator: c.get("operator"),
  requestId: c.get("requestId"),
});
