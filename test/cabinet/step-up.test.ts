// Step-up on every cabinet change that could later send funds, order data or people elsewhere
// (docs/cabinet.md, "Step-up"): each is refused on the session alone and with a presence-only
// assertion (403 step_up_required, nothing changed), and done with a fresh passkey assertion with
// user verification, audited as `step_up.verified`. The operator's API (admin token) needs none.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, json, setPrices } from "../helpers";
import { SoftAuthenticator } from "../support/authenticator";
import { acceptInvite, cab, csrfOf, invite, partnerWithAdmin, stepUp } from "../support/cabinet";

type Member = Awaited<ReturnType<typeof partnerWithAdmin>>;

const TRON = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";
const HOOK = "https://hooks.wallet.example/in";

beforeAll(() => setPrices());

/** The page's form post; `x-csrf-token` as well makes the cabinet answer errors in JSON. */
const post = (m: Member, path: string, form: [string, string][]) =>
  cab(path, { cookie: m.cookie, csrf: m.csrf, headers: { "x-csrf-token": m.csrf }, form });

/**
 * `send` without a proof and with a presence-only one: 403 step_up_required and `state` as before;
 * then with a fresh proof: the response, for the caller to check.
 */
async function guarded(
  m: Member,
  send: (stepUp: [string, string][]) => Promise<Response>,
  state: () => Promise<unknown>,
): Promise<Response> {
  const before = await state();
  for (const proof of [[], [["step_up", await stepUp(m, { userVerified: false })]]] as [string, string][][]) {
    const res = await send(proof);
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({
      code: "step_up_required",
      detail: expect.stringMatching(/fresh passkey confirmation|user verification/),
    });
    expect(await state()).toEqual(before);
  }
  return send([["step_up", await stepUp(m)]]);
}

const rows = async <T>(sql: string, ...binds: unknown[]) =>
  (
    await env.DB.prepare(sql)
      .bind(...binds)
      .all<T>()
  ).results;

const keysOf = (partnerId: string) =>
  rows<{ key_id: string; scopes: string; expires_at: string | null }>(
    "SELECT key_id, scopes, expires_at FROM api_keys WHERE partner_id = ? ORDER BY created_at, key_id",
    partnerId,
  );

/** The `step_up.verified` entries: what each step-up confirmed. */
const verified = async (partnerId: string) =>
  (
    await rows<{ target: string | null; detail: string }>(
      "SELECT target, detail FROM cabinet_audit_log WHERE partner_id = ? AND action = 'step_up.verified' ORDER BY id",
      partnerId,
    )
  ).map((r) => [(JSON.parse(r.detail) as { action: string }).action, r.target]);

async function developer(a: Member, email = "dev@wallet.example"): Promise<Member> {
  const m = await acceptInvite(await invite(a.partnerId, email, "developer"));
  return { ...a, ...m, csrf: await csrfOf(m.cookie) };
}

describe("step-up: keys that move funds", () => {
  it("a developer's session cannot mint a key with orders:act; with a fresh step-up it can, in either mode", async () => {
    const a = await partnerWithAdmin();
    const dev = await developer(a);
    for (const mode of ["live", "test"]) {
      const form: [string, string][] = [
        ["name", `actor-${mode}`],
        ["mode", mode],
        ["scopes_form", "1"],
        ["scopes", "read"],
        ["scopes", "orders:act"],
      ];
      const res = await guarded(
        dev,
        (proof) => post(dev, "/keys", [...form, ...proof]),
        () => keysOf(a.partnerId),
      );
      expect(res.status).toBe(201);
    }
    expect((await keysOf(a.partnerId)).map((k) => k.scopes)).toEqual(["read orders:act", "read orders:act"]);
    // Keys that cannot move funds need none.
    expect((await post(dev, "/keys", [["name", "plain"]])).status).toBe(201);
    expect(await verified(a.partnerId)).toEqual([
      ["key.create", "actor-live"],
      ["key.create", "actor-test"],
    ]);
  });

  it("rolling a key with orders:act needs a fresh step-up; rolling one without does not", async () => {
    const a = await partnerWithAdmin();
    const issue = async (scopes: string[]) =>
      (
        await json<{ key: string }>(
          await admin(`/partners/${a.partnerId}/keys`, { method: "POST", json: { scopes } }),
        )
      ).key.split(".")[0]!;
    const actor = await issue(["read", "orders:act"]);
    const plain = await issue(["read"]);
    const roll = (id: string, proof: [string, string][] = []) =>
      post(a, `/keys/${id}/roll`, [["overlap", "now"], ...proof]);
    const res = await guarded(
      a,
      (proof) => roll(actor, proof),
      () => keysOf(a.partnerId),
    );
    expect(res.status).toBe(201);
    expect((await roll(plain)).status).toBe(201);
    const keys = await keysOf(a.partnerId);
    expect(keys.filter((k) => k.expires_at === null).map((k) => k.scopes)).toEqual([
      "read orders:act",
      "read",
    ]);
    expect(await verified(a.partnerId)).toEqual([["key.roll", actor]]);
  });
});

