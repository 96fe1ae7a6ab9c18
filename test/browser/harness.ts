// What the browser tests share: the one `wrangler dev` and the one Chromium that the project's
// global setup (./global-setup.ts, via ./processes.ts) starts for all of them, and page helpers.
import { existsSync, readFileSync } from "node:fs";
import { createServer, type RequestListener } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Frame,
  type Page,
} from "playwright-core";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { ADMIN_TOKEN, ARTIFACTS, ORIGIN, STARTUP_ERROR } from "./processes";

export { ADMIN_TOKEN, ARTIFACTS, ORIGIN, PORT, RECEIVER_PORT } from "./processes";

export function admin(path: string, init: { method?: string; json?: unknown } = {}) {
  return fetch(`${ORIGIN}/admin/v1${path}`, {
    method: init.method ?? (init.json ? "POST" : "GET"),
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(init.json ? { body: JSON.stringify(init.json) } : {}),
  });
}

/**
 * A browser context with its own passkey store (a platform authenticator). `userVerified(false)`
 * makes the authenticator answer with presence only, like a security key touched without its PIN.
 */
export async function withPasskeys(
  b: Browser,
  viewport = { width: 1100, height: 760 },
  options: BrowserContextOptions = {},
): Promise<{ ctx: BrowserContext; page: Page; userVerified(on: boolean): Promise<void> }> {
  // An explicit locale: from a POSIX environment Chromium reports `en-US@posix`, which no real
  // browser does and which Intl (uPlot's date axis) refuses.
  const ctx = await b.newContext({ viewport, locale: "en-US", ...options });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  page.on("dialog", (d) => void d.accept());
  const userVerified = async (isUserVerified: boolean) => {
    await cdp.send("WebAuthn.setUserVerified", { authenticatorId, isUserVerified });
  };
  return { ctx, page, userVerified };
}

/** Waits for a page; on failure says what the page's status line showed (a ceremony's error). */
export async function landOn(page: Page, path: string) {
  try {
    await page.waitForURL(`${ORIGIN}${path}`, { timeout: 15_000 });
  } catch (err) {
    const status = await page
      .locator("[data-status]")
      .first()
      .textContent()
      .catch(() => null);
    await shot(page, `failed-${path.replace(/\W+/g, "-")}`).catch(() => undefined);
    throw new Error(
      `did not reach ${path} (page says: ${status ?? "nothing"}): ${String(err).split("\n")[0]}`,
    );
  }
}

// A full-page capture beside the workers process (two cores, both busy) has taken over 30 s.
export const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true, timeout: 90_000 });

