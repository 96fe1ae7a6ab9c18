// GET /api/v1/service-status, its incidents (opened and closed by the cron, annotated by the
// operator, shown on /status), and quotes on a network that is down (docs/integrate.md, "Service status").
import { env } from "cloudflare:workers";
import { base58 } from "@scure/base";
import { beforeAll, describe, expect, it } from "vitest";
import { getConfig } from "../../../src/config";
import { refreshServiceStatus } from "../../../src/services/service-status";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { BTC_TO_USDT } from "../../support/orders";

describe("service-status", () => {
  interface NetworkStatus {
    network: string;
    deposits: string;
    payouts: string;
    reader_lag_seconds: number | null;
    updated_at: string;
  }
  interface Incident {
    id: number;
    component: string;
    level: string;
    summary: string;
    opened_at: string;
    closed_at: string | null;
    notes: { at: string; body: string; operator?: string }[];
  }
  interface Status {
    status: string;
    updated_at: string | null;
    checked: boolean;
    webhooks: string;
    networks: NetworkStatus[];
    incidents: Incident[];
  }

  const MINUTE = 60_000;
  const config = getConfig(env);
  const status = async () => json<Status>(await call("/api/v1/service-status"));
  const network = (s: Status, n: string) => s.networks.find((x) => x.network === n);
  const faults = (network: string, readFailRate: number) =>
    admin(`/sim/${network}/faults`, { method: "PUT", json: { read_fail_rate: readFailRate } });

  let partner: TestPartner;

  beforeAll(async () => {
    await setPrices();
    partner = await createPartner();
    // SOL's deposits draw from the pool: an empty one is an outage of its own (address-pool.ts).
    const addresses = Array.from({ length: 5 }, () =>
      base58.encode(crypto.getRandomValues(new Uint8Array(32))),
    );
    expect((await admin("/address-pool/SOL", { method: "POST", json: { addresses } })).status).toBe(201);
  });

  describe("GET /api/v1/service-status", () => {
    it("before the cron's first run: operational by default, not checked, no networks, no time", async () => {
      const res = await call("/api/v1/service-status");
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({
        status: "operational",
        updated_at: null,
        checked: false,
        webhooks: "operational",
        networks: [],
        incidents: [],
        // Whatever list the screening module loaded: its own test checks it.
        sanctions_list: { version: expect.any(String), fetched_at: expect.any(String) },
      });
      // The page says so, not "All systems operational".
      const html = await (await call("/status")).text();
      expect(html).toContain("Not checked yet");
      expect(html).not.toContain("All systems operational");
    });

    it("every active network, judged by the cron; cached briefly with an ETag, readable cross-origin", async () => {
      const at = Date.now();
      await refreshServiceStatus(env, config, at);
      const res = await call("/api/v1/service-status", { headers: { Origin: "https://wallet.example" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=10");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("ratelimit-limit")).toBeTruthy();
      const s = await json<Status>(res);
      expect(s).toMatchObject({
        status: "operational",
        checked: true,
        webhooks: "operational",
        incidents: [],
      });
      expect(s.updated_at).toBe(new Date(at).toISOString());
      const { results } = await env.DB.prepare(
        "SELECT DISTINCT network FROM currencies WHERE is_active = 1 ORDER BY network",
      ).all<{ network: string }>();
      expect(s.networks.map((n) => n.network)).toEqual(
        results.map((r) => r.network).sort((a, b) => a.localeCompare(b)),
      );
      expect(network(s, "BTC")).toEqual({
        network: "BTC",
        deposits: "operational",
        payouts: "operational",
        reader_lag_seconds: 0,
        updated_at: new Date(at).toISOString(),
      });
      const etag = res.headers.get("etag");
      expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
      const again = await call("/api/v1/service-status", { headers: { "If-None-Match": etag ?? "" } });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
    });

    it("stale prices degrade the networks whose coins cannot be quoted, and overall", async () => {
      await refreshServiceStatus(env, config, Date.now() + (config.PRICE_MAX_AGE_SECONDS + 1) * 1000);
      const s = await status();
      expect(s.status).toBe("degraded");
      expect(network(s, "BTC")).toMatchObject({ deposits: "degraded", payouts: "degraded" });
      // Stale prices open incidents like any other signal; fresh ones close them.
      expect(s.incidents.map((i) => i.component)).toContain("BTC");
      await refreshServiceStatus(env, config, Date.now());
      const after = await status();
      expect(after.status).toBe("operational");
      expect(after.incidents).toEqual([]);
    });
  });

  describe("a chain reader that fails: the network goes degraded, then down, and back", () => {
    it("opens an incident, refuses quotes with network_unavailable, takes a note, closes", async () => {
      const t0 = Date.now() - 14 * MINUTE;
      await refreshServiceStatus(env, config, t0);
      await faults("BTC", 1);
      try {
        await refreshServiceStatus(env, config, t0 + MINUTE);
        let s = await status();
        expect(network(s, "BTC")).toMatchObject({
          deposits: "degraded",
          payouts: "operational",
          reader_lag_seconds: 60,
        });
        expect(network(s, "ETH")?.deposits).toBe("operational");
        expect(s.status).toBe("degraded");
        const [opened] = s.incidents;
        expect(opened).toMatchObject({ component: "BTC", level: "degraded", closed_at: null, notes: [] });
        // Degraded still quotes.
        expect((await call("/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.1")).status).toBe(200);

        await refreshServiceStatus(env, config, t0 + 13 * MINUTE);
        s = await status();
        expect(network(s, "BTC")).toMatchObject({ deposits: "down", reader_lag_seconds: 13 * 60 });
        // Other networks still swap: overall degraded, not down.
        expect(s.status).toBe("degraded");
        // The same incident, escalated: one per component while it lasts.
        expect(s.incidents).toHaveLength(1);
        expect(s.incidents[0]).toMatchObject({ id: opened?.id, level: "down" });

        // Still listed, but quotes and orders from BTC say why; to BTC (its payouts work) still quote.
        const listed = await json<{ coin: string }[]>(await call("/api/v1/currencies"));
        expect(listed.some((c) => c.coin === "BTC")).toBe(true);
        const refused = await expectError(
          await call("/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.1"),
          400,
          "pair_unavailable",
        );
        expect(refused.errors).toEqual([
          { code: "network_unavailable", side: "from", detail: expect.stringContaining("BTC") },
        ]);
        expect((await call("/api/v1/partner/rates?coin_from=ETH&coin_to=BTC&amount=1")).status).toBe(200);
        const order = await call("/api/v1/partner/orders", {
          method: "POST",
          body: JSON.stringify(BTC_TO_USDT),
          headers: { Authorization: `Bearer ${partner.key}`, "content-type": "application/json" },
        });
        const orderBody = await expectError(order, 400, "pair_unavailable");
        expect(orderBody.errors?.[0]).toMatchObject({ code: "network_unavailable", side: "from" });
        // A test key's orders run on their own SimChain: the real network's outage does not refuse them.
        // (Test keys are covered by partner-routes/test-mode.ts; here the live refusal is the point.)

        // The operator's note: audited, public without its author.
        const noted = await admin(`/incidents/${opened?.id}/notes`, {
          method: "POST",
          json: { body: "  Our BTC node provider is down; switching to a backup.  " },
          headers: { "X-Operator": "dana" },
        });
        expect(noted.status).toBe(201);
        expect(await json<Incident>(noted)).toMatchObject({
          id: opened?.id,
          notes: [{ body: "Our BTC node provider is down; switching to a backup.", operator: "token:dana" }],
        });
        s = await status();
        expect(s.incidents[0]?.notes).toEqual([
          { at: expect.any(String), body: "Our BTC node provider is down; switching to a backup." },
        ]);
        const audit = await json<{ data: { action: string; operator: string; request_id: string }[] }>(
          await admin(`/audit?entity_type=incident&entity_id=${opened?.id}`),
        );
        expect(audit.data).toEqual([
          expect.objectContaining({
            action: "incident.annotate",
            operator: "token:dana",
            request_id: noted.headers.get("x-request-id"),
          }),
        ]);

        await faults("BTC", 0);
        await refreshServiceStatus(env, config, Date.now());
        s = await status();
        expect(network(s, "BTC")).toMatchObject({ deposits: "operational", reader_lag_seconds: 0 });
        expect(s.incidents).toEqual([]);
        expect((await call("/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.1")).status).toBe(200);
        const history = await json<{ data: Incident[] }>(await admin("/incidents?days=30"));
        expect(history.data.find((i) => i.id === opened?.id)).toMatchObject({
          component: "BTC",
          level: "down",
          closed_at: expect.any(String),
          notes: [expect.objectContaining({ operator: "token:dana" })],
        });

        // The page shows it, with the note.
        const page = await call("/status");
        expect(page.status).toBe(200);
        expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
        const html = await page.text();
        expect(html).toContain("Our BTC node provider is down; switching to a backup.");
        expect(html).toContain("All systems operational");
      } finally {
        await faults("BTC", 0);
      }
    });

    it("a status the cron stopped refreshing refuses nothing", async () => {
      const old = Date.now() - 30 * MINUTE;
      await refreshServiceStatus(env, config, old - MINUTE);
      await faults("LTC", 1);
      try {
        await refreshServiceStatus(env, config, old);
        await refreshServiceStatus(env, config, old + 15 * MINUTE);
        expect(network(await status(), "LTC")?.deposits).toBe("down");
        expect((await call("/api/v1/partner/rates?coin_from=LTC&coin_to=ETH&amount=1")).status).toBe(200);
      } finally {
        await faults("LTC", 0);
        await refreshServiceStatus(env, config, Date.now());
      }
    });
  });

  describe("operator incidents API: bounded, authenticated", () => {
    it("refuses a note without a body, on an unknown incident, and without the token", async () => {
      await expectError(
        await admin("/incidents/1/notes", { method: "POST", json: { body: " " } }),
        400,
        "invalid_request",
      );
      await expectError(
        await admin("/incidents/1/notes", { method: "POST", json: { body: "x".repeat(2001) } }),
        400,
        "invalid_request",
      );
      await expectError(
        await admin("/incidents/999999/notes", { method: "POST", json: { body: "hi" } }),
        404,
        "not_found",
      );
      const anonymous = await call("/admin/v1/incidents/1/notes", {
        method: "POST",
        body: JSON.stringify({ body: "hi" }),
        headers: { "content-type": "application/json" },
      });
      expect(anonymous.status).toBe(401);
      await expectError(await admin("/incidents?days=0"), 400, "invalid_request");
    });
  });
});
