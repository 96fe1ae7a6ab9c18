// Self-serve keys, verified through the public partner API afterwards; role and Origin checks on
// every cabinet route; the team page's last-admin rule; the audit log.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin as adminApi, call, expectError, json, setPrices } from "../helpers";
import { acceptInvite, cab, csrfOf, invite, partnerWithAdmin, stepUp } from "../support/cabinet";
import { BTC_TO_USDT } from "../support/orders";

beforeAll(() => setPrices());

const keyIn = (html: string) => /data-testid="new-key">([^<]+)</.exec(html)?.[1] ?? null;

function api(key: string, ip = "198.51.100.7") {
  return call("/api/v1/partner/orders", {
    method: "POST",
    body: JSON.stringify(BTC_TO_USDT),
    headers: { Authorization: `Bearer ${key}`, "content-type": "application/json", "cf-connecting-ip": ip },
  });
}

async function createKey(
  m: { cookie: string; csrf: string },
  form: Record<string, string> | [string, string][] = {},
) {
  const pairs = Array.isArray(form) ? form : Object.entries(form);
  const res = await cab("/keys", { cookie: m.cookie, csrf: m.csrf, form: [["name", "prod"], ...pairs] });
  expect(res.status).toBe(201);
  const html = await res.text();
  const key = keyIn(html);
  expect(key).toMatch(/^pk_[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}$/);
  return key!;
}

