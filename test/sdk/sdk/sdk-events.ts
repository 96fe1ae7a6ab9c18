import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createClient } from "../../../sdk/src/index";
import { admin, createPartner, freshIp, setPrices } from "../../helpers";
import { BTC_TO_USDT } from "../../support/orders";

/**
 * The Worker as the SDK's fetch; the first event stream it opens is cut right after its first
 * event, as a dropped connection would be. Every stream request is recorded.
 */
function droppingFetch(streams: Request[]): typeof fetch {
  const ip = freshIp();
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    headers.set("cf-connecting-ip", ip);
    const res = await exports.default.fetch(new Request(request, { headers }));
    if (!request.url.includes("/events")) return res;
    streams.push(request);
    if (streams.length > 1 || !res.body) return res;
    const reader = res.body.getReader();
    let text = "";
    const cut = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        controller.enqueue(value);
        text += new TextDecoder().decode(value);
        if (text.includes("id: ")) {
          await reader.cancel();
          controller.error(new Error("connection dropped"));
        }
      },
    });
    return new Response(cut, res);
  }) as typeof fetch;
}

describe("SDK event streams", () => {
  it("orders.events reconnects after a drop and resumes with Last-Event-ID: every event once, in order, then ends", async () => {
    await setPrices();
    const p = await createPartner();
    const keyRes = await admin(`/partners/${p.id}/keys`, { method: "POST", json: { mode: "test" } });
    const apiKey = (await keyRes.json<{ key: string }>()).key;
    const streams: Request[] = [];
    const client = createClient({ baseUrl: "http://localhost", apiKey, fetch: droppingFetch(streams) });
    const order = await client.createOrder({ ...BTC_TO_USDT, rate_type: "float" });
    await client.test.deposit(order.id);

    const seen: string[] = [];
    for await (const e of client.orders.events(order.id, { reconnectMs: 0 })) {
      seen.push(e.id);
      // The first connection has dropped: the rest of the order happens while nobody listens.
      if (seen.length === 1) await client.test.confirm(order.id);
    }
    const all = (await env.ORDERS.getByName(order.id).webhookEvents()).map((e) => e.event_id);
    expect(seen).toEqual(all);
    expect(streams).toHaveLength(2);
    expect(streams[1]?.headers.get("last-event-id")).toBe(all[0]);

    // The partner's stream from the first event on: the rest of the order, typed.
    const partnerEvents = client.events({
      lastEventId: all[0],
      type: ["order.status_changed"],
      reconnectMs: 0,
    });
    const rest: string[] = [];
    for await (const e of partnerEvents) {
      expect(e.data.data.order.id).toBe(order.id);
      rest.push(e.id);
      if (rest.length === all.length - 1) break;
    }
    expect(rest).toEqual(all.slice(1));
  });
});
