// The cabinet's and the operator API's anonymous surface: the per-IP limit, sign-in failures
// counted per IPv6 /64, and the cron's pruning of rows nobody can use any more.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { purgeExpiredCabinetState } from "../../../src/services/cabinet-auth";
import { expectError } from "../../helpers";
import { SoftAuthenticator } from "../../support/authenticator";
import { cab, partnerWithAdmin, signInWith } from "../../support/cabinet";

const challenges = async () =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM cabinet_challenges").first<{ n: number }>())!.n;

describe("anonymous cabinet routes are rate limited per IP", () => {
  it("300 sign-in option calls from one IP: 60 answered, the rest 429 with Retry-After, no rows for them", async () => {
    const before = await challenges();
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 300; i++) {
      const res = await cab("/sign-in/options", { json: {}, ip: "198.51.100.77" });
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
      else await res.arrayBuffer();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(240);
    await expectError(limited!, 429, "rate_limited");
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await challenges()) - before).toBe(60);
    // Another client is not affected.
    expect((await cab("/sign-in/options", { json: {}, ip: "198.51.100.78" })).status).toBe(200);
  });

  it("invite pages count against the same bucket; a page answer keeps Retry-After", async () => {
    const ip = "198.51.100.79";
    for (let i = 0; i < 60; i++) expect((await cab("/invite/nope", { ip })).status).toBe(404);
    const page = await cab("/invite/nope", { ip });
    expect(page.status).toBe(429);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("/admin/v1: past ADMIN_RATE_LIMIT_PER_MINUTE from one IP, 429, even without a token", async () => {
    // A copy of the bindings gets its own config (config is cached per env object).
    const limited = { ...env, ADMIN_RATE_LIMIT_PER_MINUTE: "5" } as Env;
    const adminCall = async () => {
      const ctx = createExecutionContext();
      const req = new Request("http://localhost/admin/v1/partners", {
        headers: { "CF-Connecting-IP": "198.51.100.80" },
      });
      const res = await worker.fetch(req, limited, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    for (let i = 0; i < 5; i++) expect((await adminCall()).status).toBe(401);
    const res = await adminCall();
    await expectError(res, 429, "rate_limited");
    expect(res.headers.get("retry-after")).toBeTruthy();
  });
});

describe("sign-in failures", () => {
  it("are counted per IPv6 /64, not per address", async () => {
    const { authenticator } = await partnerWithAdmin();
    const stranger = new SoftAuthenticator();
    stranger.register({ challenge: "x", rp: {}, user: { id: "nobody" } });
    // Twenty failures, each from another address of one /64.
    for (let i = 1; i <= 20; i++)
      expect((await signInWith(stranger, `2001:db8:7:1::${i.toString(16)}`)).status).toBe(401);
    const res = await signInWith(authenticator, "2001:db8:7:1:ffff::1");
    expect(res.status).toBe(429);
    expect((await res.json<{ code: string }>()).code).toBe("signin_throttled");
    expect((await signInWith(authenticator, "2001:db8:7:2::1")).status).toBe(200);
  });
});

describe("the cron prunes", () => {
  it("expired challenges and sessions and past failure windows, and keeps the live ones", async () => {
    const { userId } = await partnerWithAdmin();
    const now = Date.now();
    const past = new Date(now - 3_600_000).toISOString();
    const future = new Date(now + 3_600_000).toISOString();
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO cabinet_challenges (id, challenge, purpose, subject, expires_at) VALUES ('prune-old', 'c', 'authenticate', NULL, ?), ('prune-live', 'c', 'authenticate', NULL, ?)",
      ).bind(past, future),
      env.DB.prepare(
        "INSERT INTO cabinet_sessions (id, user_id, csrf_token, created_at, last_seen_at, expires_at) VALUES ('prune-old', ?1, 't', ?2, ?2, ?2), ('prune-live', ?1, 't', ?2, ?2, ?3)",
      ).bind(userId, past, future),
      env.DB.prepare(
        "INSERT INTO cabinet_signin_failures (subject, window_start, failures) VALUES ('ip:prune', '2020-01-01T00:00:00.000Z', 3), ('ip:prune', ?, 1)",
      ).bind(new Date(now - (now % 900_000)).toISOString()),
    ]);
    expect(await purgeExpiredCabinetState(env.DB, now)).toBeGreaterThanOrEqual(3);
    const ids = async (table: string) =>
      (
        await env.DB.prepare(`SELECT id FROM ${table} WHERE id LIKE 'prune-%' ORDER BY id`).all<{
          id: string;
        }>()
      ).results.map((r) => r.id);
    expect(await ids("cabinet_challenges")).toEqual(["prune-live"]);
    expect(await ids("cabinet_sessions")).toEqual(["prune-live"]);
    const failures = await env.DB.prepare(
      "SELECT window_start FROM cabinet_signin_failures WHERE subject = 'ip:prune'",
    ).all();
    expect(failures.results).toHaveLength(1);
  });
});