describe("API keys from the cabinet", () => {
  it("a created key works on the partner API, and its secret is never shown again", async () => {
    const admin = await partnerWithAdmin();
    const key = await createKey(admin);
    expect((await api(key)).status).toBe(201);
    const page = await (await cab("/keys", { cookie: admin.cookie })).text();
    expect(page).toContain(key.split(".")[0]);
    expect(page).not.toContain(key.split(".")[1]);
    expect(page).toContain("admin@wallet.example"); // created by
  });

  it("scopes: checkboxes (all but orders:act ticked), a read-only preset, shown on the keys page and kept by a roll", async () => {
    const admin = await partnerWithAdmin();
    const form = await (await cab("/keys", { cookie: admin.cookie })).text();
    const boxes = [...form.matchAll(/<input type="checkbox" name="scopes" value="([^"]+)"( checked="")?/g)];
    expect(boxes.map((m) => [m[1], m[2] !== undefined])).toEqual([
      ["read", true],
      ["orders:write", true],
      ["orders:act", false],
      ["webhooks:write", true],
    ]);
    expect(form).toContain('data-testid="create-read-only-key"');

    const readOnly = await createKey(admin, { preset: "read-only", scopes: "orders:write" });
    await expectError(await api(readOnly), 403, "insufficient_scope");
    expect((await call("/api/v1/partner/orders", { headers: { "X-API-Key": readOnly } })).status).toBe(200);

    const actor = await createKey(admin, [
      ["scopes_form", "1"],
      ["scopes", "orders:write"],
      ["scopes", "orders:act"],
      ["step_up", await stepUp(admin)],
    ]);
    expect((await api(actor)).status).toBe(201);
    expect((await call("/api/v1/partner/orders", { headers: { "X-API-Key": actor } })).status).toBe(403);
    expect(
      (
        await cab("/keys", {
          ...admin,
          form: [
            ["name", "none"],
            ["scopes_form", "1"],
          ],
        })
      ).status,
    ).toBe(400);

    const scopesOf = (html: string, keyId: string) =>
      new RegExp(`data-key-id="${keyId}"[\\s\\S]*?data-testid="key-scopes">(.*?)</span>`)
        .exec(html)?.[1]
        ?.replace(/<[^>]+>/g, " ")
        .trim()
        .split(/\s+/);
    const page = await (await cab("/keys", { cookie: admin.cookie })).text();
    expect(scopesOf(page, readOnly.split(".")[0]!)).toEqual(["read"]);
    expect(scopesOf(page, actor.split(".")[0]!)).toEqual(["orders:write", "orders:act"]);
    const rolled = keyIn(
      await (
        await cab(`/keys/${actor.split(".")[0]}/roll`, {
          ...admin,
          form: { overlap: "now", step_up: await stepUp(admin) },
        })
      ).text(),
    )!;
    const after = await (await cab("/keys", { cookie: admin.cookie })).text();
    expect(scopesOf(after, rolled.split(".")[0]!)).toEqual(["orders:write", "orders:act"]);
  });

  it("the app-key preset makes a public pk_app_ key, with the warning, that creates orders and cannot list them", async () => {
    const admin = await partnerWithAdmin();
    const form = await (await cab("/keys", { cookie: admin.cookie })).text();
    expect(form).toContain('data-testid="create-app-key"');
    expect(/data-testid="app-key-warning">([\s\S]*?)<\/p>/.exec(form)?.[1]).toMatch(/public/);
    // The ticked boxes do not count, orders:act among them: no step-up is asked for.
    const res = await cab("/keys", {
      ...admin,
      form: [
        ["name", "wallet app"],
        ["preset", "app"],
        ["scopes_form", "1"],
        ["scopes", "orders:act"],
      ],
    });
    expect(res.status).toBe(201);
    const key = keyIn(await res.text())!;
    expect(key).toMatch(/^pk_app_[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}$/);
    expect((await api(key)).status).toBe(201);
    await expectError(
      await call("/api/v1/partner/orders", { headers: { "X-API-Key": key } }),
      403,
      "insufficient_scope",
    );
    const page = await (await cab("/keys", { cookie: admin.cookie })).text();
    expect(new RegExp(`data-key-id="${key.split(".")[0]}"[\\s\\S]*?app \\(public\\)`).test(page)).toBe(true);
  });

  it("revoke stops the key", async () => {
    const admin = await partnerWithAdmin();
    const key = await createKey(admin);
    const res = await cab(`/keys/${key.split(".")[0]}/revoke`, { ...admin, form: {} });
    expect(res.status).toBe(303);
    await expectError(await api(key), 401, "invalid_api_key");
  });

  it("roll with overlap keeps both keys working; roll 'now' ends the old one", async () => {
    const admin = await partnerWithAdmin();
    const old = await createKey(admin);
    const rolled = await cab(`/keys/${old.split(".")[0]}/roll`, { ...admin, form: { overlap: "1h" } });
    expect(rolled.status).toBe(201);
    const fresh = keyIn(await rolled.text())!;
    expect(fresh).not.toBe(old);
    expect((await api(old)).status).toBe(201);
    expect((await api(fresh)).status).toBe(201);
    const page = await (await cab("/keys", { cookie: admin.cookie })).text();
    expect(page).toMatch(/rolled<\/span><div class="muted">works until/);

    const again = await cab(`/keys/${fresh.split(".")[0]}/roll`, { ...admin, form: { overlap: "now" } });
    const newest = keyIn(await again.text())!;
    const res = await api(fresh);
    await expectError(res, 401, "invalid_api_key");
    expect((await api(newest)).status).toBe(201);
    // A rolled key cannot be rolled twice.
    expect(
      (await cab(`/keys/${old.split(".")[0]}/roll`, { ...admin, form: { overlap: "now" } })).status,
    ).toBe(404);
    expect(
      (await cab(`/keys/${newest.split(".")[0]}/roll`, { ...admin, form: { overlap: "2h" } })).status,
    ).toBe(400);
  });

  it("an IP allowlist refuses other addresses with 403 ip_not_allowed", async () => {
    const admin = await partnerWithAdmin();
    const key = await createKey(admin, { ip_allowlist: "203.0.113.0/24, 2001:db8::/32" });
    await expectError(await api(key, "198.51.100.7"), 403, "ip_not_allowed");
    expect((await api(key, "203.0.113.9")).status).toBe(201);
    expect((await api(key, "2001:db8::1")).status).toBe(201);
    await expectError(await api(key, "2001:db9::1"), 403, "ip_not_allowed");
    const keyId = key.split(".")[0];
    expect((await cab(`/keys/${keyId}/allowlist`, { ...admin, form: { ip_allowlist: "" } })).status).toBe(
      303,
    );
    expect((await api(key, "198.51.100.7")).status).toBe(201);
    const bad = await cab(`/keys/${keyId}/allowlist`, { ...admin, form: { ip_allowlist: "10.0.0.0/33" } });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("10.0.0.0/33");
  });

  it("another partner's key cannot be touched", async () => {
    const a = await partnerWithAdmin();
    const b = await partnerWithAdmin("b@other.example");
    const key = await createKey(a);
    expect((await cab(`/keys/${key.split(".")[0]}/revoke`, { ...b, form: {} })).status).toBe(404);
    expect((await api(key)).status).toBe(201);
  });
});