describe("step-up: who can sign in, and as what", () => {
  it("adding a passkey needs one of the member's own passkeys first; a passkey added without never passes a step-up", async () => {
    const a = await partnerWithAdmin();
    const passkeys = () =>
      rows<{ id: string }>("SELECT id FROM cabinet_passkeys WHERE user_id = ? ORDER BY id", a.userId);
    // The new device: its own authenticator, its passkey registered by the ceremony.
    const device = new SoftAuthenticator();
    const add = async (proof: [string, string][]) => {
      const opts = await json<{ challengeId: string; options: never }>(
        await cab("/account/passkeys/options", { json: {}, cookie: a.cookie, csrf: a.csrf }),
      );
      return cab("/account/passkeys", {
        cookie: a.cookie,
        csrf: a.csrf,
        json: {
          challengeId: opts.challengeId,
          response: device.register(opts.options),
          name: "phone",
          ...Object.fromEntries(proof),
        },
      });
    };
    const before = await passkeys();
    const refused = await add([]);
    expect(refused.status).toBe(403);
    // The refused device's passkey is not the member's: it cannot confirm a step-up.
    const theirs = await stepUp({ ...a, authenticator: device }).then((proof) =>
      post(a, "/team/invites", [
        ["email", "x@wallet.example"],
        ["role", "admin"],
        ["step_up", proof],
      ]),
    );
    expect(await json(theirs)).toMatchObject({
      code: "step_up_required",
      detail: expect.stringMatching(/your own/),
    });
    expect(await passkeys()).toEqual(before);

    const res = await guarded(a, add, passkeys);
    expect(res.status).toBe(201);
    expect(await passkeys()).toHaveLength(2);
    expect(await verified(a.partnerId)).toEqual([["passkey.add", "phone"]]);
  });

  it("an invite (new member or recovery) and a role change need a fresh step-up", async () => {
    const a = await partnerWithAdmin();
    const dev = await developer(a);
    const pending = () =>
      rows<{ email: string }>(
        "SELECT email FROM cabinet_invites WHERE partner_id = ? AND used_at IS NULL AND revoked_at IS NULL ORDER BY created_at",
        a.partnerId,
      );
    for (const email of ["new@wallet.example", "dev@wallet.example"]) {
      const res = await guarded(
        a,
        (proof) => post(a, "/team/invites", [["email", email], ["role", "admin"], ...proof]),
        pending,
      );
      expect(res.status).toBe(201);
    }
    const roleOf = async () =>
      (await rows<{ role: string }>("SELECT role FROM cabinet_users WHERE id = ?", dev.userId))[0]?.role;
    const res = await guarded(
      a,
      (proof) => post(a, `/team/${dev.userId}/role`, [["role", "admin"], ...proof]),
      roleOf,
    );
    expect(res.status).toBe(303);
    expect(await roleOf()).toBe("admin");
    expect(await verified(a.partnerId)).toEqual([
      ["invite.create", "new@wallet.example"],
      ["invite.create", "dev@wallet.example"],
      ["member.role_change", dev.userId],
    ]);
  });
});

