import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getConfig } from "../../../src/config";
import { expireWebhookHistory } from "../../../src/services/webhook-delivery";
import { call, createPartner, json } from "../../helpers";

const DAY = 86_400_000;

async function delivery(partnerId: string, eventId: string, status: string, createdAt: string) {
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO webhook_deliveries (event_id, partner_id, mode, order_id, sequence, type, payload, status,
         attempts, window_start, created_at)
       VALUES (?, ?, 'live', NULL, 0, 'ping', '{}', ?, 1, ?, ?)`,
    ).bind(eventId, partnerId, status, createdAt, createdAt),
    env.DB.prepare(
      `INSERT INTO webhook_attempts (event_id, attempted_at, trigger, status_code, error, duration_ms)
       VALUES (?, ?, 'automatic', 500, NULL, 12)`,
    ).bind(eventId, createdAt),
  ]);
}

async function attempts(eventId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_attempts WHERE event_id = ?")
    .bind(eventId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("webhook history retention", () => {
  it("drops final deliveries and their attempts past WEBHOOK_RETENTION_DAYS; keeps recent and pending ones", async () => {
    const p = await createPartner({ name: "retention" });
    const now = Date.now();
    const config = getConfig(env);
    const old = new Date(now - (config.WEBHOOK_RETENTION_DAYS + 1) * DAY).toISOString();
    const recent = new Date(now - (config.WEBHOOK_RETENTION_DAYS - 1) * DAY).toISOString();
    await delivery(p.id, "evt_old_delivered", "delivered", old);
    await delivery(p.id, "evt_old_failed", "failed", old);
    await delivery(p.id, "evt_old_pending", "pending", old); // an operator's retry of an old event
    await delivery(p.id, "evt_recent", "delivered", recent);

    expect(await expireWebhookHistory(env, config, now)).toEqual({ deliveries: 2, attempts: 2 });

    const listed = await json<{ data: { event_id: string }[] }>(
      await call("/api/v1/partner/webhook/deliveries", { headers: { authorization: `Bearer ${p.key}` } }),
    );
    expect(listed.data.map((d) => d.event_id).sort()).toEqual(["evt_old_pending", "evt_recent"]);
    expect(await attempts("evt_old_delivered")).toBe(0);
    expect(await attempts("evt_old_pending")).toBe(1);
    expect(await attempts("evt_recent")).toBe(1);
    // Nothing left to remove: a second run changes nothing.
    expect(await expireWebhookHistory(env, config, now)).toEqual({ deliveries: 0, attempts: 0 });
  });
});
