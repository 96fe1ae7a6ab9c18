// The partner cabinet under /cabinet: plain Hono routes (HTML pages and the JSON the passkey
// ceremonies post), kept out of the OpenAPI documents. Handlers parse, call a service, render.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { ROLES, ROLL_OVERLAPS, type RollOverlap } from "../../domain/cabinet";
import {
  APP_KEY_SCOPES,
  chooseScopes,
  DEFAULT_SCOPES,
  movesFunds,
  READ_ONLY_SCOPES,
} from "../../domain/key-scopes";
import {
  addPasskey,
  addPasskeyOptions,
  completeInvite,
  createInvite,
  inviteRegistrationOptions,
  lookupInvite,
  signIn,
  signInOptions,
} from "../../services/cabinet-auth";
import {
  changeRole,
  createKey,
  deactivateMember,
  parseAllowlist,
  removePasskey,
  revokeInviteAudited,
  revokeKeyAudited,
  revokeSessions,
  rollKey,
  setAllowlist,
} from "../../services/cabinet-team";
import { STEP_UP_FIELD, stepUpOptions } from "../../services/step-up";
import { deleteSession, listAudit, listPasskeys, listPendingInvites, listUsers } from "../../storage/cabinet";
import { listKeys } from "../../storage/partners";
import { badRequest } from "../errors";
import { publicRateLimit } from "../middleware/auth";
import { onError } from "../middleware/errors";
import { clientIp } from "../middleware/rate-limit";
import { staticAsset } from "../static-assets";
import { form, formValues } from "./forms";
import { Message } from "./layout";
import { logPages } from "./logs";
import { registerOrderRoutes } from "./order-routes";
import { AccountPage, AuditPage, InvitePage, KeysPage, SignInPage, TeamPage } from "./pages";
import { payoutPages } from "./payouts";
import { registerReportRoutes } from "./report-routes";
import {
  actorOf,
  type CabinetEnv,
  checkOrigin,
  clearSessionCookie,
  loadSession,
  requireSession,
  rp,
  type SignedInEnv,
  setSessionCookie,
  stepUpGate,
} from "./session";
import { settingsPages } from "./settings";
import { webhookPages } from "./webhooks";
import { widgetPages } from "./widgets";

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const AUDIT_PAGE_SIZE = 50;

const meta = (c: Context) => ({ ip: clientIp(c), userAgent: c.req.header("user-agent") ?? null });

async function jsonBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  const parsed = schema.safeParse(await c.req.json().catch(() => null));
  if (!parsed.success) throw badRequest("Invalid request body.");
  return parsed.data;
}

const ceremonyResponse = z.object({
  challengeId: z.string().min(1).max(64),
  response: z.looseObject({ id: z.string() }),
});
const inviteBody = ceremonyResponse.extend({ userId: z.uuid() });
const passkeyBody = ceremonyResponse.extend({
  name: z.string().max(60).optional(),
  [STEP_UP_FIELD]: z.string().max(20_000).optional(),
});

function allowlistFrom(text: string | undefined): string[] {
  const { cidrs, invalid } = parseAllowlist(text ?? "");
  if (invalid.length) throw badRequest(`Not an IPv4/IPv6 address or CIDR: ${invalid.join(", ")}.`);
  return cidrs;
}

async function keysPage(c: Context<SignedInEnv>, extra: Partial<Parameters<typeof KeysPage>[0]> = {}) {
  const session = c.get("cabinet");
  const keys = await listKeys(c.env.DB, session.user.partner_id);
  // Newest first; the secret of a freshly issued key is in this one response only.
  return c.html(
    <KeysPage session={session} keys={keys.reverse()} origin={new URL(c.req.url).origin} {...extra} />,
    extra.issued ? 201 : 200,
  );
}

async function teamPage(c: Context<SignedInEnv>, extra: Partial<Parameters<typeof TeamPage>[0]> = {}) {
  const session = c.get("cabinet");
  const [members, invites] = await Promise.all([
    listUsers(c.env.DB, session.user.partner_id),
    listPendingInvites(c.env.DB, session.user.partner_id, new Date().toISOString()),
  ]);
  return c.html(
    <TeamPage session={session} members={members} invites={invites} {...extra} />,
    extra.issued ? 201 : 200,
  );
}