describe("roles", () => {
  it("a viewer sees no write controls and gets 403 on every write", async () => {
    const admin = await partnerWithAdmin();
    const key = await createKey(admin);
    const keyId = key.split(".")[0]!;
    const viewer = await acceptInvite(await invite(admin.partnerId, "v@wallet.example", "viewer"));
    const csrf = await csrfOf(viewer.cookie);
    const page = await (await cab("/keys", { cookie: viewer.cookie })).text();
    expect(page).toContain(keyId);
    expect(page).not.toContain("Create key");
    expect(page).not.toContain("Revoke");
    expect(page).not.toContain(">Team<");
    const writes: [string, Record<string, string>][] = [
      ["/keys", { name: "x" }],
      [`/keys/${keyId}/revoke`, {}],
      [`/keys/${keyId}/roll`, { overlap: "now" }],
      [`/keys/${keyId}/allowlist`, { ip_allowlist: "" }],
      ["/team/invites", { email: "z@wallet.example", role: "admin" }],
      [`/team/invites/00000000-0000-4000-8000-000000000000/revoke`, {}],
      [`/team/${admin.userId}/role`, { role: "viewer" }],
      [`/team/${admin.userId}/remove`, {}],
    ];
    for (const [path, form] of writes) {
      const res = await cab(path, { cookie: viewer.cookie, csrf, form });
      expect(res.status, path).toBe(403);
    }
    expect((await cab("/team", { cookie: viewer.cookie })).status).toBe(403);
    expect((await api(key)).status).toBe(201);
    // Reads a viewer may do:
    for (const path of ["/keys", "/audit", "/account"])
      expect((await cab(path, { cookie: viewer.cookie })).status).toBe(200);
  });

  it("a developer manages keys but not the team", async () => {
    const admin = await partnerWithAdmin();
    const dev = await acceptInvite(await invite(admin.partnerId, "d@wallet.example", "developer"));
    const csrf = await csrfOf(dev.cookie);
    const key = await createKey({ cookie: dev.cookie, csrf });
    expect((await api(key)).status).toBe(201);
    expect((await cab("/team", { cookie: dev.cookie })).status).toBe(403);
    const res = await cab("/team/invites", {
      cookie: dev.cookie,
      csrf,
      form: { email: "q@x.example", role: "admin" },
    });
    expect(res.status).toBe(403);
  });

  it("signed-out requests: pages redirect to sign-in, writes are 401", async () => {
    for (const path of ["/keys", "/team", "/audit", "/account"]) {
      const res = await cab(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get("location")).toBe("/cabinet/sign-in");
    }
    expect((await cab("/keys", { form: { name: "x" } })).status).toBe(401);
  });
});

