// Step-up in Chromium (docs/cabinet.md): an underpaid order's refund to a typed address is sent
// only after a fresh passkey confirmation with user verification. With the virtual authenticator
// answering presence only, the refund is refused and the order keeps the money; with user
// verification it goes through, and the audit log shows the step-up with the address. The same
// for a key with orders:act and for adding a passkey: refused on presence alone, nothing made.
// Screenshots go to test-artifacts/cabinet/.
import { describe, expect, it } from "vitest";
import {
  admin,
  browserSession,
  landOn,
  newKey,
  newOrder,
  newPartner,
  ORIGIN,
  orderStatus,
  shot,
  signInByInvite,
  withPasskeys,
} from "./harness";

const suite = browserSession();
const REFUND_TO = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";

describe("step-up in Chromium", () => {
  it("a refund to a typed address needs the passkey again, with user verification", async () => {
    const partnerId = await newPartner("Step-up Wallet");
    const key = await newKey(partnerId);
    const order = await newOrder(key);
    expect(
      (await admin("/sim/BTC/transfers", { json: { to: order.deposit_address, amount: "0.0003" } })).status,
    ).toBe(201);
    expect((await admin("/sim/BTC/blocks", { json: { count: 2 } })).status).toBe(200);
    await expect.poll(() => orderStatus(key, order.id), { timeout: 60_000, interval: 500 }).toBe("failed");

    const { ctx, page, userVerified } = await withPasskeys(suite.browser());
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await signInByInvite(page, partnerId, "ops@step-up.example", "developer");

    await page.goto(`${ORIGIN}/cabinet/orders/${order.short_id}`);
    await page.getByTestId("refund-address").fill(REFUND_TO);
    await expect.poll(() => page.locator("[data-check]").textContent()).toBe("Valid address.");

    // Presence only: the ceremony cannot give what the server asks for; nothing is sent.
    await userVerified(false);
    await page.getByTestId("refund").click();
    const status = page.locator("[data-step-up-status]");
    await expect
      .poll(() => status.textContent(), { timeout: 30_000 })
      .toMatch(/^Not confirmed: your passkey must verify you/);
    await shot(page, "step-up-01-refused");
    expect(page.url()).toBe(`${ORIGIN}/cabinet/orders/${order.short_id}`);
    expect(await orderStatus(key, order.id)).toBe("failed");
    await expect.poll(() => page.getByTestId("refund").isEnabled()).toBe(true);

    // With user verification: the refund goes to the typed address.
    await userVerified(true);
    await page.getByTestId("refund").click();
    await landOn(page, `/cabinet/orders/${order.id}`);
    await expect
      .poll(() => orderStatus(key, order.id), { timeout: 60_000, interval: 500 })
      .toMatch(/^refund/);
    await shot(page, "step-up-02-refunding");

    await page.getByRole("link", { name: "Audit log" }).click();
    await landOn(page, "/cabinet/audit");
    const audit = (await page.locator("main").textContent()) ?? "";
    expect(audit).toMatch(
      /order\.refund[\s\S]*step_up\.verified[\s\S]*bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq/,
    );
    await shot(page, "step-up-03-audit");
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("a key with orders:act and a new passkey need the passkey again; a key without it does not", async () => {
    const partnerId = await newPartner("Step-up Keys Wallet");
    const { ctx, page, userVerified } = await withPasskeys(suite.browser());
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await signInByInvite(page, partnerId, "dev@step-up-keys.example", "developer");
    const keys = async () =>
      ((await (await admin(`/partners/${partnerId}/keys`)).json()) as { data: { scopes: string[] }[] }).data;

    // A key without orders:act: no passkey prompt even on presence alone.
    await userVerified(false);
    await page.getByLabel("Name").fill("reader");
    await page.getByTestId("create-key").click();
    await expect.poll(() => page.getByTestId("new-key").count()).toBe(1);

    // Ticking orders:act: refused on presence alone, and no key is made.
    await page.getByLabel("Name").fill("refunds");
    await page.getByRole("checkbox", { name: /orders:act/ }).check();
    await page.getByTestId("create-key").click();
    const status = page.locator("[data-step-up-status]").first();
    await expect
      .poll(() => status.textContent(), { timeout: 30_000 })
      .toMatch(/^Not confirmed: your passkey must verify you/);
    await shot(page, "step-up-04-key-refused");
    expect(await keys()).toHaveLength(1);

    // Verified: the key is shown once, with its scope.
    await userVerified(true);
    await page.getByTestId("create-key").click();
    await expect.poll(async () => (await keys()).length, { timeout: 15_000 }).toBe(2);
    await shot(page, "step-up-05-key-created");
    expect((await keys()).map((k) => k.scopes.includes("orders:act")).sort()).toEqual([false, true]);

    // Adding a passkey asks for one of the member's own first: on presence alone, nothing is added.
    await page.getByRole("link", { name: "Passkeys" }).click();
    await landOn(page, "/cabinet/account");
    await userVerified(false);
    await page.getByRole("button", { name: "Add passkey" }).click();
    await expect
      .poll(() => page.locator("[data-status]").textContent(), { timeout: 30_000 })
      .toMatch(/^Not confirmed: your passkey must verify you/);
    await shot(page, "step-up-06-passkey-refused");
    expect(await page.locator("main tbody tr").count()).toBe(1);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