const signedIn = (c: Context<CabinetEnv>) => c as unknown as Context<SignedInEnv>;

export function createCabinet() {
  const app = new Hono<CabinetEnv>();

  app.use("*", async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CSP);
    c.header("X-Content-Type-Options", "nosniff");
    // Invite links carry their token in the path: never leak it to another site in a Referer. Not
    // "no-referrer": browsers then send `Origin: null` on form posts, which the Origin check refuses.
    c.header("Referrer-Policy", "same-origin");
    if (!c.req.path.startsWith("/cabinet/assets/")) c.header("Cache-Control", "no-store");
  });

  // Content-hashed names (scripts/build-cabinet-assets.mjs), so cached forever.
  app.get("/assets/:file", async (c) => {
    const asset = await staticAsset(c.env.ASSETS, `/cabinet/assets/${c.req.param("file")}`);
    if (!asset) return c.notFound();
    return c.body(asset.body, 200, {
      "Content-Type": asset.type,
      "Cache-Control": "public, max-age=31536000, immutable",
    });
  });

  app.use("*", checkOrigin, loadSession);
  // The routes anyone may call (each options call stores a challenge row): the public per-IP bucket.
  for (const path of ["/sign-in/*", "/invite/*"]) app.use(path, publicRateLimit);

  // ---- signing in -----------------------------------------------------------------------------

  app.get("/", (c) => c.redirect(c.get("cabinet") ? "/cabinet/keys" : "/cabinet/sign-in", 303));
  app.get("/sign-in", (c) => (c.get("cabinet") ? c.redirect("/cabinet/keys", 303) : c.html(<SignInPage />)));
  app.post("/sign-in/options", async (c) => c.json(await signInOptions(c.env.DB, rp(c))));
  app.post("/sign-in", async (c) => {
    const body = await jsonBody(c, ceremonyResponse);
    const session = await signIn(
      c.env.DB,
      rp(c),
      { challengeId: body.challengeId, response: body.response as unknown as AuthenticationResponseJSON },
      meta(c),
    );
    setSessionCookie(c, session);
    return c.json({ redirect: "/cabinet/keys" });
  });

  app.get("/invite/:token", async (c) => {
    const found = await lookupInvite(c.env.DB, c.req.param("token"));
    if (found.state !== "valid") {
      const text = {
        used: "This invitation link has already been used. If you cannot sign in, ask for a new one.",
        expired: "This invitation link has expired (links work for 72 hours). Ask for a new one.",
        revoked: "This invitation link was replaced by a newer one or cancelled.",
        unknown: "This invitation link is not valid. Check that you copied all of it.",
        partner_inactive: "This partner account is not active.",
      }[found.state];
      return c.html(
        <Message title="Invitation not valid" text={text} />,
        found.state === "unknown" ? 404 : 410,
      );
    }
    return c.html(
      <InvitePage
        token={c.req.param("token")}
        email={found.invite.email}
        partnerName={found.partnerName}
        recovery={found.invite.user_id !== null}
      />,
    );
  });
  app.post("/invite/:token/options", async (c) => {
    return c.json(await inviteRegistrationOptions(c.env.DB, rp(c), c.req.param("token")));
  });
  app.post("/invite/:token", async (c) => {
    const body = await jsonBody(c, inviteBody);
    const session = await completeInvite(
      c.env.DB,
      rp(c),
      c.req.param("token"),
      { ...body, response: body.response as unknown as RegistrationResponseJSON },
      meta(c),
    );
    setSessionCookie(c, session);
    return c.json({ redirect: "/cabinet/keys" }, 201);
  });

  // ---- signed in ------------------------------------------------------------------------------

  app.post("/sign-out", requireSession(), async (c) => {
    await deleteSession(c.env.DB, signedIn(c).get("cabinet").session.id);
    clearSessionCookie(c);
    return c.redirect("/cabinet/sign-in", 303);
  });
  app.post("/sign-out-everywhere", requireSession(), async (c) => {
    const s = signedIn(c);
    await revokeSessions(c.env.DB, actorOf(s), s.get("cabinet").user.id);
    clearSessionCookie(c);
    return c.redirect("/cabinet/sign-in", 303);
  });

  app.get("/keys", requireSession("keys.read"), (c) => keysPage(signedIn(c)));
  app.post("/keys", requireSession("keys.write"), async (c) => {
    const f = await form(c);
    const name = f.name?.trim().slice(0, 100) ?? "";
    if (!name) throw badRequest("A key needs a name.");
    // A post without the form's scope boxes (a script) gets the default, as on the operator API.
    // An app key's scopes are its kind's (never orders:act, so no step-up).
    const app = f.preset === "app";
    const chosen = chooseScopes(
      app
        ? APP_KEY_SCOPES
        : f.preset === "read-only"
          ? READ_ONLY_SCOPES
          : f.scopes_form
            ? await formValues(c, "scopes")
            : DEFAULT_SCOPES,
    );
    if (!chosen.ok) throw badRequest(`Scopes: ${chosen.reason}.`);
    const ipAllowlist = allowlistFrom(f.ip_allowlist);
    if (movesFunds(chosen.scopes))
      await stepUpGate(signedIn(c), f[STEP_UP_FIELD])({ action: "key.create", target: name });
    const issued = await createKey(c.env.DB, actorOf(signedIn(c)), {
      name,
      ipAllowlist,
      mode: f.mode === "test" ? "test" : "live",
      scopes: chosen.scopes,
      kind: app ? "app" : "server",
    });
    return keysPage(signedIn(c), { issued });
  });
  app.post("/keys/:keyId/revoke", requireSession("keys.write"), async (c) => {
    await revokeKeyAudited(c.env.DB, actorOf(signedIn(c)), c.req.param("keyId"));
    return c.redirect("/cabinet/keys", 303);
  });
  app.post("/keys/:keyId/roll", requireSession("keys.write"), async (c) => {
    const f = await form(c);
    const overlap = f.overlap ?? "";
    if (!(overlap in ROLL_OVERLAPS))
      throw badRequest(`overlap must be one of ${Object.keys(ROLL_OVERLAPS).join(", ")}.`);
    const issued = await rollKey(
      c.env.DB,
      actorOf(signedIn(c)),
      c.req.param("keyId"),
      overlap as RollOverlap,
      stepUpGate(signedIn(c), f[STEP_UP_FIELD]),
    );
    return keysPage(signedIn(c), { issued });
  });
  app.post("/keys/:keyId/allowlist", requireSession("keys.write"), async (c) => {
    const cidrs = allowlistFrom((await form(c)).ip_allowlist);
    await setAllowlist(c.env.DB, actorOf(signedIn(c)), c.req.param("keyId"), cidrs);
    return c.redirect("/cabinet/keys", 303);
  });

  app.get("/team", requireSession("team.read"), (c) => teamPage(signedIn(c)));
  app.post("/team/invites", requireSession("team.write"), async (c) => {
    const f = await form(c);
    const parsed = z.object({ email: z.email().max(254), role: z.enum(ROLES) }).safeParse(f);
    if (!parsed.success) throw badRequest("An invite needs a valid e-mail address and a role.");
    // An invite signs someone in (or, for a member, replaces their passkeys): never on a session alone.
    await stepUpGate(signedIn(c), f[STEP_UP_FIELD])({ action: "invite.create", target: parsed.data.email });
    const issued = await createInvite(
      c.env.DB,
      c.get("config").CABINET_ORIGIN,
      actorOf(signedIn(c)),
      parsed.data,
    );
    return teamPage(signedIn(c), { issued });
  });
  app.post("/team/invites/:id/revoke", requireSession("team.write"), async (c) => {
    await revokeInviteAudited(c.env.DB, actorOf(signedIn(c)), c.req.param("id"));
    return c.redirect("/cabinet/team", 303);
  });
  app.post("/team/:userId/role", requireSession("team.write"), async (c) => {
    const f = await form(c);
    const role = z.enum(ROLES).safeParse(f.role);
    if (!role.success) throw badRequest("Unknown role.");
    await stepUpGate(
      signedIn(c),
      f[STEP_UP_FIELD],
    )({
      action: "member.role_change",
      target: c.req.param("userId"),
    });
    await changeRole(c.env.DB, actorOf(signedIn(c)), c.req.param("userId"), role.data);
    return c.redirect("/cabinet/team", 303);
  });
  app.post("/team/:userId/remove", requireSession("team.write"), async (c) => {
    await deactivateMember(c.env.DB, actorOf(signedIn(c)), c.req.param("userId"), { enforceLastAdmin: true });
    return c.redirect("/cabinet/team", 303);
  });

  app.route("/webhooks", webhookPages());
  app.route("/logs", logPages());
  app.route("/settings", settingsPages());
  app.route("/payouts", payoutPages());
  app.route("/widgets", widgetPages());
  registerOrderRoutes(app);
  registerReportRoutes(app);

  app.get("/audit", requireSession("audit.read"), async (c) => {
    const s = signedIn(c);
    const before = Number.parseInt(c.req.query("before") ?? "", 10);
    const entries = await listAudit(
      c.env.DB,
      s.get("cabinet").user.partner_id,
      Number.isSafeInteger(before) && before > 0 ? before : null,
      AUDIT_PAGE_SIZE + 1,
    );
    const page = entries.slice(0, AUDIT_PAGE_SIZE);
    const nextBefore = entries.length > AUDIT_PAGE_SIZE ? (page.at(-1)?.id ?? null) : null;
    return c.html(<AuditPage session={s.get("cabinet")} entries={page} nextBefore={nextBefore} />);
  });

  app.get("/account", requireSession(), async (c) => {
    const s = signedIn(c).get("cabinet");
    return c.html(<AccountPage session={s} passkeys={await listPasskeys(c.env.DB, s.user.id)} />);
  });
  app.post("/step-up/options", requireSession(), async (c) =>
    c.json(await stepUpOptions(c.env.DB, rp(c), signedIn(c).get("cabinet"))),
  );
  app.post("/account/passkeys/options", requireSession(), async (c) =>
    c.json(await addPasskeyOptions(c.env.DB, rp(c), signedIn(c).get("cabinet").user)),
  );
  app.post("/account/passkeys", requireSession(), async (c) => {
    const s = signedIn(c);
    const body = await jsonBody(c, passkeyBody);
    // A passkey added on a session alone would then pass every step-up: it needs one itself.
    await stepUpGate(s, body[STEP_UP_FIELD])({ action: "passkey.add", target: body.name?.trim() || null });
    await addPasskey(
      c.env.DB,
      rp(c),
      s.get("cabinet").user,
      { ...body, response: body.response as unknown as RegistrationResponseJSON },
      actorOf(s),
    );
    return c.json({ ok: true }, 201);
  });
  app.post("/account/passkeys/:id/remove", requireSession(), async (c) => {
    const s = signedIn(c);
    await removePasskey(c.env.DB, actorOf(s), s.get("cabinet").user, c.req.param("id"));
    return c.redirect("/cabinet/account", 303);
  });

  // Form posts and page loads get an HTML page; the ceremonies' fetches get the usual JSON error.
  app.onError(async (err, c) => {
    const res = await onError(err, c);
    const wantsJson =
      c.req.header("content-type")?.startsWith("application/json") || c.req.header("x-csrf-token");
    if (wantsJson) return res;
    const { detail } = (await res.json()) as { detail: string };
    // Keep Retry-After and the RateLimit fields of a 429 on the page too.
    const kept = [...res.headers].filter(([k]) => k === "retry-after" || k.startsWith("ratelimit"));
    return c.html(
      <Message title="That did not work" text={detail} session={c.get("cabinet")} />,
      res.status as ContentfulStatusCode,
      Object.fromEntries(kept),
    );
  });

  return app;
}
