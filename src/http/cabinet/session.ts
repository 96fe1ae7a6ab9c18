// Cabinet request guards: the session cookie, the Origin check, the CSRF token and role checks.
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { can, type Permission } from "../../domain/cabinet";
import { type Actor, type NewSession, relyingParty, resolveSession } from "../../services/cabinet-auth";
import { type StepUpGate, verifyStepUp } from "../../services/step-up";
import type { SessionContext } from "../../storage/cabinet";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { clientIp } from "../middleware/rate-limit";

export interface CabinetEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { cabinet?: SessionContext };
}
export interface SignedInEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { cabinet: SessionContext };
}

// `__Host-`: Secure, Path=/, no Domain — the cookie cannot be set or read by a sibling subdomain.
const COOKIE = "cabinet_session";

export function setSessionCookie(c: Context, s: NewSession): void {
  setCookie(c, COOKIE, s.token, {
    prefix: "host",
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    path: "/",
    maxAge: s.maxAgeSeconds,
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, COOKIE, { prefix: "host", secure: true, path: "/" });
}

export function sessionToken(c: Context): string | undefined {
  return getCookie(c, COOKIE, "host");
}

export const rp = (c: Context<AppEnv>) => relyingParty(c.get("config").CABINET_ORIGIN);

export function actorOf(c: Context<SignedInEnv>): Actor {
  const { user } = c.get("cabinet");
  return { partnerId: user.partner_id, label: user.email, ip: clientIp(c) };
}

/**
 * The request's step-up (src/services/step-up.ts) from its `step_up` field: a route or service
 * calls it right before a change that needs one; without a fresh proof it throws 403
 * `step_up_required` and nothing has changed.
 */
export const stepUpGate =
  (c: Context<SignedInEnv>, field: string | undefined): StepUpGate =>
  (purpose) =>
    verifyStepUp(
      c.env.DB,
      relyingParty(c.get("config").CABINET_ORIGIN),
      c.get("cabinet"),
      actorOf(c),
      field,
      purpose,
    );

const MODE_COOKIE = "cabinet_mode";

/**
 * The Live / Test view (docs/test-mode.md): `?mode=` from the header switch, remembered in a cookie
 * so every page keeps showing the mode chosen last. Only a view: what a request may do is the role's.
 */
function viewMode(c: Context): "live" | "test" {
  const asked = c.req.query("mode");
  if (asked === "live" || asked === "test") {
    setCookie(c, MODE_COOKIE, asked, {
      prefix: "host",
      httpOnly: true,
      secure: true,
      sameSite: "Strict",
      path: "/",
    });
    return asked;
  }
  return getCookie(c, MODE_COOKIE, "host") === "test" ? "test" : "live";
}

/** Loads the session (if any) for every cabinet request. */
export const loadSession = createMiddleware<CabinetEnv>(async (c, next) => {
  const token = sessionToken(c);
  const ctx = token ? await resolveSession(c.env.DB, token, (work) => c.executionCtx.waitUntil(work)) : null;
  if (ctx) c.set("cabinet", { ...ctx, mode: viewMode(c) });
  else if (token) clearSessionCookie(c);
  await next();
});

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Every state-changing request must come from the cabinet's own origin. A browser says so with
 * `Origin`, which must then be exactly CABINET_ORIGIN; Chromium leaves `Origin` off same-origin
 * fetches, so without it `Sec-Fetch-Site: same-origin` (which page scripts cannot set) is the
 * proof. A request with neither (a cross-site form from an old client, a script) is refused.
 */
export const checkOrigin = createMiddleware<CabinetEnv>(async (c, next) => {
  if (!SAFE.has(c.req.method)) {
    const origin = c.req.header("origin");
    const sameSite = c.req.header("sec-fetch-site") === "same-origin";
    if (origin === undefined ? !sameSite : origin !== rp(c).origin)
      throw new ApiError(
        403,
        "forbidden",
        `Cross-origin request refused: Origin ${origin ?? "(none)"} is not the cabinet's (${rp(c).origin}; see CABINET_ORIGIN).`,
      );
  }
  await next();
});

/** Signed-in pages: anonymous GETs go to the sign-in page, anything else is 401. */
export function requireSession(permission?: Permission): MiddlewareHandler<CabinetEnv> {
  return createMiddleware<CabinetEnv>(async (c, next) => {
    const ctx = c.get("cabinet");
    if (!ctx) {
      if (SAFE.has(c.req.method)) return c.redirect("/cabinet/sign-in", 303);
      throw new ApiError(401, "invalid_api_key", "Not signed in.");
    }
    if (permission && !can(ctx.user.role, permission))
      throw new ApiError(403, "forbidden", `Your role (${ctx.user.role}) cannot do this.`);
    if (!SAFE.has(c.req.method)) {
      const form = c.req.header("content-type")?.startsWith("application/x-www-form-urlencoded")
        ? await c.req.parseBody()
        : null;
      const presented = c.req.header("x-csrf-token") ?? (typeof form?._csrf === "string" ? form._csrf : "");
      if (presented !== ctx.session.csrf_token)
        throw new ApiError(
          403,
          "csrf_failed",
          "The form has expired (CSRF token mismatch); reload the page.",
        );
    }
    await next();
  });
}
