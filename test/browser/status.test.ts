// The /status page in Chromium against `wrangler dev` (docs/integrate.md, "Service status"): the
// cron (run through /__scheduled) judges a network whose chain reads fail, opens an incident, the
// operator annotates it, and the page shows both at desktop and phone width; once reads work again
// the incident closes and stays in the 30-day history. axe-core finds nothing serious on either.
// Screenshots go to test-artifacts/cabinet/status-*.png.
import { expect, it } from "vitest";
import { admin, browserSession, ORIGIN, overflowX, seriousViolations, shot } from "./harness";

const suite = browserSession();
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1100, height: 760 };
interface Status {
  status: string;
  updated_at: string | null;
  networks: { network: string; deposits: string }[];
  incidents: { id: number; component: string }[];
}

/** Runs the cron and waits until the published status is newer than before. */
async function runCron(): Promise<Status> {
  const before = ((await (await fetch(`${ORIGIN}/api/v1/service-status`)).json()) as Status).updated_at;
  await fetch(`${ORIGIN}/__scheduled?cron=*+*+*+*+*`);
  const deadline = Date.now() + 20_000;
  for (;;) {
    // The route's isolate cache holds a status for a few seconds.
    await new Promise((r) => setTimeout(r, 1000));
    const s = (await (await fetch(`${ORIGIN}/api/v1/service-status`)).json()) as Status;
    if (s.updated_at !== null && s.updated_at !== before) return s;
    if (Date.now() > deadline) throw new Error("the cron did not publish a status");
  }
}

const faults = (rate: number) =>
  admin("/sim/BTC/faults", { method: "PUT", json: { read_fail_rate: rate } }).then((r) =>
    expect(r.status).toBe(200),
  );

it("shows a degraded network with its incident and note, then the incident closed, accessible at both widths", async () => {
  await faults(1);
  let s: Status;
  try {
    s = await runCron();
    expect(s.networks.find((n) => n.network === "BTC")?.deposits).toBe("degraded");
    const incident = s.incidents.find((i) => i.component === "BTC");
    expect(incident).toBeTruthy();
    const noted = await admin(`/incidents/${incident?.id}/notes`, {
      json: { body: "Our BTC node provider is failing; we are switching to a backup." },
    });
    expect(noted.status).toBe(201);

    for (const [name, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      const ctx = await suite.browser().newContext({ viewport, locale: "en-US" });
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      // The note is public within the cache's few seconds.
      await expect
        .poll(
          async () => {
            await page.goto(`${ORIGIN}/status`);
            return page.locator("[data-testid=incident][data-component=BTC]").first().textContent();
          },
          { timeout: 15_000 },
        )
        .toContain("switching to a backup");
      await expect(page.locator("[data-testid=overall]").textContent()).resolves.toBe(
        "Some services are degraded",
      );
      await expect(page.locator("tr[data-network=BTC] td").first().textContent()).resolves.toBe("Degraded");
      await expect(
        page.locator("[data-testid=incident][data-component=BTC][data-open=true] h3").textContent(),
      ).resolves.toContain("BTC");
      await shot(page, `status-degraded-${name}`);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await overflowX(page)).toBeLessThanOrEqual(0);
      expect(errors).toEqual([]);
      await ctx.close();
    }
  } finally {
    await faults(0);
  }

  s = await runCron();
  expect(s.networks.find((n) => n.network === "BTC")?.deposits).toBe("operational");
  const ctx = await suite.browser().newContext({ viewport: DESKTOP, locale: "en-US" });
  const page = await ctx.newPage();
  await expect
    .poll(
      async () => {
        await page.goto(`${ORIGIN}/status`);
        return page.locator("tr[data-network=BTC] td").first().textContent();
      },
      { timeout: 15_000 },
    )
    .toBe("Operational");
  // Closed, and still in the last 30 days with its note.
  await expect(
    page.locator("[data-testid=incident][data-component=BTC][data-open=false]").first().textContent(),
  ).resolves.toContain("switching to a backup");
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, "status-operational-desktop");
  await ctx.close();
});
