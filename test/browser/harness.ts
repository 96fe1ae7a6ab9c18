// One `wrangler dev` (fresh local state, migrated) and one Chromium for the browser tests.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sparticuz from "@sparticuz/chromium";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";

// Overridable so several checkouts on one machine can run the browser tests at once.
export const PORT = Number(process.env.BROWSER_TEST_PORT ?? 8741);
const INSPECTOR_PORT = Number(process.env.BROWSER_TEST_INSPECTOR_PORT ?? 9240);
/** The local webhook receiver of the webhooks test (a plain Node server on 127.0.0.1). */
export const RECEIVER_PORT = Number(process.env.BROWSER_TEST_RECEIVER_PORT ?? 8743);
export const ORIGIN = `http://localhost:${PORT}`;
export const ADMIN_TOKEN = "browser-test-admin-token";
export const ARTIFACTS = join(process.cwd(), "test-artifacts", "cabinet");

const ENV = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "1" };

export interface Server {
  stop(): Promise<void>;
}

/** `vars` are extra `--var NAME:value` settings (the orders test polls the chain every second). */
export async function startWorker(vars: Record<string, string> = {}): Promise<Server> {
  // The page script is bundled at install time; rebuild it so a changed src/client is what runs.
  const assets = spawnSync(process.execPath, ["scripts/build-cabinet-assets.mjs"], { encoding: "utf8" });
  if (assets.status !== 0) throw new Error(`cabinet assets build failed: ${assets.stderr}`);
  const state = mkdtempSync(join(tmpdir(), "cabinet-browser-"));
  const migrate = spawnSync(
    "npx",
    ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", state],
    {
      env: ENV,
      encoding: "utf8",
    },
  );
  if (migrate.status !== 0) throw new Error(`migrations failed: ${migrate.stderr}`);
  const child: ChildProcess = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--port",
      String(PORT),
      "--ip",
      "127.0.0.1",
      "--inspector-port",
      String(INSPECTOR_PORT),
      "--persist-to",
      state,
      "--var",
      `ADMIN_TOKEN:${ADMIN_TOKEN}`,
      "--var",
      `CABINET_ORIGIN:${ORIGIN}`,
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    { env: ENV, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let log = "";
  child.stdout?.on("data", (d) => (log += d));
  child.stderr?.on("data", (d) => (log += d));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited: ${log.slice(-2000)}`);
    try {
      const res = await fetch(`${ORIGIN}/cabinet/sign-in`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`wrangler dev did not start: ${log.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  return {
    async stop() {
      // The whole process group: npx → wrangler → workerd.
      if (child.pid) process.kill(-child.pid, "SIGTERM");
      await new Promise((r) => setTimeout(r, 300));
      rmSync(state, { recursive: true, force: true });
    },
  };
}

// @sparticuz/chromium's defaults are for Lambda: one process and no web security. One process
// mixes up cookies between browser contexts, and no web security would hide exactly the
// cross-origin rules the cabinet relies on, so both go.
const UNWANTED = /^--(single-process|disable-web-security|allow-running-insecure-content|headless)/;
const launchArgs = () => sparticuz.args.filter((a) => !UNWANTED.test(a));

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  try {
    const executablePath = process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath());
    return await chromium.launch({ executablePath, args: launchArgs(), headless: true });
  } catch (err) {
    throw new Error(
      `No Chromium could start (${String(err).split("\n")[0]}): set CHROMIUM_PATH to a Chrome/Chromium binary.`,
    );
  }
}

export function admin(path: string, init: { method?: string; json?: unknown } = {}) {
  return fetch(`${ORIGIN}/admin/v1${path}`, {
    method: init.method ?? (init.json ? "POST" : "GET"),
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(init.json ? { body: JSON.stringify(init.json) } : {}),
  });
}

/** A browser context with its own passkey store (a platform authenticator). */
export async function withPasskeys(
  b: Browser,
  viewport = { width: 1100, height: 760 },
): Promise<{ ctx: BrowserContext; page: Page }> {
  // An explicit locale: from a POSIX environment Chromium reports `en-US@posix`, which no real
  // browser does and which Intl (uPlot's date axis) refuses.
  const ctx = await b.newContext({ viewport, locale: "en-US" });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
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
  return { ctx, page };
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

export const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

export async function inviteUrl(partnerId: string, email: string, role: string): Promise<string> {
  const res = await admin(`/partners/${partnerId}/invites`, { json: { email, role } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { url: string }).url;
}

/** One Chromium and one `wrangler dev` (with extra `vars`) for a test file, stopped after it. */
export function browserSession(vars: Record<string, string> = {}): { browser(): Browser } {
  let server: Server | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWorker(vars);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  return {
    browser() {
      if (!browser) throw new Error("the browser is not started");
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
