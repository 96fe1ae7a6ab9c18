import { env } from "cloudflare:workers";
import { delay, HttpResponse, http } from "msw";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { verifyWebhook } from "../../../docs/examples/verify-webhook";
import { orderIdOf } from "../../../src/domain/order-id";
import { admin, call, createPartner, expectError, json, type TestPartner } from "../../helpers";
import { createMockNetwork, type MockNetwork } from "../../support/msw";
import { queueOrderEvent } from "../../support/webhook-events";

describe("partner-webhooks", () => {
  const HOOK = "https://hooks.wallet.example/in";

  interface Attempt {
    attempted_at: string;
    trigger: string;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
    request_headers: Record<string, string> | null;
    response_body: string | null;
    response_body_truncated: boolean;
  }
  interface Delivery {
    event_id: string;
    type: string;
    order_id: string | null;
    status: string;
    attempts: Attempt[];
    payload: string;
  }
  interface Page {
    data: Delivery[];
    next_cursor: string | null;
  }

  function api(p: TestPartner, path: string, init: { method?: string; json?: unknown } = {}) {
    const headers = new Headers({ authorization: `Bearer ${p.key}` });
    if (init.json !== undefined) headers.set("content-type", "application/json");
    return call(`/api/v1/partner/webhook${path}`, {
      method: init.method ?? "GET",
      headers,
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
  }

  async function setUp(p: TestPartner): Promise<string> {
    expect((await api(p, "", { method: "PUT", json: { url: HOOK } })).status).toBe(200);
    const res = await api(p, "/secret", { method: "POST" });
    expect(res.status).toBe(201);
    return (await json<{ secret: string }>(res)).secret;
  }

  /** An order event through the queue consumer, as the order object would send it. */
  const orderEvent = (p: TestPartner, net: MockNetwork, orderId?: string) =>
    queueOrderEvent(p.id, net.fetch, orderId);

  /** Every `v1=` of a signature header, checked one by one against a secret. */
  async function validSignatures(body: string, header: string, secret: string): Promise<number> {
    const t = /t=(\d+)/.exec(header)?.[1];
    const v1s = [...header.matchAll(/v1=([0-9a-f]{64})/g)].map((m) => m[1]);
    let ok = 0;
    for (const v1 of v1s) if (await verifyWebhook(body, `t=${t},v1=${v1}`, secret)) ok++;
    return ok;
  }

  let net: MockNetwork;
  let answer: number;
  beforeEach(() => {
    answer = 200;
    net = createMockNetwork(http.post(HOOK, () => new HttpResponse(null, { status: answer })));
    vi.stubGlobal("fetch", net.fetch);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  describe("webhook endpoint (partner API)", () => {
    it("needs a key; starts empty; PUT sets url and enabled; refuses hostile URLs without changing anything", async () => {
      expect((await call("/api/v1/partner/webhook")).status).toBe(401);
      const p = await createPartner();
      expect(await json(await api(p, ""))).toEqual({
        url: null,
        enabled: false,
        secret_set: false,
        previous_secret_expires_at: null,
        created_at: null,
        updated_at: null,
      });
      const set = await json<{ url: string; enabled: boolean }>(
        await api(p, "", { method: "PUT", json: { url: HOOK } }),
      );
      expect(set).toMatchObject({ url: HOOK, enabled: true, secret_set: false });
      for (const bad of [
        "https://169.254.169.254/latest/meta-data/",
        "https://[::ffff:10.0.0.1]/h",
        "https://api.localhost/h",
        "https://metadata.google.internal/h",
        "https://hooks.wallet.example:8443/in",
        "http://hooks.wallet.example/in",
      ]) {
        const body = await expectError(
          await api(p, "", { method: "PUT", json: { url: bad } }),
          400,
          "invalid_request",
        );
        expect(body.errors?.[0]?.field, bad).toBe("url");
      }
      await expectError(await api(p, "", { method: "PUT", json: {} }), 400, "invalid_request");
      await expectError(
        await api(p, "", { method: "PUT", json: { url: HOOK, extra: 1 } }),
        400,
        "invalid_request",
      );
      const off = await json(await api(p, "", { method: "PUT", json: { enabled: false } }));
      expect(off).toMatchObject({ url: HOOK, enabled: false });
      // The operator's view is the same endpoint (live).
      expect(await json(await admin(`/partners/${p.id}`))).toMatchObject({ webhook_url: HOOK });
    });

    it("the secret is shown once; every change is in the audit log", async () => {
      const p = await createPartner();
      const secret = await setUp(p);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      const view = await (await api(p, "")).text();
      expect(view).not.toContain(secret.slice(6));
      expect(JSON.parse(view)).toMatchObject({ secret_set: true });
      await expectError(
        await api(p, "/secret", { method: "POST", json: { overlap_seconds: 86_401 } }),
        400,
        "invalid_request",
      );
      const { results } = await env.DB.prepare(
        "SELECT actor, action, detail FROM cabinet_audit_log WHERE partner_id = ? AND action LIKE 'webhook.%' ORDER BY id",
      )
        .bind(p.id)
        .all<{ actor: string; action: string; detail: string }>();
      expect(results.map((r) => r.action)).toEqual(["webhook.updated", "webhook.secret_rotated"]);
      expect(results[0]?.actor).toBe(`api key ${p.keyId}`);
      expect(JSON.parse(results[0]?.detail ?? "{}")).toMatchObject({
        mode: "live",
        url: { from: null, to: HOOK },
      });
    });

    it("rotation with overlap: two valid v1= signatures (new first) until the overlap ends, then one", async () => {
      const p = await createPartner();
      const old = await setUp(p);
      const res = await api(p, "/secret", { method: "POST", json: { overlap_seconds: 3600 } });
      const { secret, endpoint } = await json<{
        secret: string;
        endpoint: { previous_secret_expires_at: string };
      }>(res);
      expect(Date.parse(endpoint.previous_secret_expires_at) - Date.now()).toBeGreaterThan(3590_000);
      await json(await api(p, "/test", { method: "POST" }));
      const [during] = net.requests.slice(-1);
      const header = during?.headers.get("x-webhook-signature") ?? "";
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      expect(await validSignatures(during?.body ?? "", header, secret)).toBe(1);
      expect(await validSignatures(during?.body ?? "", header, old)).toBe(1);
      // The docs' verifier accepts with either secret (it checks every v1).
      expect(await verifyWebhook(during?.body ?? "", header, secret)).toBe(true);
      expect(await verifyWebhook(during?.body ?? "", header, old)).toBe(true);
      vi.useFakeTimers({ now: Date.now() + 3601_000, toFake: ["Date"] });
      await json(await api(p, "/test", { method: "POST" }));
      const [after] = net.requests.slice(-1);
      const single = after?.headers.get("x-webhook-signature") ?? "";
      expect(single).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(await validSignatures(after?.body ?? "", single, secret)).toBe(1);
      expect(await validSignatures(after?.body ?? "", single, old)).toBe(0);
    });

    it("the new signature comes first, so a receiver keeping the last v1 still verifies with the old secret", async () => {
      const p = await createPartner();
      const old = await setUp(p);
      const { secret } = await json<{ secret: string }>(
        await api(p, "/secret", { method: "POST", json: { overlap_seconds: 60 } }),
      );
      await json(await api(p, "/test", { method: "POST" }));
      const [req] = net.requests.slice(-1);
      const [t, first, last] = (req?.headers.get("x-webhook-signature") ?? "").split(",");
      expect(await verifyWebhook(req?.body ?? "", `${t},${first}`, secret)).toBe(true);
      expect(await verifyWebhook(req?.body ?? "", `${t},${last}`, old)).toBe(true);
    });
  });

  describe("test event, delivery log and resend", () => {
    it("POST /test sends a signed ping now and records it with its attempt; 409 without an endpoint", async () => {
      const bare = await createPartner();
      await expectError(await api(bare, "/test", { method: "POST" }), 409, "webhook_not_configured");
      const p = await createPartner();
      const secret = await setUp(p);
      const res = await api(p, "/test", { method: "POST" });
      expect(res.status).toBe(201);
      const ping = await json<Delivery>(res);
      expect(ping).toMatchObject({ type: "ping", order_id: null, status: "delivered" });
      expect(ping.attempts).toEqual([
        expect.objectContaining({ trigger: "test", status_code: 200, error: null }),
      ]);
      const [req] = net.requests;
      expect(req?.url).toBe(HOOK);
      expect(req?.headers.get("x-webhook-id")).toBe(ping.event_id);
      expect(JSON.parse(req?.body ?? "")).toMatchObject({ id: ping.event_id, type: "ping" });
      expect(
        await verifyWebhook(req?.body ?? "", req?.headers.get("x-webhook-signature") ?? "", secret),
      ).toBe(true);
      const page = await json<Page>(await api(p, "/deliveries"));
      expect(page.data[0]).toMatchObject({ event_id: ping.event_id, type: "ping" });
    });

    it("a failing endpoint: the attempt shows the status; disabled endpoints refuse test events", async () => {
      const p = await createPartner();
      await setUp(p);
      answer = 503;
      const ping = await json<Delivery>(await api(p, "/test", { method: "POST" }));
      expect(ping.status).toBe("failed");
      expect(ping.attempts[0]).toMatchObject({ status_code: 503, error: "HTTP 503" });
      await api(p, "", { method: "PUT", json: { enabled: false } });
      await expectError(await api(p, "/test", { method: "POST" }), 409, "webhook_not_configured");
    });

    it("resend: a new attempt now with the same body and event id and a fresh valid signature", async () => {
      const p = await createPartner();
      const secret = await setUp(p);
      answer = 500;
      const eventId = await orderEvent(p, net);
      const first = net.requests.at(-1);
      answer = 200;
      vi.useFakeTimers({ now: Date.now() + 5_000, toFake: ["Date"] });
      const res = await api(p, `/deliveries/${eventId}/resend`, { method: "POST" });
      expect(res.status).toBe(200);
      const d = await json<Delivery>(res);
      expect(d).toMatchObject({ event_id: eventId, status: "delivered" });
      expect(d.attempts.map((a) => [a.trigger, a.status_code])).toEqual([
        ["automatic", 500],
        ["resend", 200],
      ]);
      const again = net.requests.at(-1);
      expect(again?.body).toBe(first?.body);
      expect(again?.headers.get("x-webhook-id")).toBe(eventId);
      const sig = again?.headers.get("x-webhook-signature") ?? "";
      expect(sig).not.toBe(first?.headers.get("x-webhook-signature"));
      expect(await verifyWebhook(again?.body ?? "", sig, secret)).toBe(true);
      const audit = await env.DB.prepare(
        "SELECT target FROM cabinet_audit_log WHERE partner_id = ? AND action = 'webhook.resent'",
      )
        .bind(p.id)
        .first<{ target: string }>();
      expect(audit?.target).toBe(eventId);
    });

    it("another partner's event id is 404, as is a malformed one", async () => {
      const p = await createPartner();
      await setUp(p);
      const eventId = await orderEvent(p, net);
      const other = await createPartner({ name: "other" });
      await setUp(other);
      await expectError(
        await api(other, `/deliveries/${eventId}/resend`, { method: "POST" }),
        404,
        "event_not_found",
      );
      await expectError(
        await api(other, "/deliveries/evt_nope/resend", { method: "POST" }),
        404,
        "event_not_found",
      );
      expect((await json<Page>(await api(other, "/deliveries"))).data).toEqual([]);
    });

    it("lists newest first with status and order filters and keyset paging", async () => {
      const p = await createPartner();
      await setUp(p);
      const order = crypto.randomUUID();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        answer = i === 2 ? 500 : 200;
        vi.useFakeTimers({ now: Date.parse("2026-11-23T10:00:00Z") + i * 1000, toFake: ["Date"] });
        ids.push(await orderEvent(p, net, i < 2 ? order : undefined));
      }
      vi.useRealTimers();
      const newestFirst = [...ids].reverse();
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const qs: string = cursor ? `?limit=2&cursor=${cursor}` : "?limit=2";
        const page: Page = await json<Page>(await api(p, `/deliveries${qs}`));
        expect(page.data.length).toBeLessThanOrEqual(2);
        seen.push(...page.data.map((d) => d.event_id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(newestFirst);
      const pending = await json<Page>(await api(p, "/deliveries?status=pending"));
      expect(pending.data.map((d) => d.event_id)).toEqual([ids[2]]);
      expect(pending.data[0]?.attempts[0]).toMatchObject({ trigger: "automatic", status_code: 500 });
      const byOrder = await json<Page>(await api(p, `/deliveries?order_id=${order}`));
      expect(byOrder.data.map((d) => d.event_id)).toEqual([ids[1], ids[0]]);
      await expectError(await api(p, "/deliveries?cursor=garbage"), 400, "invalid_cursor");
      await expectError(await api(p, "/deliveries?status=lost"), 400, "invalid_request");
      await expectError(await api(p, "/deliveries?limit=101"), 400, "invalid_request");
    });

    it("a stored URL that breaks the rules is refused at delivery time, not called", async () => {
      const p = await createPartner();
      await setUp(p);
      await env.DB.prepare("UPDATE webhook_endpoints SET url = 'https://10.0.0.1/h' WHERE partner_id = ?")
        .bind(p.id)
        .run();
      const ping = await json<Delivery>(await api(p, "/test", { method: "POST" }));
      expect(ping.status).toBe("failed");
      expect(ping.attempts[0]?.error).toMatch(/^URL refused: .*IP address \(private\)/);
      expect(net.requests).toEqual([]);
    });

    it("redirects are not followed: a 3xx is a failed attempt", async () => {
      const p = await createPartner();
      await setUp(p);
      net.use(
        http.post(
          HOOK,
          () => new HttpResponse(null, { status: 307, headers: { location: "http://10.0.0.1/" } }),
        ),
      );
      const ping = await json<Delivery>(await api(p, "/test", { method: "POST" }));
      expect(ping.attempts[0]).toMatchObject({ status_code: 307, error: "HTTP 307" });
      expect(net.requests.map((r) => r.url)).toEqual([HOOK]);
    });
  });

  describe("the event browser's attempt details", () => {
    it("an attempt keeps the headers sent (signature cut after 8 characters), the answer's first 2 KB and its duration", async () => {
      const p = await createPartner();
      const secret = await setUp(p);
      // 1 + 2 × 1100 bytes: the kept 2 KB end before the "é" the limit would cut in half.
      const answer = `x${"é".repeat(1100)}`;
      net.use(
        http.post(HOOK, async () => {
          await delay(120);
          return new HttpResponse(answer, { status: 422 });
        }),
      );
      const eventId = await orderEvent(p, net);
      const sent = net.requests.at(-1)?.headers.get("x-webhook-signature") ?? "";
      expect(sent).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const [d] = (await json<Page>(await api(p, "/deliveries"))).data;
      expect(d?.event_id).toBe(eventId);
      const [a] = d?.attempts ?? [];
      expect(a).toMatchObject({
        trigger: "automatic",
        status_code: 422,
        error: "HTTP 422",
        request_headers: {
          "content-type": "application/json",
          "user-agent": "swap-partner-api-webhooks/1",
          "x-webhook-signature": `${sent.slice(0, 8)}…`,
          "x-webhook-id": eventId,
        },
        response_body: `x${"é".repeat(1023)}`,
        response_body_truncated: true,
      });
      expect(new TextEncoder().encode(a?.response_body ?? "").byteLength).toBe(2047);
      expect(a?.duration_ms).toBeGreaterThanOrEqual(120);
      // Neither the signature nor the secret is stored anywhere in the attempt.
      const row = await env.DB.prepare("SELECT * FROM webhook_attempts WHERE event_id = ?")
        .bind(eventId)
        .first<Record<string, unknown>>();
      const stored = JSON.stringify(row);
      expect(stored).not.toContain(sent.slice(8, 40));
      expect(stored).not.toContain(secret.slice(6));
      expect(String(row?.response_body).length).toBe(1024);
    });

    it("a short answer is kept whole; a refused URL records nothing sent", async () => {
      const p = await createPartner();
      await setUp(p);
      net.use(http.post(HOOK, () => HttpResponse.json({ received: true })));
      const ping = await json<Delivery>(await api(p, "/test", { method: "POST" }));
      expect(ping.attempts[0]).toMatchObject({
        status_code: 200,
        response_body: '{"received":true}',
        response_body_truncated: false,
      });
      await env.DB.prepare("UPDATE webhook_endpoints SET url = 'https://10.0.0.1/h' WHERE partner_id = ?")
        .bind(p.id)
        .run();
      const refused = await json<Delivery>(await api(p, "/test", { method: "POST" }));
      expect(refused.attempts[0]).toMatchObject({ request_headers: null, response_body: null });
    });

    it("filters by event type and by order id or short_id (any case); anything else is a 400", async () => {
      const p = await createPartner();
      await setUp(p);
      const shortId = "ABCDEFGH12";
      const order = orderIdOf(shortId);
      const mine = await orderEvent(p, net, order);
      const other = await orderEvent(p, net);
      const ping = (await json<Delivery>(await api(p, "/test", { method: "POST" }))).event_id;
      const ids = async (qs: string) =>
        (await json<Page>(await api(p, `/deliveries?${qs}`))).data.map((d) => d.event_id);
      expect(await ids("type=ping")).toEqual([ping]);
      // Both made within the same millisecond, perhaps: compared as a set.
      expect((await ids("type=order.status_changed")).sort()).toEqual([other, mine].sort());
      expect(await ids(`order_id=${shortId.toLowerCase()}`)).toEqual([mine]);
      expect(await ids(`order_id=${order}`)).toEqual([mine]);
      expect(await ids(`order_id=${shortId}&type=ping`)).toEqual([]);
      await expectError(await api(p, "/deliveries?order_id=nope"), 400, "invalid_request");
      await expectError(await api(p, "/deliveries?type=order.created"), 400, "invalid_request");
    });
  });
});
