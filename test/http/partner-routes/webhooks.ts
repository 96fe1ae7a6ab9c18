import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { delay, HttpResponse, http } from "msw";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyWebhook } from "../../../docs/examples/verify-webhook";
import snippet from "../../../docs/examples/verify-webhook.ts?raw";
import docs from "../../../docs/webhooks.md?raw";
import { commands } from "../../../scripts/cli/commands.mjs";
import { runCli } from "../../../scripts/cli/core.mjs";
import { checkWebhookUrl } from "../../../src/domain/webhook-url";
import { retryDelaySeconds, type WebhookEvent, type WebhookMessage } from "../../../src/domain/webhooks";
import { deliverBatch } from "../../../src/services/webhook-delivery";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { createMockNetwork } from "../../support/msw";
import { BTC_TO_USDT, createOrder, simMine, simSend, startClock, step } from "../../support/orders";

describe("webhooks", () => {
  const HOOK = "https://partner.example.test/hooks";
  const QUEUE = "swap-partner-api-webhooks";

  interface Delivery {
    event_id: string;
    status: string;
    attempts: number;
    last_status_code: number | null;
    next_retry_at: string | null;
  }

  async function withWebhook(p: TestPartner): Promise<string> {
    const upd = await admin(`/partners/${p.id}`, { method: "PATCH", json: { webhook_url: HOOK } });
    expect(upd.status).toBe(200);
    const res = await admin(`/partners/${p.id}/webhook-secret`, { method: "POST" });
    expect(res.status).toBe(201);
    return (await json<{ secret: string }>(res)).secret;
  }

  /** A message as an OrderObject's outbox would send it, with a fresh event id. */
  function message(partnerId: string, overrides: Partial<WebhookMessage> = {}): WebhookMessage {
    const eventId = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
    const body = JSON.stringify({
      id: eventId,
      type: "order.status_changed",
      sequence: 1,
      data: { previous_status: "waiting_deposit" },
    });
    return {
      event_id: eventId,
      partner_id: partnerId,
      order_id: crypto.randomUUID(),
      sequence: 1,
      type: "order.status_changed",
      created_at: new Date().toISOString(),
      body,
      ...overrides,
    };
  }

  async function deliver(messages: WebhookMessage[], fetch: typeof globalThis.fetch, timeoutMs = 1000) {
    const batch = createMessageBatch<WebhookMessage>(
      QUEUE,
      messages.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
    );
    const ctx = createExecutionContext();
    await deliverBatch(batch, env, { fetch, timeoutMs, rules: { allowHttpLocal: false } });
    return getQueueResult(batch, ctx);
  }

  async function deliveries(p: TestPartner): Promise<Delivery[]> {
    return (await json<{ data: Delivery[] }>(await admin(`/partners/${p.id}/webhook-deliveries`))).data;
  }

  beforeAll(async () => {
    await setPrices();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  describe("webhook settings (operator API and CLI)", () => {
    it("accepts https URLs, http only on localhost in dev, null to disable; rejects others", async () => {
      const p = await createPartner();
      for (const ok of [HOOK, "http://localhost:3000/h", "http://127.0.0.1/h"]) {
        const res = await admin(`/partners/${p.id}`, { method: "PATCH", json: { webhook_url: ok } });
        expect(res.status, ok).toBe(200);
      }
      for (const bad of [
        "http://partner.example/h",
        "ftp://x/y",
        "not a url",
        "https://user:pw@x.example/h",
      ]) {
        await expectError(
          await admin(`/partners/${p.id}`, { method: "PATCH", json: { webhook_url: bad } }),
          400,
          "invalid_request",
        );
      }
      const off = await json<{ webhook_url: string | null }>(
        await admin(`/partners/${p.id}`, { method: "PATCH", json: { webhook_url: null } }),
      );
      expect(off.webhook_url).toBeNull();
      // Production (ALLOW_HTTP_WEBHOOKS unset): https only.
      expect(checkWebhookUrl("http://localhost/h", { allowHttpLocal: false })).toMatchObject({ ok: false });
      expect(checkWebhookUrl(HOOK, { allowHttpLocal: false })).toMatchObject({ ok: true });
    });

    it("the signing secret is ≥ 32 random bytes, shown once, rotatable, never returned again", async () => {
      const p = await createPartner();
      const first = await withWebhook(p);
      expect(first).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      const second = (
        await json<{ secret: string }>(await admin(`/partners/${p.id}/webhook-secret`, { method: "POST" }))
      ).secret;
      expect(second).not.toBe(first);
      const shown = await admin(`/partners/${p.id}`);
      const text = await shown.text();
      expect(text).not.toContain(second.slice(6));
      expect(JSON.parse(text)).toMatchObject({ webhook_url: HOOK, webhook_secret_set: true });
      expect(await (await admin("/partners")).text()).not.toContain(second.slice(6));
    });

    it("the CLI sets the URL and rotates the secret", async () => {
      const p = await createPartner();
      const out: string[] = [];
      const run = (argv: string[]) =>
        runCli(argv, {
          commands,
          fetch: (url, init) => call(new URL(url).pathname, init),
          print: (s: string) => out.push(s),
          printError: (s: string) => out.push(s),
          env: { ADMIN_TOKEN: "test-admin-token" },
          loadDevToken: () => undefined,
        });
      expect(await run(["partner", "update", p.id, "--webhook-url", HOOK])).toBe(0);
      expect(await run(["partner", "webhook-secret", p.id])).toBe(0);
      expect(out.join("\n")).toMatch(/whsec_[A-Za-z0-9_-]{43}/);
      expect(await run(["partner", "update", p.id, "--webhook-url", "none"])).toBe(0);
      expect(
        (await json<{ webhook_url: string | null }>(await admin(`/partners/${p.id}`))).webhook_url,
      ).toBeNull();
    });
  });

  describe("events", () => {
    it("one event per transition, sequence increasing over a whole lifecycle, queued from the outbox", async () => {
      const p = await createPartner({ rate_limit_per_minute: 10_000 });
      startClock();
      const o = await createOrder(p, BTC_TO_USDT);
      await simSend("BTC", o.deposit_address, "0.01");
      await step(o.id);
      await simMine("BTC", 2);
      await step(o.id);
      const events = await env.ORDERS.getByName(o.id).webhookEvents();
      expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
      expect(events.every((e) => e.sent)).toBe(true);
      const bodies = events.map((e) => JSON.parse(e.message.body) as WebhookEvent);
      expect(bodies.map((b) => [b.data.previous_status, b.data.order.status])).toEqual([
        ["waiting_deposit", "confirming"],
        ["confirming", "exchanging"],
        ["exchanging", "sending"],
        ["sending", "completed"],
      ]);
      for (const b of bodies) {
        expect(b).toMatchObject({
          type: "order.status_changed",
          id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        });
        expect(b.data.order.id).toBe(o.id);
        // The keyless links to hand on, the same in every event as at creation.
        expect(b.data.order).toMatchObject({ tracking_url: o.tracking_url, status_url: o.status_url });
      }
      // data.order is the Order as GET returns it.
      const final = await json(
        await call(`/api/v1/partner/orders/${o.id}`, { headers: { "X-API-Key": p.key } }),
      );
      expect(bodies.at(-1)?.data.order).toEqual(final);
      expect(new Set(events.map((e) => e.message.partner_id))).toEqual(new Set([p.id]));
    });
  });

  describe("delivery (queue consumer)", () => {
    let partner: TestPartner;
    let secret: string;

    beforeAll(async () => {
      partner = await createPartner();
      secret = await withWebhook(partner);
    });

    it("POSTs the body signed so that the docs' verifier accepts it; 2xx → delivered and acked", async () => {
      const net = createMockNetwork(http.post(HOOK, () => new HttpResponse(null, { status: 204 })));
      const m = message(partner.id);
      const result = await deliver([m], net.fetch);
      expect(result.explicitAcks).toEqual(["m0"]);
      const [req] = net.requests;
      expect(req?.body).toBe(m.body);
      expect(req?.headers.get("content-type")).toBe("application/json");
      const sig = req?.headers.get("x-webhook-signature") ?? "";
      expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(await verifyWebhook(req?.body ?? "", sig, secret)).toBe(true);
      expect(await verifyWebhook(`${req?.body} `, sig, secret)).toBe(false);
      expect(await verifyWebhook(req?.body ?? "", sig, "whsec_other")).toBe(false);
      expect(
        await verifyWebhook(req?.body ?? "", sig, secret, 300, Math.floor(Date.now() / 1000) + 3600),
      ).toBe(false);
      expect((await deliveries(partner)).find((d) => d.event_id === m.event_id)).toMatchObject({
        status: "delivered",
        attempts: 1,
        last_status_code: 204,
      });
    });

    it("the docs quote the verifier verbatim", () => {
      expect(docs).toContain(snippet);
    });

    it("500 and timeouts are retried with backoff; success after failures is delivered once; a redelivered message is not POSTed again", async () => {
      let answer = 500;
      const net = createMockNetwork(
        http.post(HOOK, async () => {
          if (answer === 0) {
            await delay(200);
            return new HttpResponse(null, { status: 200 });
          }
          return new HttpResponse(null, { status: answer });
        }),
      );
      const m = message(partner.id);
      const t0 = Date.parse("2026-11-21T12:00:00.000Z");
      vi.useFakeTimers({ now: t0, toFake: ["Date"] });
      // (The test harness records that a message was retried, not its delay: the log has it.)
      let r = await deliver([m], net.fetch);
      expect(r.retryMessages).toEqual([{ msgId: "m0" }]);
      expect((await deliveries(partner)).find((d) => d.event_id === m.event_id)).toMatchObject({
        status: "pending",
        attempts: 1,
        last_status_code: 500,
        next_retry_at: new Date(t0 + 60_000).toISOString(),
      });
      answer = 0; // slower than the timeout
      vi.setSystemTime(t0 + 60_000);
      r = await deliver([m], net.fetch, 50);
      expect(r.retryMessages).toEqual([{ msgId: "m0" }]);
      expect((await deliveries(partner)).find((d) => d.event_id === m.event_id)).toMatchObject({
        attempts: 2,
        next_retry_at: new Date(t0 + 60_000 + 120_000).toISOString(),
      });
      answer = 200;
      r = await deliver([m], net.fetch);
      expect(r.explicitAcks).toEqual(["m0"]);
      const posts = net.requests.length;
      r = await deliver([m], net.fetch); // at-least-once queue: the same message again
      expect(r.explicitAcks).toEqual(["m0"]);
      expect(net.requests.length).toBe(posts);
      expect((await deliveries(partner)).find((d) => d.event_id === m.event_id)).toMatchObject({
        status: "delivered",
        attempts: 3,
      });
    });

    it("the schedule: 1 min doubling, capped at 12 h; after 3 days the event is failed", async () => {
      expect([1, 2, 3, 4, 10, 11, 20].map(retryDelaySeconds)).toEqual([
        60, 120, 240, 480, 30_720, 43_200, 43_200,
      ]);
      const net = createMockNetwork(http.post(HOOK, () => new HttpResponse(null, { status: 503 })));
      const m = message(partner.id);
      await deliver([m], net.fetch);
      vi.useFakeTimers({ now: Date.now() + 3 * 24 * 3600 * 1000 + 1000, toFake: ["Date"] });
      const r = await deliver([m], net.fetch);
      expect(r.explicitAcks).toEqual(["m0"]);
      expect((await deliveries(partner)).find((d) => d.event_id === m.event_id)).toMatchObject({
        status: "failed",
        attempts: 2,
      });
    });

    it("deliveries to one partner are independent of another's", async () => {
      const other = await createPartner({ name: "other" });
      await admin(`/partners/${other.id}`, {
        method: "PATCH",
        json: { webhook_url: "https://down.example.test/h" },
      });
      await admin(`/partners/${other.id}/webhook-secret`, { method: "POST" });
      const net = createMockNetwork(
        http.post(HOOK, () => new HttpResponse(null, { status: 200 })),
        http.post("https://down.example.test/h", () => new HttpResponse(null, { status: 502 })),
      );
      const r = await deliver([message(other.id), message(partner.id)], net.fetch);
      expect(r.explicitAcks).toEqual(["m1"]);
      expect(r.retryMessages).toEqual([{ msgId: "m0" }]);
    });

    it("a partner without a webhook: skipped, nothing sent", async () => {
      const quiet = await createPartner({ name: "quiet" });
      const net = createMockNetwork();
      const m = message(quiet.id);
      const r = await deliver([m], net.fetch);
      expect(r.explicitAcks).toEqual(["m0"]);
      expect(net.requests).toEqual([]);
      expect((await deliveries(quiet)).find((d) => d.event_id === m.event_id)).toMatchObject({
        status: "skipped",
        attempts: 0,
      });
    });

    it("the operator can retry a failed delivery", async () => {
      const net = createMockNetwork(http.post(HOOK, () => new HttpResponse(null, { status: 500 })));
      const m = message(partner.id);
      await deliver([m], net.fetch);
      const res = await admin(`/partners/${partner.id}/webhook-deliveries/${m.event_id}/retry`, {
        method: "POST",
      });
      expect(res.status).toBe(202);
      expect(await json(res)).toMatchObject({ event_id: m.event_id, status: "pending" });
      await expectError(
        await admin(`/partners/${partner.id}/webhook-deliveries/evt_${"0".repeat(32)}/retry`, {
          method: "POST",
        }),
        404,
        "not_found",
      );
    });
  });

  describe("GET /api/v1/partner/orders", () => {
    it("lists the caller's orders newest first, with filters and cursor pagination, never another partner's", async () => {
      vi.useRealTimers();
      const a = await createPartner({ name: "list-a", rate_limit_per_minute: 10_000 });
      const b = await createPartner({ name: "list-b", rate_limit_per_minute: 10_000 });
      const mine: string[] = [];
      for (let i = 0; i < 7; i++) {
        mine.push((await createOrder(a, BTC_TO_USDT)).id);
        await createOrder(b, BTC_TO_USDT);
      }
      const list = (q: string, p = a) =>
        call(`/api/v1/partner/orders${q}`, { headers: { "X-API-Key": p.key } });
      const all = await json<{ data: { id: string; created_at: string }[]; next_cursor: string | null }>(
        await list("?limit=100"),
      );
      expect(all.data.map((o) => o.id)).toEqual([...mine].reverse());
      expect(all.next_cursor).toBeNull();

      const seen: string[] = [];
      let cursor: string | null = "";
      while (cursor !== null) {
        const page: { data: { id: string }[]; next_cursor: string | null } = await json(
          await list(`?limit=3${cursor ? `&cursor=${cursor}` : ""}`),
        );
        expect(page.data.length).toBeLessThanOrEqual(3);
        seen.push(...page.data.map((o) => o.id));
        cursor = page.next_cursor;
      }
      expect(seen).toEqual([...mine].reverse());

      const first = all.data.at(-1)?.created_at ?? "";
      const from = await json<{ data: unknown[] }>(
        await list(`?created_from=${encodeURIComponent(first)}&limit=100`),
      );
      expect(from.data).toHaveLength(7);
      const to = await json<{ data: unknown[] }>(await list(`?created_to=${encodeURIComponent(first)}`));
      expect(to.data).toHaveLength(0);
      const waiting = await json<{ data: unknown[] }>(await list("?status=waiting_deposit&limit=100"));
      expect(waiting.data).toHaveLength(7);
      expect((await json<{ data: unknown[] }>(await list("?status=completed"))).data).toHaveLength(0);

      await expectError(await list("?limit=101"), 400, "invalid_request");
      await expectError(await list("?status=nope"), 400, "invalid_request");
      await expectError(await list("?created_from=yesterday"), 400, "invalid_request");
      await expectError(await list("?cursor=garbage"), 400, "invalid_cursor");
      await expectError(await call("/api/v1/partner/orders"), 401, "invalid_api_key");
    });
  });
});
