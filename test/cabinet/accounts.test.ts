// Invitations, passkey ceremonies, sessions and throttling, through the cabinet's HTTP surface.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { admin, json } from "../helpers";
import { SoftAuthenticator } from "../support/authenticator";
import {
  acceptInvite,
  cab,
  invite,
  partnerWithAdmin,
  sessionAlive,
  sessionCookie,
  signInWith,
  stepUp,
} from "../support/cabinet";

describe("invitations", () => {
  it("stores only the hash of the link's token and works exactly once", async () => {
    const { partnerId } = await partnerWithAdmin();
    const token = await invite(partnerId, "Dev@Wallet.example", "developer");
    const rows = await env.DB.prepare("SELECT * FROM cabinet_invites WHERE partner_id = ? AND email = ?")
      .bind(partnerId, "dev@wallet.example")
      .all();
    expect(rows.results).toHaveLength(1);
    expect(JSON.stringify(rows.results)).not.toContain(token);

    const page = await cab(`/invite/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    expect(await page.text()).toContain("dev@wallet.example");

    const dev = await acceptInvite(token);
    expect(await sessionAlive(dev.cookie)).toBe(true);
    const again = await cab(`/invite/${token}`);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain("already been used");
    const reuse = await cab(`/invite/${token}/options`, { json: {} });
    expect(reuse.status).toBe(401);
  });

  it("sets a __Host- session cookie: HttpOnly, Secure, SameSite=Strict", async () => {
    const { partnerId } = await partnerWithAdmin();
    const opts = await cab(`/invite/${await invite(partnerId, "c@wallet.example")}/options`, { json: {} });
    const { challengeId, userId, options } = await json<{
      challengeId: string;
      userId: string;
      options: { challenge: string; rp: { id: string }; user: { id: string } };
    }>(opts);
    expect(options.rp.id).toBe("localhost");
    const res = await cab(`/invite/${await invite(partnerId, "d@wallet.example")}`, {
      json: { challengeId, userId, response: new SoftAuthenticator().register(options) },
    });
    // A challenge belongs to the invite it was issued for.
    expect(res.status).toBe(401);
    const set = (await acceptInviteRaw(partnerId, "e@wallet.example")).headers.get("set-cookie")!;
    expect(set).toMatch(/^__Host-cabinet_session=/);
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/Secure/i);
    expect(set).toMatch(/SameSite=Strict/i);
    expect(set).toMatch(/Path=\//);
    expect(set).not.toMatch(/Domain=/i);
  });

  it("expired, replaced and unknown links give a clear page", async () => {
    const { partnerId } = await partnerWithAdmin();
    const old = await invite(partnerId, "x@wallet.example");
    const fresh = await invite(partnerId, "x@wallet.example");
    expect((await cab(`/invite/${old}`)).status).toBe(410);
    await env.DB.prepare(
      "UPDATE cabinet_invites SET expires_at = ? WHERE email = 'x@wallet.example' AND partner_id = ?",
    )
      .bind(new Date(Date.now() - 1000).toISOString(), partnerId)
      .run();
    const expired = await cab(`/invite/${fresh}`);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain("expired");
    const unknown = await cab("/invite/not-a-real-token");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toMatch(/text\/html/);
  });

  it("a new invite for an existing member replaces their passkeys and ends their sessions", async () => {
    const { partnerId, cookie, authenticator } = await partnerWithAdmin("lost@wallet.example");
    const recovered = await acceptInvite(await invite(partnerId, "lost@wallet.example"));
    expect(await sessionAlive(cookie)).toBe(false);
    expect(await sessionAlive(recovered.cookie)).toBe(true);
    expect((await signInWith(authenticator)).status).toBe(401);
    expect((await signInWith(recovered.authenticator)).status).toBe(200);
    const users = await json<{ data: unknown[] }>(await admin(`/partners/${partnerId}/users`));
    expect(users.data).toHaveLength(1);
  });

  it("an inactive partner's invite link does not work", async () => {
    const { partnerId } = await partnerWithAdmin();
    const token = await invite(partnerId, "late@wallet.example");
    await admin(`/partners/${partnerId}`, { method: "PATCH", json: { is_active: false } });
    expect((await cab(`/invite/${token}`)).status).toBe(410);
  });
});

async function acceptInviteRaw(partnerId: string, email: string): Promise<Response> {
  const token = await invite(partnerId, email);
  const opts = await json<{ challengeId: string; userId: string; options: never }>(
    await cab(`/invite/${token}/options`, { json: {} }),
  );
  return cab(`/invite/${token}`, {
    json: { ...opts, response: new SoftAuthenticator().register(opts.options) },
  });
}

describe("sign-in", () => {
  it("signs in with a registered passkey and refuses a foreign origin", async () => {
    const { authenticator } = await partnerWithAdmin();
    const ok = await signInWith(authenticator);
    expect(ok.status).toBe(200);
    expect(await sessionAlive(sessionCookie(ok))).toBe(true);

    const opts = await json<{ challengeId: string; options: { challenge: string } }>(
      await cab("/sign-in/options", { json: {} }),
    );
    const phished = authenticator.assert(opts.options, undefined, { origin: "https://evil.example" });
    const res = await cab("/sign-in", { json: { challengeId: opts.challengeId, response: phished } });
    expect(res.status).toBe(401);
    // Challenges are single use.
    const replay = await cab("/sign-in", {
      json: { challengeId: opts.challengeId, response: authenticator.assert(opts.options) },
    });
    expect(replay.status).toBe(401);
  });

  it("a stranger's passkey cannot sign in", async () => {
    const stranger = new SoftAuthenticator();
    stranger.register({ challenge: "x", rp: {}, user: { id: "nobody" } });
    expect((await signInWith(stranger)).status).toBe(401);
  });

  it("throttles failed sign-ins per member, even for a correct passkey afterwards", async () => {
    const { authenticator } = await partnerWithAdmin();
    for (let i = 0; i < 10; i++) {
      const opts = await json<{ challengeId: string; options: { challenge: string } }>(
        await cab("/sign-in/options", { json: {}, ip: `192.0.2.${i + 1}` }),
      );
      const bad = authenticator.assert(opts.options, undefined, { origin: "https://evil.example" });
      const res = await cab("/sign-in", {
        json: { challengeId: opts.challengeId, response: bad },
        ip: `192.0.2.${i + 1}`,
      });
      expect(res.status).toBe(401);
    }
    const res = await signInWith(authenticator, "192.0.2.200");
    expect(res.status).toBe(429);
    expect((await res.json<{ code: string }>()).code).toBe("signin_throttled");
  });

  it("throttles failed sign-ins per client address", async () => {
    const { authenticator } = await partnerWithAdmin();
    const stranger = new SoftAuthenticator();
    stranger.register({ challenge: "x", rp: {}, user: { id: "nobody" } });
    for (let i = 0; i < 20; i++) expect((await signInWith(stranger, "192.0.2.250")).status).toBe(401);
    expect((await signInWith(authenticator, "192.0.2.250")).status).toBe(429);
    expect((await signInWith(authenticator, "192.0.2.251")).status).toBe(200);
  });
});

describe("sessions end", () => {
  it("on sign out", async () => {
    const { cookie, csrf } = await partnerWithAdmin();
    const res = await cab("/sign-out", { cookie, csrf, form: {} });
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toMatch(/__Host-cabinet_session=;/);
    expect(await sessionAlive(cookie)).toBe(false);
    const page = await cab("/keys", { cookie });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/cabinet/sign-in");
  });

  it("on sign out everywhere", async () => {
    const { cookie, csrf, authenticator } = await partnerWithAdmin();
    const other = sessionCookie(await signInWith(authenticator));
    await cab("/sign-out-everywhere", { cookie, csrf, form: {} });
    expect(await sessionAlive(cookie)).toBe(false);
    expect(await sessionAlive(other)).toBe(false);
  });

  it("on removal from the team", async () => {
    const { partnerId, cookie, csrf } = await partnerWithAdmin();
    const dev = await acceptInvite(await invite(partnerId, "dev@wallet.example", "developer"));
    const res = await cab(`/team/${dev.userId}/remove`, { cookie, csrf, form: {} });
    expect(res.status).toBe(303);
    expect(await sessionAlive(dev.cookie)).toBe(false);
    expect((await signInWith(dev.authenticator)).status).toBe(401);
  });

  it("on partner deactivation, and sign-in is refused", async () => {
    const { partnerId, cookie, authenticator } = await partnerWithAdmin();
    await admin(`/partners/${partnerId}`, { method: "PATCH", json: { is_active: false } });
    expect(await sessionAlive(cookie)).toBe(false);
    expect((await signInWith(authenticator)).status).toBe(401);
  });

  it("when the operator revokes a member's sessions or deactivates them", async () => {
    const { partnerId, cookie, userId, authenticator } = await partnerWithAdmin();
    const revoke = await admin(`/partners/${partnerId}/users/${userId}/revoke-sessions`, { method: "POST" });
    expect(await json(revoke)).toEqual({ revoked_sessions: 1 });
    expect(await sessionAlive(cookie)).toBe(false);
    const again = sessionCookie(await signInWith(authenticator));
    const deact = await admin(`/partners/${partnerId}/users/${userId}/deactivate`, { method: "POST" });
    expect((await json<{ status: string }>(deact)).status).toBe("deactivated");
    expect(await sessionAlive(again)).toBe(false);
    expect((await signInWith(authenticator)).status).toBe(401);
  });

  it("use keeps a session alive: the last-seen time moves forward (written after the answer)", async () => {
    const { cookie } = await partnerWithAdmin();
    const { id } = (await env.DB.prepare(
      "SELECT id FROM cabinet_sessions ORDER BY created_at DESC LIMIT 1",
    ).first<{ id: string }>())!;
    const old = new Date(Date.now() - 11 * 3600_000).toISOString();
    await env.DB.prepare("UPDATE cabinet_sessions SET last_seen_at = ? WHERE id = ?").bind(old, id).run();
    expect(await sessionAlive(cookie)).toBe(true);
    await vi.waitFor(async () => {
      const row = await env.DB.prepare("SELECT last_seen_at FROM cabinet_sessions WHERE id = ?")
        .bind(id)
        .first<{ last_seen_at: string }>();
      expect(Date.parse(row!.last_seen_at)).toBeGreaterThan(Date.now() - 60_000);
    });
  });

  it("after 12 h idle or 7 days in all", async () => {
    const { cookie, authenticator } = await partnerWithAdmin();
    const second = sessionCookie(await signInWith(authenticator));
    const old = new Date(Date.now() - 13 * 3600_000).toISOString();
    const sessions = await env.DB.prepare("SELECT id FROM cabinet_sessions ORDER BY created_at").all<{
      id: string;
    }>();
    const [a, b] = sessions.results.slice(-2);
    await env.DB.prepare("UPDATE cabinet_sessions SET last_seen_at = ? WHERE id = ?").bind(old, a!.id).run();
    await env.DB.prepare("UPDATE cabinet_sessions SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1).toISOString(), b!.id)
      .run();
    expect(await sessionAlive(cookie)).toBe(false);
    expect(await sessionAlive(second)).toBe(false);
  });
});

describe("passkeys", () => {
  it("adds a second passkey and removes one, never the last", async () => {
    const member = await partnerWithAdmin();
    const { cookie, csrf, authenticator } = member;
    // The step-up comes from the passkey the member has (the page asks for it first).
    const step_up = await stepUp(member);
    const opts = await json<{ challengeId: string; options: never }>(
      await cab("/account/passkeys/options", { json: {}, cookie, csrf }),
    );
    const added = await cab("/account/passkeys", {
      cookie,
      csrf,
      json: {
        challengeId: opts.challengeId,
        response: authenticator.register(opts.options),
        name: "laptop",
        step_up,
      },
    });
    expect(added.status).toBe(201);
    const [first, second] = authenticator.credentials;
    const page = await (await cab("/account", { cookie })).text();
    expect(page).toContain("laptop");
    const firstId = Buffer.from(first!.id).toString("base64url");
    const secondId = Buffer.from(second!.id).toString("base64url");
    expect((await cab(`/account/passkeys/${firstId}/remove`, { cookie, csrf, form: {} })).status).toBe(303);
    expect((await signInWith(authenticator)).status).toBe(200); // signs with the second
    const last = await cab(`/account/passkeys/${secondId}/remove`, { cookie, csrf, form: {} });
    expect(last.status).toBe(409);
  });
});
