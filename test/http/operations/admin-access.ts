import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { HttpResponse, http } from "msw";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { ADMIN_TOKEN, expectError, json } from "../../helpers";
import { createMockNetwork } from "../../support/msw";

describe("admin-access", () => {
  // Cloudflare Access in front of /admin/v1, with a key pair made here and the team's JWKS served by MSW.
  const TEAM = "https://acme.cloudflareaccess.com";
  const AUD = "0f3b9c2d7e1a4b5c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c";
  const XLM_ID = "6f1c1f2e-0c1a-4b7e-9a01-00000000000e";
  const accessEnv = { ...env, ACCESS_TEAM_DOMAIN: "acme.cloudflareaccess.com", ACCESS_AUD: AUD } as Env;

  type Keys = Awaited<ReturnType<typeof generateKeyPair>>;
  let keys: Keys;
  let impostor: Keys;
  const network = createMockNetwork();

  beforeAll(async () => {
    keys = await generateKeyPair("RS256", { extractable: true });
    impostor = await generateKeyPair("RS256", { extractable: true });
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    network.reset(http.get(`${TEAM}/cdn-cgi/access/certs`, () => HttpResponse.json({ keys: [jwk] })));
    vi.stubGlobal("fetch", network.fetch);
  });

  afterAll(() => {
    vi.unstubAllGlobals();
  });

  /** A token as the Access edge would sign it; `claims` override the defaults (undefined drops one). */
  function token(claims: JWTPayload = {}, key: CryptoKey = keys.privateKey) {
    const now = Math.floor(Date.now() / 1000);
    const payload = { email: "Ops@Example.com", iss: TEAM, aud: AUD, iat: now, exp: now + 300, ...claims };
    return new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: "k1" }).sign(key);
  }

  async function request(
    path: string,
    headers: Record<string, string>,
    init: RequestInit = {},
    e = accessEnv,
  ) {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://local.test/admin/v1${path}`, {
        ...init,
        headers: { "content-type": "application/json", ...headers },
      }),
      e,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  }

  const access = (jwt: string) => ({ "Cf-Access-Jwt-Assertion": jwt });

  describe("operator identity: Cloudflare Access", () => {
    it("a valid Access token is an operator, named by its e-mail in the audit log", async () => {
      const jwt = await token();
      const res = await request(`/currencies/${XLM_ID}`, access(jwt), {
        method: "PATCH",
        body: JSON.stringify({ sort_order: 77 }),
      });
      expect(res.status).toBe(200);
      const log = await json<{ data: { operator: string; action: string }[] }>(
        await request(`/audit?entity_id=${XLM_ID}`, access(jwt)),
      );
      expect(log.data[0]).toMatchObject({ operator: "ops@example.com", action: "currency.update" });
      expect(network.unhandled).toEqual([]);
      expect(network.requests.filter((r) => r.url.endsWith("/cdn-cgi/access/certs")).length).toBeGreaterThan(
        0,
      );
    });

    it("refuses a wrong audience, issuer, an expired token, another key's signature, no e-mail, garbage", async () => {
      const bad = [
        await token({ aud: "another-app" }),
        await token({ iss: "https://evil.cloudflareaccess.com" }),
        await token({ exp: Math.floor(Date.now() / 1000) - 60 }),
        await token({}, impostor.privateKey),
        await token({ email: undefined }),
        "not.a.jwt",
      ];
      for (const jwt of bad)
        await expectError(await request("/currencies", access(jwt)), 401, "invalid_api_key");
    });

    it("an invalid Access token is not rescued by a valid ADMIN_TOKEN; the token alone still works", async () => {
      const both = { ...access("not.a.jwt"), authorization: `Bearer ${ADMIN_TOKEN}` };
      await expectError(await request("/currencies", both), 401, "invalid_api_key");
      expect((await request("/currencies", { authorization: `Bearer ${ADMIN_TOKEN}` })).status).toBe(200);
    });

    it("with Access configured, ADMIN_TOKEN alone is break-glass: admitted, audited as such, logged loudly", async () => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const res = await request(
        "/partners",
        { authorization: `Bearer ${ADMIN_TOKEN}`, "X-Operator": "oncall" },
        { method: "POST", body: JSON.stringify({ name: "break-glass partner" }) },
      );
      expect(res.status).toBe(201);
      const { id } = await json<{ id: string }>(res);
      expect(warn.mock.calls.flat().join(" ")).toMatch(
        /BREAK-GLASS.*POST \/admin\/v1\/partners.*break_glass:oncall/,
      );
      warn.mockRestore();
      const audit = await request(`/audit?entity_type=partner&entity_id=${id}`, access(await token()));
      const { data } = await json<{ data: { operator: string; action: string }[] }>(audit);
      expect(data.map((e) => [e.operator, e.action])).toEqual([["break_glass:oncall", "partner.create"]]);
    });

    it("with Access configured and no ADMIN_TOKEN, the token is refused and Access works", async () => {
      const onlyAccess = { ...accessEnv, ADMIN_TOKEN: undefined } as unknown as Env;
      await expectError(
        await request("/currencies", { authorization: `Bearer ${ADMIN_TOKEN}` }, {}, onlyAccess),
        401,
        "invalid_api_key",
      );
      expect((await request("/currencies", access(await token()), {}, onlyAccess)).status).toBe(200);
    });

    it("without Access configured the assertion header is ignored (token rules apply)", async () => {
      const res = await request("/currencies", access(await token()), {}, env);
      await expectError(res, 401, "invalid_api_key");
    });
  });

  describe("operator identity: the shared token", () => {
    it("every refusal is the error model's 401 with a Bearer challenge; the Bearer scheme is case-insensitive", async () => {
      for (const authorization of [
        undefined,
        `Basic ${ADMIN_TOKEN}`,
        "Bearer wrong-token",
        `Bearer ${ADMIN_TOKEN}x`,
        `Bearer ${ADMIN_TOKEN} extra`,
        "Bearer",
      ]) {
        const res = await request("/currencies", authorization ? { authorization } : {}, {}, env);
        expect(res.headers.get("www-authenticate"), String(authorization)).toBe('Bearer realm="admin"');
        await expectError(res, 401, "invalid_api_key");
      }
      expect((await request("/currencies", { authorization: `bearer ${ADMIN_TOKEN}` }, {}, env)).status).toBe(
        200,
      );
    });
  });
});
