// The cabinet's Payouts page over HTTP: payout settings (an address change needs a step-up, is
// audited and cools; every admin sees it and can cancel it), statements with their CSV and
// printable view, and the test-mode month close.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, json, setPrices } from "../../helpers";
import { acceptInvite, cab, csrfOf, invite, partnerWithAdmin, stepUp } from "../../support/cabinet";

describe("Payouts page", () => {
  const TRON = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";
  const BTC = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4";

  type Member = Awaited<ReturnType<typeof partnerWithAdmin>>;
  const settings = (partnerId: string) =>
    env.DB.prepare("SELECT * FROM payout_settings WHERE partner_id = ?")
      .bind(partnerId)
      .first<Record<string, string | null>>();
  const auditActions = async (partnerId: string) =>
    (
      await env.DB.prepare("SELECT action FROM cabinet_audit_log WHERE partner_id = ? ORDER BY id")
        .bind(partnerId)
        .all<{ action: string }>()
    ).results.map((r) => r.action);

  function post(m: Member, path: string, form: Record<string, string>) {
    // `x-csrf-token` too: the cabinet then answers errors as JSON.
    return cab(`/payouts${path}`, {
      cookie: m.cookie,
      csrf: m.csrf,
      headers: { "x-csrf-token": m.csrf },
      form,
    });
  }

  beforeAll(() => setPrices());

  describe("payout settings", () => {
    it("an address change needs a fresh passkey assertion with user verification, is audited and cools", async () => {
      const a = await partnerWithAdmin("finance@wallet.example");
      const before = Date.now();
      const form = { asset: "USDT/TRX", address: TRON };
      for (const step_up of [undefined, "{", await stepUp(a, { userVerified: false })]) {
        const res = await post(a, "/address", step_up === undefined ? form : { ...form, step_up });
        expect(res.status).toBe(403);
        expect(await json(res)).toMatchObject({ code: "step_up_required" });
      }
      expect(await settings(a.partnerId)).toBeNull();

      const bad = await post(a, "/address", { asset: "USDT/TRX", address: BTC, step_up: await stepUp(a) });
      expect(bad.status).toBe(422);
      expect(await json(bad)).toMatchObject({ code: "invalid_address" });
      expect((await settings(a.partnerId))?.pending_address ?? null).toBeNull();

      const ok = await post(a, "/address", { ...form, step_up: await stepUp(a) });
      expect(ok.status).toBe(200);
      const html = await ok.text();
      expect(html).toContain('data-testid="pending-change"');
      const s = await settings(a.partnerId);
      expect(s).toMatchObject({
        coin: "USDT",
        network: "TRX",
        address: null,
        pending_address: TRON,
        minimum_usd: "50",
      });
      const cooling = Date.parse(s?.pending_effective_at ?? "") - before;
      expect(cooling).toBeGreaterThanOrEqual(48 * 3_600_000);
      expect(cooling).toBeLessThan(48 * 3_600_000 + 60_000);
      expect(await auditActions(a.partnerId)).toEqual(
        expect.arrayContaining(["step_up.verified", "payout.address_change_requested"]),
      );
    });

    it("every team admin sees the waiting change and can cancel it; a viewer can do neither", async () => {
      const a = await partnerWithAdmin("first@wallet.example");
      await post(a, "/address", { asset: "USDT/TRX", address: TRON, step_up: await stepUp(a) });
      const m = await acceptInvite(await invite(a.partnerId, "second@wallet.example", "admin"));
      const b = { ...a, ...m, csrf: await csrfOf(m.cookie) };
      const page = await (await cab("/payouts", { cookie: b.cookie })).text();
      expect(page).toContain('data-testid="pending-change"');
      expect(page).toContain("first@wallet.example");

      const v = await acceptInvite(await invite(a.partnerId, "viewer@wallet.example", "viewer"));
      const viewer = { ...a, ...v, csrf: await csrfOf(v.cookie) };
      expect(await (await cab("/payouts", { cookie: viewer.cookie })).text()).not.toContain("pending-change");
      expect((await post(viewer, "/address/cancel", {})).status).toBe(403);

      const cancel = await post(b, "/address/cancel", {});
      expect(cancel.status).toBe(200);
      expect(await settings(a.partnerId)).toMatchObject({ pending_address: null, address: null });
      expect(await auditActions(a.partnerId)).toContain("payout.address_change_cancelled");
      expect((await post(b, "/address/cancel", {})).status).toBe(409);
    });

    it("asset and minimum: another network's asset needs an address change", async () => {
      const a = await partnerWithAdmin("terms@wallet.example");
      expect((await post(a, "/terms", { asset: "USDC/ETH", minimum_usd: "75" })).status).toBe(200);
      expect(await settings(a.partnerId)).toMatchObject({ coin: "USDC", network: "ETH", minimum_usd: "75" });
      expect((await post(a, "/terms", { asset: "DOGE/DOGE", minimum_usd: "75" })).status).toBe(422);
      await env.DB.prepare(
        "UPDATE payout_settings SET address = '0x52908400098527886E0F7030069857D2E4169EE7' WHERE partner_id = ?",
      )
        .bind(a.partnerId)
        .run();
      expect((await post(a, "/terms", { asset: "ETH/ETH", minimum_usd: "60" })).status).toBe(200);
      const other = await post(a, "/terms", { asset: "BTC/BTC", minimum_usd: "60" });
      expect(other.status).toBe(422);
      expect(await json(other)).toMatchObject({ code: "invalid_payout_asset" });
      expect(await settings(a.partnerId)).toMatchObject({ coin: "ETH", network: "ETH", minimum_usd: "60" });
    });
  });

  describe("statements in the cabinet", () => {
    it("the test month close pays a test statement; its printable view and CSV are the partner's only", async () => {
      const a = await partnerWithAdmin("statements@wallet.example");
      await post(a, "/address", { asset: "USDT/TRX", address: TRON, step_up: await stepUp(a) });
      const adj = await admin(`/partners/${a.partnerId}/statement-adjustments`, {
        method: "POST",
        json: { amount_usd: "80", reason: "welcome bonus", mode: "test" },
      });
      expect(adj.status).toBe(201);
      // Live view: no test close.
      expect((await post(a, "/test-close", {})).status).toBe(403);
      const testView = await cab("/payouts?mode=test", { cookie: a.cookie });
      const cookie = `${a.cookie}; ${/(__Host-cabinet_mode=test)/.exec(testView.headers.get("set-cookie") ?? "")?.[1]}`;
      const t = { ...a, cookie };
      const closed = await post(t, "/test-close", {});
      expect(closed.status).toBe(200);
      const html = await closed.text();
      expect(html).toMatch(/data-testid="statement" data-status="paid"/);
      const id = /href="\/cabinet\/payouts\/(stmt_test_[^"/]+)"/.exec(html)?.[1] ?? "";
      expect(id).not.toBe("");

      const view = await (await cab(`/payouts/${id}`, { cookie: a.cookie })).text();
      expect(view).toContain("Adjustment: welcome bonus");
      expect(view).toMatch(/data-testid="statement-total">80 USD/);
      const csv = await (await cab(`/payouts/${id}/csv`, { cookie: a.cookie })).text();
      expect(csv.split("\r\n")[0]).toBe("statement,month,kind,coin,orders,markup,usd,note");
      expect(csv).toContain(`${id},`);
      expect(csv).toMatch(/total,USDT,0,80,80,paid [0-9a-f]+/);

      const stranger = await partnerWithAdmin("stranger@wallet.example");
      expect((await cab(`/payouts/${id}`, { cookie: stranger.cookie })).status).toBe(404);
      expect((await cab(`/payouts/${id}/csv`, { cookie: stranger.cookie })).status).toBe(404);
    });
  });
});
