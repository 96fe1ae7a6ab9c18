// Payouts in a real Chromium with a CDP virtual authenticator, against `wrangler dev`: an admin sets
// the payout address (a fresh passkey assertion with user verification), sees the change cooling,
// closes a test month and sees the test statement paid; its printable view and CSV. Screenshots go
// to test-artifacts/cabinet/.
import { describe, expect, it } from "vitest";
import { admin, browserSession, newPartner, ORIGIN, shot, signInByInvite, withPasskeys } from "./harness";

const suite = browserSession();
const TRON = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";

describe("payouts in Chromium", () => {
  it("sets the payout address with step-up, then a test statement is paid", async () => {
    const partnerId = await newPartner("Payout Wallet");
    // Something to pay in test mode: an operator adjustment on the next test statement.
    const adj = await admin(`/partners/${partnerId}/statement-adjustments`, {
      json: { amount_usd: "75", reason: "test-mode bonus", mode: "test" },
    });
    expect(adj.status).toBe(201);
    const { page } = await withPasskeys(suite.browser());
    await signInByInvite(page, partnerId, "finance@payout-wallet.example", "admin");

    await page.goto(`${ORIGIN}/cabinet/payouts?mode=test`);
    await expect.poll(() => page.title()).toContain("Payouts");
    const form = page.locator("#payout-address-form");
    await form.getByLabel("Asset").selectOption("USDT/TRX");
    await form.getByLabel("New payout address").fill(TRON);
    await form.getByRole("button", { name: /Change address/ }).click();
    // The passkey is asked again (the virtual authenticator verifies the user), then the change waits.
    await expect.poll(() => page.getByTestId("pending-change").count(), { timeout: 15_000 }).toBe(1);
    expect(await page.getByTestId("pending-change").textContent()).toContain(TRON);
    await shot(page, "payouts-01-address-cooling");

    await page.getByTestId("test-close").click();
    await expect.poll(() => page.getByTestId("notice").textContent(), { timeout: 15_000 }).toContain("paid");
    const row = page.getByTestId("statement").first();
    expect(await row.getAttribute("data-status")).toBe("paid");
    expect((await row.getByTestId("txid").textContent())?.trim()).toMatch(/^[0-9a-f]{16,}$/i);
    await shot(page, "payouts-02-test-statement-paid");

    await row.getByRole("link", { name: "View / print" }).click();
    await expect.poll(() => page.getByTestId("statement-total").textContent()).toContain("75 USD");
    expect(await page.getByTestId("statement-status").textContent()).toContain("paid");
    await shot(page, "payouts-03-statement-print-view");
    const csv = await (await page.request.get(`${page.url()}/csv`)).text();
    expect(csv).toContain("adjustment");
    expect(csv).toContain("test-mode bonus");
  });
});
