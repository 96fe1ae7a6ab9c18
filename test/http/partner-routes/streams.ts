// Live order events (docs/events.md): the order stream, the partner stream and the keyless one,
// over SSE and WebSocket, with resume, finish, filters, masking and connection limits.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { getConfig } from "../../../src/config";
import { type StreamSubscription, streamOpenRequest, WS_RECONNECT } from "../../../src/domain/streams";
import { orderContext } from "../../../src/objects/order/context";
import { DUE, OrderSchedule } from "../../../src/objects/order/schedule";
import { StreamHub } from "../../../src/objects/stream-hub";
import {
  admin,
  call,
  createPartner,
  expectError,
  freshIp,
  json,
  setPrices,
  type TestPartner,
} from "../../helpers";
import { BTC_TO_USDT, createOrder, type Order } from "../../support/orders";
import { SseReader } from "../../support/streams";

describe("streams", () => {
  let partner: TestPartner;
  let testKey: string;

  beforeAll(async () => {
    await setPrices();
    partner = await createPartner();
    const res = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { mode: "test" } });
    testKey = (await json<{ key: string }>(res)).key;
  });

  const keyed = (key: string, headers: Record<string, string> = {}) => ({
    headers: { Authorization: `Bearer ${key}`, ...headers },
  });

  async function testOrder(): Promise<Order> {
    return createOrder({ ...partner, key: testKey }, BTC_TO_USDT);
  }

  /** A test helper on a test order (docs/test-mode.md): deposit, confirm, … */
  async function drive(orderId: string, helper: string): Promise<void> {
    const res = await call(`/api/v1/partner/test/orders/${orderId}/${helper}`, {
      method: "POST",
      ...keyed(testKey, { "content-type": "application/json" }),
      body: "{}",
    });
    expect(res.status).toBe(200);
  }

  /** The order's webhook events, as its outbox holds them: the ids every stream must carry, in order. */
  async function webhookIds(orderId: string): Promise<string[]> {
    return (await env.ORDERS.getByName(orderId).webhookEvents()).map((e) => e.event_id);
  }

  const orderStream = (orderId: string, headers: Record<string, string> = {}, query = "") =>
    call(`/api/v1/partner/orders/${orderId}/events${query}`, keyed(testKey, headers));

  describe("an order's stream", () => {
    it("replays what happened while disconnected after Last-Event-ID, then closes once the order is finished", async () => {
      const o = await testOrder();
      await drive(o.id, "deposit");
      const first = new SseReader(await orderStream(o.id));
      const [seen] = await first.take(1);
      expect(seen?.event).toBe("order.status_changed");
      const body = JSON.parse(seen?.data ?? "") as { id: string; data: { order: { status: string } } };
      expect(body.id).toBe(seen?.id);
      expect(body.data.order.status).toBe("confirming");
      await first.close();

      // Exchanged, sent and completed while nobody listened.
      await drive(o.id, "confirm");
      const all = await webhookIds(o.id);
      expect(all.length).toBeGreaterThan(2);
      expect(all[0]).toBe(seen?.id);

      const resumed = new SseReader(await orderStream(o.id, { "Last-Event-ID": seen?.id ?? "" }));
      const rest = await resumed.rest();
      expect(rest.map((e) => e.id)).toEqual(all.slice(1));
      expect(JSON.parse(rest.at(-1)?.data ?? "").data.order.status).toBe("completed");
      expect(resumed.ended).toBe(true);
    });

    it("sends each event once: the replay, then live events, without repeating the replay", async () => {
      const o = await testOrder();
      await drive(o.id, "deposit");
      const stream = new SseReader(await orderStream(o.id));
      const [replayed] = await stream.take(1);
      await drive(o.id, "confirm");
      const live = await stream.rest();
      const ids = [replayed?.id, ...live.map((e) => e.id)];
      expect(ids).toEqual(await webhookIds(o.id));
    });

    it("resumes from ?last_event_id= too, and refuses an id the order does not have", async () => {
      const o = await testOrder();
      await drive(o.id, "deposit");
      await drive(o.id, "confirm");
      const all = await webhookIds(o.id);
      const resumed = new SseReader(await orderStream(o.id, {}, `?last_event_id=${all[1]}`));
      expect((await resumed.rest()).map((e) => e.id)).toEqual(all.slice(2));
      await expectError(
        await orderStream(o.id, {}, `?last_event_id=evt_${"0".repeat(32)}`),
        404,
        "event_not_found",
      );
      await expectError(await orderStream(o.id, {}, "?last_event_id=nonsense"), 400, "invalid_request");
    });

    it("carries the partner's events only, not the outbox's push to Ledger of a Ledger swap", async () => {
      const o = await testOrder();
      await drive(o.id, "deposit");
      const stub = env.ORDERS.getByName(o.id);
      await runInDurableObject(stub, (_obj, state) => {
        const c = orderContext(state.storage, env);
        const r = c.record();
        if (!r) throw new Error("no order");
        // As a /ledger/v2 swap's change writes it (a late deposit: EXPIRED → PENDING for Ledger): its
        // event, and Ledger's status push beside it.
        const at = new Date().toISOString();
        state.storage.transactionSync(() => c.outbox.enqueue({ ...r, ledgerSwap: true }, "expired", at));
        // And a later event, which must come right after the first two.
        state.storage.transactionSync(() => c.outbox.enqueue(r, "waiting_deposit", at));
      });
      const entries = await stub.webhookEvents();
      expect(entries.some((e) => e.message.type !== "order.status_changed")).toBe(true);
      const stream = new SseReader(await orderStream(o.id));
      const events = await stream.take(3);
      await stream.close();
      expect(events.map((e) => e.id)).toEqual(
        entries.filter((e) => e.message.type === "order.status_changed").map((e) => e.event_id),
      );
    });

    it("is the order's partner's only, in the key's mode", async () => {
      const o = await testOrder();
      const other = await createPartner();
      await expectError(
        await call(`/api/v1/partner/orders/${o.id}/events`, keyed(other.key)),
        404,
        "order_not_found",
      );
      // A live key of the same partner does not see its test orders.
      await expectError(
        await call(`/api/v1/partner/orders/${o.id}/events`, keyed(partner.key)),
        404,
        "order_not_found",
      );
    });
  });

  describe("the keyless order stream", () => {
    it("serves the status API's fields at each change, at the status_url's /events", async () => {
      const o = await testOrder();
      await drive(o.id, "deposit");
      const url = new URL(o.status_url.replace(/\/status$/, "/events"));
      const res = await call(url.pathname, { headers: { Origin: "https://wallet.example" } });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const stream = new SseReader(res);
      const [event] = await stream.take(1);
      await stream.close();
      const status = await json<Record<string, unknown>>(await call(new URL(o.status_url).pathname));
      const data = JSON.parse(event?.data ?? "") as Record<string, unknown>;
      expect(Object.keys(data).sort()).toEqual(Object.keys(status).sort());
      expect(data.status).toBe("confirming");
      expect(data.recipient_address).toBe(status.recipient_address);
      expect(data.recipient_address).not.toBe(BTC_TO_USDT.recipient_address);
      // The UUID without its token opens nothing.
      await expectError(await call(`/api/v1/orders/${o.id}/events`), 404, "order_not_found");
    });
  });

  /** Collects a WebSocket's frames and its close. */
  async function socket(res: Response): Promise<{
    frames: { id: string; event: string; data: { data: { order: { status: string } } } }[];
    closed: Promise<{ code: number; reason: string }>;
  }> {
    expect(res.status).toBe(101);
    const ws = res.webSocket;
    if (!ws) throw new Error("no WebSocket");
    const frames: { id: string; event: string; data: { data: { order: { status: string } } } }[] = [];
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })),
    );
    ws.addEventListener("message", (m) => {
      frames.push(JSON.parse(String(m.data)));
    });
    ws.accept();
    return { frames, closed };
  }

  describe("the WebSocket of the same stream", () => {
    it("carries the same events, resumes after last_event_id and closes when the order is finished", async () => {
      const o = await testOrder();
      await drive(o.id, "deposit");
      await drive(o.id, "confirm");
      const all = await webhookIds(o.id);
      const whole = await socket(await orderStream(o.id, { Upgrade: "websocket" }));
      expect((await whole.closed).code).toBe(1000);
      expect(whole.frames.map((f) => f.id)).toEqual(all);
      expect(whole.frames.at(-1)?.data.data.order.status).toBe("completed");
      const resumed = await socket(
        await orderStream(o.id, { Upgrade: "websocket" }, `?last_event_id=${all[0]}`),
      );
      await resumed.closed;
      expect(resumed.frames.map((f) => f.id)).toEqual(all.slice(1));
    });
  });

  describe("a partner's stream", () => {
    const partnerStream = (key: string, query = "", headers: Record<string, string> = {}) =>
      call(`/api/v1/partner/events${query}`, keyed(key, headers));

    it("carries every order's events of the key's mode, live, and resumes from an event id", async () => {
      const live = new SseReader(await partnerStream(testKey, "?type=order.status_changed&mode=test"));
      const a = await testOrder();
      const b = await testOrder();
      await drive(a.id, "deposit");
      await drive(b.id, "deposit");
      const [ea, eb] = await live.take(2);
      expect([ea?.id, eb?.id]).toEqual([...(await webhookIds(a.id)), ...(await webhookIds(b.id))]);
      expect(ea?.data).toBe((await env.ORDERS.getByName(a.id).webhookEvents())[0]?.message.body);
      await live.close();

      await drive(a.id, "confirm");
      const resumed = new SseReader(await partnerStream(testKey, "", { "Last-Event-ID": eb?.id ?? "" }));
      const after = (await webhookIds(a.id)).slice(1);
      expect((await resumed.take(after.length)).map((e) => e.id)).toEqual(after);
      await resumed.close();

      // The live key's stream is another log: the test order's events are not in it.
      await expectError(await partnerStream(partner.key, `?last_event_id=${eb?.id}`), 404, "event_not_found");
      await expectError(await partnerStream(testKey, "?mode=live"), 400, "invalid_request");
      await expectError(await partnerStream(testKey, "?type=order.created"), 400, "invalid_request");
    });

    it("sends only the asked types, and an event fed twice once", async () => {
      const name = `${partner.id}:test`;
      const log = env.PARTNER_EVENTS.getByName(name);
      const stream = new SseReader(
        await log.fetch(
          streamOpenRequest({
            view: "partner",
            types: ["order.status_changed"],
            lastEventId: null,
            leases: [],
            websocket: false,
          }),
        ),
      );
      const message = (type: string) => {
        const id = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
        return {
          event_id: id,
          partner_id: partner.id,
          mode: "test" as const,
          order_id: crypto.randomUUID(),
          sequence: 1,
          type,
          created_at: new Date().toISOString(),
          body: JSON.stringify({ id, type }),
        };
      };
      const [first, ping, second] = [
        message("order.status_changed"),
        message("ping"),
        message("order.status_changed"),
      ];
      await log.append([first, ping]);
      // The order's retry of a call whose answer it lost: the same event again, then a new one.
      await log.append([first, second]);
      expect((await stream.take(2)).map((e) => e.id)).toEqual([first.event_id, second.event_id]);
      await stream.close();
    });
  });

  describe("heartbeats and the longest connection", () => {
    it("sends a heartbeat comment every interval and closes the connection at its longest time", async () => {
      await runInDurableObject(env.PARTNER_EVENTS.getByName("hub-timing"), async (_obj, state) => {
        const hub = new StreamHub(
          state,
          { since: () => [], cursorOf: () => null, start: () => 0, finished: () => false },
          { heartbeatMs: 10, maxConnectionMs: 300, release: async () => {}, wakeBy: async () => {} },
        );
        const res = await hub.open(
          streamOpenRequest({
            view: "partner",
            types: null,
            lastEventId: null,
            leases: [],
            websocket: false,
          }),
        );
        const started = Date.now();
        const text = await res.text(); // ends only when the server closes it
        expect(Date.now() - started).toBeLessThan(2000);
        expect(text.startsWith("retry: 1000\n\n")).toBe(true);
        // At least one: workerd's clock moves at I/O, so ticks that fall due together run once.
        expect(text.split(": heartbeat\n\n").length - 1).toBeGreaterThanOrEqual(1);
      });
    });
  });

  describe("an idle WebSocket at its longest connection time", () => {
    const maxMs = getConfig(env).STREAM_MAX_CONNECTION_SECONDS * 1000;

    /** The object's sockets, oldest first, each with its subscription. */
    const sockets = (state: DurableObjectState) =>
      state
        .getWebSockets()
        .map((ws) => ({ ws, sub: ws.deserializeAttachment() as StreamSubscription }))
        .sort((a, b) => a.sub.openedAt - b.sub.openedAt);

    /** Makes the object's first socket as old as its longest connection time (instead of waiting 15 min). */
    const age = (state: DurableObjectState) => {
      const [first] = sockets(state);
      first?.ws.serializeAttachment({ ...first.sub, openedAt: first.sub.openedAt - maxMs });
    };

    /** The close a socket got within 2 s, or null. */
    const closedSoon = (s: { closed: Promise<{ code: number; reason: string }> }) =>
      Promise.race([s.closed, new Promise<null>((r) => setTimeout(() => r(null), 2000))]);

    it("is closed by the partner stream's alarm, with no event or message, the younger one kept", async () => {
      const res = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { mode: "test" } });
      const key = (await json<{ key: string }>(res)).key;
      const open = () => call("/api/v1/partner/events", keyed(key, { Upgrade: "websocket" }));
      const clients = [await socket(await open()), await socket(await open())];
      const stub = env.PARTNER_EVENTS.getByName(`${partner.id}:test`);
      await runInDurableObject(stub, async (_obj, state) => {
        const [first] = sockets(state);
        expect(await state.storage.getAlarm()).toBe((first?.sub.openedAt ?? 0) + maxMs);
        age(state);
      });
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      expect(await closedSoon({ closed: Promise.race(clients.map((c) => c.closed)) })).toEqual(WS_RECONNECT);
      await runInDurableObject(stub, async (_obj, state) => {
        const left = sockets(state).filter((s) => s.ws.readyState === WebSocket.OPEN);
        expect(left.length).toBe(1);
        // Armed again, for the one left.
        expect(await state.storage.getAlarm()).toBe((left[0]?.sub.openedAt ?? 0) + maxMs);
      });
      expect(clients.flatMap((c) => c.frames)).toEqual([]);
    });

    it("is closed by the order's alarm, with no event or message", async () => {
      const o = await testOrder();
      const s = await socket(
        await call(new URL(o.status_url.replace(/\/status$/, "/events")).pathname, {
          headers: { Upgrade: "websocket" },
        }),
      );
      const stub = env.ORDERS.getByName(o.id);
      await runInDurableObject(stub, (_obj, state) => {
        // The order's schedule holds the socket's end (its poll alone would wake it sooner here).
        const [first] = sockets(state);
        expect(new OrderSchedule(state.storage.sql).get(DUE.streams)).toBe(
          (first?.sub.openedAt ?? 0) + maxMs,
        );
        age(state);
      });
      await runDurableObjectAlarm(stub);
      expect(await closedSoon(s)).toEqual(WS_RECONNECT);
    });
  });

  describe("connection limits", () => {
    it("answers 429 with Retry-After past the open streams one IP may hold", async () => {
      const o = await testOrder();
      const path = new URL(o.status_url.replace(/\/status$/, "/events")).pathname;
      const ip = { "cf-connecting-ip": freshIp() };
      const open: SseReader[] = [];
      for (let i = 0; i < getConfig(env).STREAM_CONNECTIONS_PER_IP; i++)
        open.push(new SseReader(await call(path, { headers: ip })));
      const refused = await call(path, { headers: ip });
      await expectError(refused, 429, "rate_limited");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another address is not held back.
      new SseReader(await call(path));
      for (const s of open) await s.close();
    });

    it("counts a server key's streams against the key, from any address", async () => {
      const res = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { mode: "test" } });
      const key = (await json<{ key: string }>(res)).key;
      const open: SseReader[] = [];
      for (let i = 0; i < getConfig(env).STREAM_CONNECTIONS_PER_KEY; i++)
        open.push(new SseReader(await call("/api/v1/partner/events", keyed(key))));
      await expectError(await call("/api/v1/partner/events", keyed(key)), 429, "rate_limited");
      // A closed stream gives its slot back.
      await open.pop()?.close();
      await expect
        .poll(
          async () => {
            const again = await call("/api/v1/partner/events", keyed(key));
            await again.body?.cancel();
            return again.status;
          },
          { timeout: 5000 },
        )
        .toBe(200);
      for (const s of open) await s.close();
    });
  });
});
