// The cabinet in a real Chromium with a CDP virtual authenticator, against `wrangler dev`:
// invite → passkey → key → order with it → roll → revoke → viewer → sign out. Screenshots of each
// page go to test-artifacts/cabinet/.
import { describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  browserSession,
  inviteUrl,
  landOn,
  newPartner,
  ORDER,
  ORIGIN,
  postOrder,
  shot,
  withPasskeys,
} from "./harness";

const suite = browserSession();

const createOrder = (key: string) => postOrder(key, ORDER);

describe("partner cabinet in Chromium", () => {
  it("invite → passkey → key → order → roll → revoke → viewer → sign out", async () => {
    expect(ADMIN_TOKEN).toBeTruthy();
    const partnerId = await newPartner("Demo Wallet");
    const { ctx, page } = await withPasskeys(suite.browser());

    // Invite link → register a passkey → signed in on the keys page.
    await page.goto(await inviteUrl(partnerId, "dev@demo-wallet.example", "admin"));
    await expect.poll(() => page.title()).toContain("Accept invitation");
    await shot(page, "01-invite");
    await page.getByRole("button", { name: "Create passkey and sign in" }).click();
    await landOn(page, "/cabinet/keys");
    const cookies = await ctx.cookies();
    const session = cookies.find((c) => c.name === "__Host-cabinet_session");
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: "Strict" });
    await shot(page, "02-keys-empty");

    // Create a key, read it once, use it.
    await page.getByLabel("Name").fill("production server");
    await page.getByTestId("create-key").click();
    const key = (await page.getByTestId("new-key").textContent())!.trim();
    expect(key).toMatch(/^pk_[\w-]{16}\.[\w-]{43}$/);
    await shot(page, "03-key-created");
    expect((await createOrder(key)).status).toBe(201);

    // Reload: the secret is gone (and nothing is re-posted).
    await page.reload();
    expect(page.url()).toBe(`${ORIGIN}/cabinet/keys`);
    await expect.poll(() => page.getByTestId("new-key").count()).toBe(0);
    expect(await page.content()).not.toContain(key.split(".")[1]);
    expect(await page.locator("tr[data-key-id]").count()).toBe(1);

    // Roll with a 1 h overlap (24 h is offered first): both work; then revoke the new one.
    const row = page.locator(`tr[data-key-id="${key.split(".")[0]}"]`);
    expect(await row.getByLabel("Old key keeps working for").inputValue()).toBe("24h");
    // Times to the second in the viewer's zone, relative on hover ("Last used" is written after the
    // response); the element keeps the exact time.
    await page.reload();
    const lastUsed = row.locator('td[data-label="Last used"] time');
    expect(await lastUsed.textContent()).toMatch(/\d{4}, \d{1,2}:\d\d:\d\d [AP]M UTC$/);
    expect(await lastUsed.getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(await lastUsed.getAttribute("title")).toMatch(/ago$|^just now$/);
    await row.getByLabel("Old key keeps working for").selectOption("1h");
    await row.getByRole("button", { name: "Roll" }).click();
    const rolled = (await page.getByTestId("new-key").textContent())!.trim();
    expect(rolled).not.toBe(key);
    expect((await createOrder(key)).status).toBe(201);
    expect((await createOrder(rolled)).status).toBe(201);
    // Revoking asks first (the dialog is accepted), then the list says when.
    const asked: string[] = [];
    page.on("dialog", (d) => void asked.push(d.message()));
    const rolledRow = page.locator(`tr[data-key-id="${rolled.split(".")[0]}"]`);
    await rolledRow.getByRole("button", { name: "Revoke" }).click();
    await landOn(page, "/cabinet/keys");
    expect(asked).toEqual([expect.stringContaining("Revoke this key?")]);
    expect(await rolledRow.getByTestId("revoked-at").textContent()).toMatch(/\d{1,2}:\d\d:\d\d [AP]M UTC$/);
    expect((await createOrder(rolled)).status).toBe(401);
    await shot(page, "04-keys-rolled-revoked");

    // Invite a viewer from the Team page.
    await page.getByRole("link", { name: "Team" }).click();
    await page.getByLabel("E-mail").fill("viewer@demo-wallet.example");
    const inviteForm = page.locator('form[action="/cabinet/team/invites"]').first();
    await inviteForm.getByLabel("Role").selectOption("viewer");
    await inviteForm.getByRole("button", { name: "Create invite link" }).click();
    const viewerUrl = (await page.getByTestId("invite-url").textContent())!.trim();
    await shot(page, "05-team");

    // The viewer, in a second context with its own authenticator, at phone width.
    const viewer = await withPasskeys(suite.browser(), { width: 390, height: 800 });
    await viewer.page.goto(viewerUrl);
    await viewer.page.getByRole("button", { name: "Create passkey and sign in" }).click();
    await landOn(viewer.page, "/cabinet/keys");
    expect(await viewer.page.getByTestId("create-key").count()).toBe(0);
    expect(await viewer.page.getByRole("button", { name: "Revoke" }).count()).toBe(0);
    await shot(viewer.page, "06-viewer-keys-phone");
    // Posting anyway, from the viewer's own signed-in page (cookie, Origin and CSRF token all valid).
    const csrf = await viewer.page.locator('meta[name="csrf-token"]').getAttribute("content");
    expect(csrf).toBeTruthy();
    const forced = await viewer.page.evaluate(async (csrf) => {
      const res = await fetch("/cabinet/keys", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, name: "sneaky" }),
      });
      return res.status;
    }, csrf!);
    expect(forced).toBe(403);
    await viewer.ctx.close();

    await page.getByRole("link", { name: "Audit log" }).click();
    await expect.poll(() => page.locator("td code").count()).toBeGreaterThan(5);
    await shot(page, "07-audit");
    await page.getByRole("link", { name: "Passkeys" }).click();
    await shot(page, "08-passkeys");

    // Sign out: the session dies server-side, not just in this browser.
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await landOn(page, "/cabinet/sign-in");
    await shot(page, "09-sign-in");
    const replay = await fetch(`${ORIGIN}/cabinet/keys`, {
      headers: { cookie: `${session!.name}=${session!.value}` },
      redirect: "manual",
    });
    expect(replay.status).toBe(303);

    // And back in with the passkey.
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await landOn(page, "/cabinet/keys");
    await ctx.close();
  });
});