describe("cross-site protection", () => {
  it("refuses a state change from another origin or without an Origin header", async () => {
    const admin = await partnerWithAdmin();
    for (const origin of ["https://evil.example", null]) {
      const res = await cab("/keys", { cookie: admin.cookie, csrf: admin.csrf, form: { name: "x" }, origin });
      expect(res.status).toBe(403);
    }
    expect((await cab("/sign-in/options", { json: {}, origin: "https://evil.example" })).status).toBe(403);
    // Chromium omits Origin on same-origin fetches; Sec-Fetch-Site then decides.
    const sameOrigin = { origin: null, headers: { "sec-fetch-site": "same-origin" } };
    expect((await cab("/sign-in/options", { json: {}, ...sameOrigin })).status).toBe(200);
    const crossSite = { origin: null, headers: { "sec-fetch-site": "cross-site" } };
    expect((await cab("/sign-in/options", { json: {}, ...crossSite })).status).toBe(403);
    const lying = { origin: "https://evil.example", headers: { "sec-fetch-site": "same-origin" } };
    expect((await cab("/sign-in/options", { json: {}, ...lying })).status).toBe(403);
  });

  it("refuses a form post without the session's CSRF token", async () => {
    const admin = await partnerWithAdmin();
    const other = await partnerWithAdmin("o@wallet.example");
    for (const csrf of ["", other.csrf]) {
      const res = await cab("/keys", { cookie: admin.cookie, csrf, form: { name: "x" } });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain("CSRF");
    }
  });
});

describe("team", () => {
  it("invites, changes roles, removes; never the last admin", async () => {
    const admin = await partnerWithAdmin();
    const inv = await cab("/team/invites", {
      ...admin,
      form: { email: "new@wallet.example", role: "developer", step_up: await stepUp(admin) },
    });
    expect(inv.status).toBe(201);
    const url = /data-testid="invite-url">([^<]+)</.exec(await inv.text())![1]!;
    const dev = await acceptInvite(new URL(url).pathname.split("/").pop()!);
    expect((await cab(`/team/${admin.userId}/remove`, { ...admin, form: {} })).status).toBe(409);
    const role = async (userId: string, to: string) =>
      (await cab(`/team/${userId}/role`, { ...admin, form: { role: to, step_up: await stepUp(admin) } }))
        .status;
    expect(await role(admin.userId, "viewer")).toBe(409);
    expect(await role(dev.userId, "admin")).toBe(303);
    expect(await role(admin.userId, "viewer")).toBe(303);
    const page = await (await cab("/team", { cookie: dev.cookie })).text();
    expect(page).toContain("new@wallet.example");
  });

  it("two admins demoting each other at once: exactly one succeeds, an admin remains", async () => {
    const first = await partnerWithAdmin();
    const other = await acceptInvite(await invite(first.partnerId, "second@wallet.example", "admin"));
    const second = { ...other, csrf: await csrfOf(other.cookie) };
    const [firstProof, secondProof] = [await stepUp(first), await stepUp(second)];
    const statuses = await Promise.all([
      cab(`/team/${other.userId}/role`, { ...first, form: { role: "viewer", step_up: firstProof } }).then(
        (r) => r.status,
      ),
      cab(`/team/${first.userId}/role`, { ...second, form: { role: "viewer", step_up: secondProof } }).then(
        (r) => r.status,
      ),
    ]);
    expect(statuses.sort()).toEqual([303, 409]);
    const { results } = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM cabinet_users WHERE partner_id = ? AND role = 'admin' AND status = 'active'",
    )
      .bind(first.partnerId)
      .all<{ n: number }>();
    expect(results[0]?.n).toBe(1);
  });

  it("pending invites are listed and can be cancelled", async () => {
    const admin = await partnerWithAdmin();
    const token = await invite(admin.partnerId, "pending@wallet.example", "viewer");
    const page = await (await cab("/team", { cookie: admin.cookie })).text();
    expect(page).toContain("pending@wallet.example");
    const id = /\/cabinet\/team\/invites\/([0-9a-f-]{36})\/revoke/.exec(page)![1]!;
    expect((await cab(`/team/invites/${id}/revoke`, { ...admin, form: {} })).status).toBe(303);
    expect((await cab(`/invite/${token}`)).status).toBe(410);
    expect(await (await cab("/audit", { cookie: admin.cookie })).text()).toContain(
      "<code>invite.revoked</code>",
    );
    expect((await cab(`/team/invites/${id}/revoke`, { ...admin, form: {} })).status).toBe(404);
  });

  it("the operator revokes a pending invite: its link stops working, audited; only that partner's, only once", async () => {
    const admin = await partnerWithAdmin();
    await invite(admin.partnerId, "pending@wallet.example", "viewer");
    const listed = await json<{ data: { id: string }[] }>(
      await adminApi(`/partners/${admin.partnerId}/invites`),
    );
    const id = listed.data[0]!.id;
    const other = await partnerWithAdmin();
    await expectError(
      await adminApi(`/partners/${other.partnerId}/invites/${id}`, { method: "DELETE" }),
      404,
      "invite_not_found",
    );
    expect((await adminApi(`/partners/${admin.partnerId}/invites/${id}`, { method: "DELETE" })).status).toBe(
      204,
    );
    expect(
      (await json<{ data: unknown[] }>(await adminApi(`/partners/${admin.partnerId}/invites`))).data,
    ).toEqual([]);
    await expectError(
      await adminApi(`/partners/${admin.partnerId}/invites/${id}`, { method: "DELETE" }),
      404,
      "invite_not_found",
    );
    expect(await (await cab("/audit", { cookie: admin.cookie })).text()).toContain(
      "<code>invite.revoked</code>",
    );
  });
});