export async function inviteUrl(partnerId: string, email: string, role: string): Promise<string> {
  const res = await admin(`/partners/${partnerId}/invites`, { json: { email, role } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { url: string }).url;
}

/** A partner made by the operator (its id). */
export async function newPartner(name: string, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await admin("/partners", { json: { name, ...fields } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** An API key the operator issues for a partner (the full secret). */
export async function newKey(partnerId: string, mode: "live" | "test" = "live"): Promise<string> {
  const res = await admin(`/partners/${partnerId}/keys`, { json: { mode } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

/** Accepts an invite in `page` (its context has a passkey store): signed in on the keys page. */
export async function signInByInvite(page: Page, partnerId: string, email: string, role: string) {
  await page.goto(await inviteUrl(partnerId, email, role));
  await page.getByRole("button", { name: "Create passkey and sign in" }).click();
  await landOn(page, "/cabinet/keys");
}

/**
 * Retries `attempt` until it succeeds; fails with the global setup's startup error when there is
 * one (the processes start in the background, global-setup.ts).
 */
async function whenStarted<T>(what: string, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 170_000;
  for (;;) {
    if (existsSync(STARTUP_ERROR))
      throw new Error(`${what} did not start: ${readFileSync(STARTUP_ERROR, "utf8")}`);
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what} did not start in time: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Before a file's tests: waits until the shared `wrangler dev` answers. */
export function serverReady(): void {
  beforeAll(async () => {
    await whenStarted("wrangler dev", async () => {
      const res = await fetch(`${ORIGIN}/cabinet/sign-in`);
      if (res.status !== 200) throw new Error(`status ${res.status}`);
    });
  });
}

/**
 * The shared Chromium for a test file: connected before its tests (once it and the Worker are up),
 * disconnected after (the browser itself and the Worker run until the whole project is done).
 */
export function browserSession(): { browser(): Browser } {
  let browser: Browser | undefined;
  serverReady();
  beforeAll(async () => {
    browser = await whenStarted("Chromium", () => chromium.connect(inject("chromiumWsEndpoint")));
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    browser() {
      if (!browser) throw new Error("the browser is not connected");
      return browser;
    },
  };
}

export const ORDER = {
  coin_from: "BTC",
  network_from: "BTC",
  coin_to: "USDT",
  network_to: "TRX",
  amount_from: 0.01,
  rate_type: "float",
  recipient_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
};

export const postOrder = (key: string, body: Record<string, unknown>) =>
  fetch(`${ORIGIN}/api/v1/partner/orders`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** An order as its creation answers it (the fields the tests read). */
export interface Order {
  id: string;
  short_id: string;
  status: string;
  deposit_address: string;
  /** The keyless tracking page (the order's own link: its UUID alone opens nothing). */
  tracking_url: string;
}

/** An order made through the partner API (`ORDER` unless told otherwise). */
export async function newOrder(key: string, body: Record<string, unknown> = ORDER): Promise<Order> {
  const res = await postOrder(key, body);
  expect(res.status).toBe(201);
  return (await res.json()) as Order;
}

/** A test order the deposit helper has moved once: it has an event, so a webhook to deliver. */
export async function depositedTestOrder(testKey: string): Promise<Order> {
  const order = await newOrder(testKey);
  const moved = await fetch(`${ORIGIN}/api/v1/partner/test/orders/${order.id}/deposit`, {
    method: "POST",
    headers: { authorization: `Bearer ${testKey}`, "content-type": "application/json" },
    body: "{}",
  });
  expect(moved.status).toBe(200);
  return order;
}

/** On the cabinet's Webhooks page: `url` saved as the endpoint and a secret created for it. */
export async function saveEndpointWithSecret(page: Page, url: string): Promise<void> {
  await page.getByLabel("URL").fill(url);
  await page.getByRole("button", { name: "Save" }).click();
  await expect
    .poll(() => page.getByTestId("notice").textContent(), { timeout: 15_000 })
    .toContain("Endpoint saved");
  await page.getByRole("button", { name: "Create secret" }).click();
  await expect.poll(() => page.getByTestId("new-secret").count(), { timeout: 15_000 }).toBe(1);
}

/**
 * A plain Node server for a file's tests (a webhook receiver, a shop page), listening on `port`
 * (of `host` when given, else every interface) before them and closed after.
 */
export function localServer(port: number, handler: RequestListener, host?: string): void {
  const server = createServer(handler);
  beforeAll(async () => {
    await new Promise<void>((resolve) =>
      host ? server.listen(port, host, resolve) : server.listen(port, resolve),
    );
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
}

/** An order's status as the partner API reports it. */
export async function orderStatus(key: string, id: string): Promise<string> {
  const res = await fetch(`${ORIGIN}/api/v1/partner/orders/${id}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return ((await res.json()) as { status: string }).status;
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core in the page or frame (evaluated through the debugger, so the page's CSP does not apply). */
export async function seriousViolations(target: Page | Frame): Promise<string[]> {
  await target.evaluate(AXE);
  const result = await target.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> };
      }
    ).axe;
    return axe.run();
  });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}, ${v.nodes.length})`);
}

/** No sideways scrolling: the content is no wider than the viewport. */
export const overflowX = async (target: Page | Frame) =>
  Number(
    await target.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"),
  );