describe("step-up: where funds, order data and users are sent", () => {
  it("a widget with a locked recipient needs a fresh step-up; one without does not", async () => {
    const a = await partnerWithAdmin();
    const widgets = () =>
      rows<{ id: string }>("SELECT id FROM widgets WHERE partner_id = ? ORDER BY id", a.partnerId);
    const form: [string, string][] = [
      ["allowed_origins", "https://shop.example"],
      ["locked_network", "TRX"],
      ["locked_address", TRON],
    ];
    const res = await guarded(a, (proof) => post(a, "/widgets", [...form, ...proof]), widgets);
    expect(res.status).toBe(303);
    expect((await post(a, "/widgets", [["allowed_origins", "https://shop.example"]])).status).toBe(303);
    expect(await widgets()).toHaveLength(2);
    expect(await verified(a.partnerId)).toEqual([["widget.locked_recipient", TRON]]);
  });

  it("a new support e-mail needs a fresh step-up; the markup and an unchanged e-mail do not", async () => {
    const a = await partnerWithAdmin();
    const email = async () =>
      (await json<{ contact_email: string | null }>(await admin(`/partners/${a.partnerId}`))).contact_email;
    const res = await guarded(
      a,
      (proof) => post(a, "/settings", [["contact_email", "help@wallet.example"], ...proof]),
      email,
    );
    expect(res.status).toBe(200);
    expect(await email()).toBe("help@wallet.example");
    expect((await post(a, "/settings", [["contact_email", " Help@Wallet.Example "]])).status).toBe(200);
    expect((await post(a, "/settings", [["markup_bps", "50"]])).status).toBe(200);
    expect(await verified(a.partnerId)).toEqual([["settings.contact_email", "help@wallet.example"]]);
  });

  it("a new webhook URL needs a fresh step-up; switching the same endpoint off does not", async () => {
    const a = await partnerWithAdmin();
    const dev = await developer(a);
    const endpoint = async () =>
      (
        await rows<{ url: string | null; enabled: number }>(
          "SELECT url, enabled FROM webhook_endpoints WHERE partner_id = ?",
          a.partnerId,
        )
      )[0] ?? null;
    const res = await guarded(
      dev,
      (proof) => post(dev, "/webhooks/endpoint", [["url", HOOK], ["enabled", "on"], ...proof]),
      endpoint,
    );
    expect(res.status).toBe(200);
    expect((await post(dev, "/webhooks/endpoint", [["url", HOOK]])).status).toBe(200);
    expect(await endpoint()).toMatchObject({ url: HOOK, enabled: 0 });
    expect(await verified(a.partnerId)).toEqual([["webhook.url", HOOK]]);
  });

  it("each guarded form carries the step-up field (conditional where the server asks only on a change)", async () => {
    const a = await partnerWithAdmin();
    await admin(`/partners/${a.partnerId}/keys`, {
      method: "POST",
      json: { scopes: ["read", "orders:act"] },
    });
    await admin(`/partners/${a.partnerId}/keys`, { method: "POST", json: { scopes: ["read"] } });
    const html = async (path: string) => (await cab(path, { cookie: a.cookie })).text();
    const field = (when?: string) =>
      `name="step_up" data-step-up="true"${when ? ` data-step-up-when="${when.replaceAll('"', "&quot;")}"` : ""}/>`;
    const keys = await html("/keys");
    expect(keys).toContain(field("input[name=&quot;scopes&quot;][value=&quot;orders:act&quot;]"));
    // Two roll forms, one of them (the orders:act key's) a step-up form.
    expect(keys.match(/\/roll"/g)).toHaveLength(2);
    expect(keys.split(field()).length - 1).toBe(1);
    const team = await html("/team");
    expect(team.split(field()).length - 1).toBe(3); // invite, the admin's role, the admin's recovery invite
    expect(await html("/settings")).toContain(field("input[name=&quot;contact_email&quot;]"));
    expect(await html("/webhooks")).toContain(field("input[name=&quot;url&quot;]"));
    expect(await html("/widgets")).toContain(field("input[name=&quot;locked_address&quot;]"));
  });
});

describe("the operator's API needs no step-up", () => {
  it("keys with orders:act, invites, the contact e-mail, the webhook URL and a locked recipient", async () => {
    const a = await partnerWithAdmin();
    const id = a.partnerId;
    expect(
      (await admin(`/partners/${id}/keys`, { method: "POST", json: { scopes: ["read", "orders:act"] } }))
        .status,
    ).toBe(201);
    expect(
      (
        await admin(`/partners/${id}/invites`, {
          method: "POST",
          json: { email: "o@wallet.example", role: "admin" },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await admin(`/partners/${id}`, {
          method: "PATCH",
          json: { contact_email: "ops@wallet.example", webhook_url: HOOK },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await admin(`/partners/${id}/widgets`, {
          method: "POST",
          json: {
            mode: "live",
            allowed_origins: ["https://shop.example"],
            locked_recipient: { address: TRON, network: "TRX" },
          },
        })
      ).status,
    ).toBe(201);
    expect(await verified(id)).toEqual([]);
  });
});