describe("audit log", () => {
  it("records who did what, newest first, paged", async () => {
    const admin = await partnerWithAdmin();
    for (let i = 0; i < 52; i++) await cab("/keys", { ...admin, form: { name: `k${i}` } });
    const first = await (await cab("/audit", { cookie: admin.cookie })).text();
    const actions = [...first.matchAll(/<code>([a-z_.]+)<\/code>/g)].map((m) => m[1]);
    expect(actions).toHaveLength(50);
    expect(actions[0]).toBe("key.created");
    const next = /href="\/cabinet\/audit\?before=(\d+)"/.exec(first)![1];
    const second = await (await cab(`/audit?before=${next}`, { cookie: admin.cookie })).text();
    const rest = [...second.matchAll(/<code>([a-z_.]+)<\/code>/g)].map((m) => m[1]);
    expect(rest).toEqual(["key.created", "key.created", "member.joined", "member.invited"]);
    expect(second).not.toContain("Older entries");
  });
});

describe("the Live / Test switch", () => {
  it("filters the keys page by mode, remembers the choice, and creates keys of the mode on show", async () => {
    const admin = await partnerWithAdmin("switch@wallet.example");
    const live = await createKey(admin);
    const testPage = await cab("/keys?mode=test", { cookie: admin.cookie });
    const remembered = /(__Host-cabinet_mode=test)/.exec(testPage.headers.get("set-cookie") ?? "")?.[1];
    expect(remembered).toBeTruthy();
    const html = await testPage.text();
    expect(html).toContain("No test keys yet.");
    expect(html).not.toContain(live.split(".")[0]);
    expect(html).toMatch(/href="\?mode=test" aria-current="true"/);

    // The form carries the mode on show; the key is a test key that creates test orders.
    const res = await cab("/keys", {
      cookie: admin.cookie,
      csrf: admin.csrf,
      form: { name: "ci", mode: "test" },
    });
    expect(res.status).toBe(201);
    const testKey = keyIn(await res.text());
    expect(testKey).toMatch(/^pk_test_[A-Za-z0-9_-]{16}\./);
    const order = await api(testKey ?? "");
    expect(order.status).toBe(201);
    expect((await order.json<{ livemode: boolean }>()).livemode).toBe(false);

    // With the cookie, every page keeps the test view; the live view lists only live keys.
    const again = await (await cab("/keys", { cookie: `${admin.cookie}; ${remembered}` })).text();
    expect(again).toContain(testKey?.split(".")[0]);
    expect(again).not.toContain(live.split(".")[0]);
    const livePage = await (await cab("/keys?mode=live", { cookie: admin.cookie })).text();
    expect(livePage).toContain(live.split(".")[0]);
    expect(livePage).not.toContain(testKey?.split(".")[0]);
  });
});

describe("the quickstart next to a new key", () => {
  const unescapeHtml = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
  const snippet = (html: string, id: string) =>
    unescapeHtml(new RegExp(`<pre id="${id}"[^>]*>([\\s\\S]*?)</pre>`).exec(html)?.[1] ?? "");

  it("a test key's curl and SDK snippets carry the key, and what the curl does works: a quote, a test order completed", async () => {
    const admin = await partnerWithAdmin("quickstart@wallet.example");
    const res = await cab("/keys", {
      cookie: admin.cookie,
      csrf: admin.csrf,
      form: { name: "ci", mode: "test" },
    });
    const html = await res.text();
    const key = keyIn(html)!;
    const curl = snippet(html, "quickstart-curl");
    const sdk = snippet(html, "quickstart-sdk");
    expect(curl).toContain(`KEY=${key}`);
    expect(curl).toContain("API=http://localhost\n");
    expect(sdk).toContain(`apiKey: "${key}"`);
    expect(sdk).toContain('baseUrl: "http://localhost"');
    expect(sdk).toContain("await api.test.confirm(order.id)");

    // The reference links go to the docs this Worker serves; no repository path as text.
    expect(html).toContain('href="http://localhost/docs#tag/Test-mode"');
    expect(html).toContain('href="http://localhost/docs#operation/createOrder"');
    expect((await call("/docs")).status).toBe(200);
    expect(html).not.toMatch(/docs\/[a-z-]+\.md/);

    // The snippet's requests, as curl would send them.
    const auth = { Authorization: `Bearer ${key}`, "content-type": "application/json" };
    const quotePath = /"\$API(\/api\/v1\/partner\/rates\?[^"]+)"/.exec(curl)?.[1];
    expect(quotePath).toBeTruthy();
    expect((await call(quotePath!, { headers: auth })).status).toBe(200);
    const body = /-d '([^']+)'/.exec(curl)?.[1];
    const created = await call("/api/v1/partner/orders", { method: "POST", headers: auth, body: body! });
    expect(created.status).toBe(201);
    const { id } = await created.json<{ id: string }>();
    const helpers = [...curl.matchAll(/"\$API(\/api\/v1\/partner\/test\/orders\/)\$ID(\/[a-z-]+)"/g)];
    expect(helpers.map((m) => m[2])).toEqual(["/deposit", "/confirm"]);
    let status = "";
    for (const [, prefix, helper] of helpers) {
      // As curl sends them: no body, no Content-Type.
      const res = await call(`${prefix}${id}${helper}`, {
        method: "POST",
        headers: { Authorization: auth.Authorization },
      });
      expect(res.status).toBe(200);
      status = (await res.json<{ status: string }>()).status;
    }
    expect(status).toBe("completed");
  });

  it("a live key's quickstart is a quote only; the keys page links the reference, never a repository path", async () => {
    const admin = await partnerWithAdmin("quickstart-live@wallet.example");
    const html = await (
      await cab("/keys", { cookie: admin.cookie, csrf: admin.csrf, form: { name: "prod" } })
    ).text();
    const curl = snippet(html, "quickstart-curl");
    expect(curl).toContain(`KEY=${keyIn(html)}`);
    expect(curl).toContain("/api/v1/partner/rates?");
    expect(curl).not.toContain("/api/v1/partner/orders");
    for (const path of ["/keys?mode=test", "/keys?mode=live"]) {
      const page = await (await cab(path, { cookie: admin.cookie })).text();
      expect(page).not.toMatch(/docs\/[a-z-]+\.md/);
      expect(page).not.toContain('data-testid="quickstart"');
    }
  });
});
