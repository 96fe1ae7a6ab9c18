import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HitLog, slidingWindowHit } from "../../src/domain/rate-limit";
import { call, createPartner, expectError } from "../helpers";

const ORDER = "/api/v1/partner/orders/00000000-0000-4000-8000-000000000000";

describe("rate limiting", () => {
  it("the 61st public request within a minute from one IP gets 429 with headers; another IP does not", async () => {
    const ip = "203.0.113.7";
    for (let i = 1; i <= 60; i++) {
      const res = await call("/api/v1/currencies", { headers: { "CF-Connecting-IP": ip } });
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBe("60");
      expect(res.headers.get("ratelimit-remaining")).toBe(String(60 - i));
      // The IETF draft's pair carries the same figures (the three above are deprecated, still sent).
      expect(res.headers.get("ratelimit-policy")).toBe('"ip";q=60;w=60');
      expect(res.headers.get("ratelimit")).toBe(`"ip";r=${60 - i};t=${res.headers.get("ratelimit-reset")}`);
      await res.arrayBuffer();
    }
    const limited = await call("/api/v1/currencies", { headers: { "CF-Connecting-IP": ip } });
    const body = await expectError(limited, 429, "rate_limited");
    expect(body.detail).toMatch(/60 requests per minute/);
    const retry = Number(limited.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(limited.headers.get("ratelimit-limit")).toBe("60");
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(limited.headers.get("ratelimit-reset"))).toBe(retry);
    expect(limited.headers.get("ratelimit")).toBe(`"ip";r=0;t=${retry}`);

    const other = await call("/api/v1/currencies", { headers: { "CF-Connecting-IP": "203.0.113.8" } });
    expect(other.status).toBe(200);
  });

  it("unauthenticated requests to order endpoints count against the IP", async () => {
    const ip = "203.0.113.9";
    for (let i = 0; i < 60; i++) {
      const r = await call(ORDER, { headers: { "CF-Connecting-IP": ip } });
      expect(r.status).toBe(401);
    }
    await expectError(await call(ORDER, { headers: { "CF-Connecting-IP": ip } }), 429, "rate_limited");
  });

  it("per partner: its own limit, independent of other partners and of the IP", async () => {
    const a = await createPartner({ name: "a", rate_limit_per_minute: 5 });
    const b = await createPartner({ name: "b", rate_limit_per_minute: 5 });
    const ip = "203.0.113.10";
    for (let i = 0; i < 5; i++) {
      const r = await call(ORDER, { headers: { "X-API-Key": a.key, "CF-Connecting-IP": ip } });
      expect(r.status).toBe(404);
      expect(r.headers.get("ratelimit-limit")).toBe("5");
      expect(r.headers.get("ratelimit-policy")).toBe('"partner";q=5;w=60');
      expect(r.headers.get("ratelimit")).toMatch(new RegExp(`^"partner";r=${4 - i};t=\\d+$`));
    }
    const limited = await call(ORDER, { headers: { "X-API-Key": a.key, "CF-Connecting-IP": ip } });
    await expectError(limited, 429, "rate_limited");
    expect(limited.headers.get("retry-after")).toBeTruthy();
    // Partner b, from the same IP, is unaffected.
    expect((await call(ORDER, { headers: { "X-API-Key": b.key, "CF-Connecting-IP": ip } })).status).toBe(404);
    // The IP's public budget is untouched by partner traffic.
    const pub = await call("/api/v1/currencies", { headers: { "CF-Connecting-IP": ip } });
    expect(pub.headers.get("ratelimit-remaining")).toBe("59");
  });

  it("each request to /partner/orders itself counts once, like every other route", async () => {
    const p = await createPartner({ name: "lister", rate_limit_per_minute: 4 });
    for (let i = 1; i <= 4; i++) {
      const r = await call("/api/v1/partner/orders", { headers: { "X-API-Key": p.key } });
      expect(r.status, `request ${i}`).toBe(200);
      expect(r.headers.get("ratelimit-remaining")).toBe(String(4 - i));
      await r.arrayBuffer();
    }
    await expectError(
      await call("/api/v1/partner/orders", { headers: { "X-API-Key": p.key } }),
      429,
      "rate_limited",
    );
  });

  it("20 concurrent requests near a partner's limit: exactly the limit passes, with truthful headers", async () => {
    const p = await createPartner({ name: "burst", rate_limit_per_minute: 100 });
    const get = () => call(ORDER, { headers: { "X-API-Key": p.key } });
    for (let i = 1; i <= 85; i++) {
      const r = await get();
      expect(r.status, `request ${i}`).toBe(404);
      expect(r.headers.get("ratelimit-remaining")).toBe(String(100 - i));
      await r.arrayBuffer();
    }
    const burst = await Promise.all(Array.from({ length: 20 }, get));
    const passed = burst.filter((r) => r.status === 404);
    const limited = burst.filter((r) => r.status === 429);
    expect([passed.length, limited.length]).toEqual([15, 5]);
    // Each pass reports room left that is no more than the truth at its time (0..14).
    const remaining = passed.map((r) => Number(r.headers.get("ratelimit-remaining")));
    expect(remaining.every((n) => n >= 0 && n <= 14)).toBe(true);
    expect(remaining).toContain(0);
    for (const r of limited) expect(r.headers.get("ratelimit-remaining")).toBe("0");
    await Promise.all(burst.map((r) => r.arrayBuffer()));
    await expectError(await get(), 429, "rate_limited");
  });

  it("20 concurrent connections against 300/minute: the limit holds exactly", async () => {
    const p = await createPartner({ name: "soak", rate_limit_per_minute: 300 });
    let passed = 0;
    let limited = 0;
    const connection = async () => {
      for (let i = 0; i < 18; i++) {
        const r = await call(ORDER, { headers: { "X-API-Key": p.key } });
        if (r.status === 404) passed++;
        else if (r.status === 429) limited++;
        await r.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 20 }, connection));
    expect([passed, limited]).toEqual([300, 60]);
  });

  it("an evicted bucket object: requests go on, and counting restarts from what the object relearns", async () => {
    const ip = "203.0.113.77";
    const get = () => call("/api/v1/currencies", { headers: { "CF-Connecting-IP": ip } });
    for (let i = 0; i < 30; i++) expect((await get()).status).toBe(200);
    await evictDurableObject(env.RATE_LIMITER.getByName(`ip:${ip}`));
    let after = 0;
    for (;;) {
      const r = await get();
      await r.arrayBuffer();
      if (r.status === 429) break;
      expect(r.status).toBe(200);
      after++;
    }
    // Slots spent from reported leases are relearned; what only the evicted object held is lost,
    // so the minute may let through up to 60 more (docs/auth-and-limits.md), never fewer than 30.
    expect(after).toBeGreaterThanOrEqual(30);
    expect(after).toBeLessThanOrEqual(60);
  });

  it("a partner gets the default 600/minute unless configured", async () => {
    const p = await createPartner();
    const r = await call(ORDER, { headers: { "X-API-Key": p.key } });
    expect(r.headers.get("ratelimit-limit")).toBe("600");
  });
});

describe("sliding window (unit)", () => {
  it("allows exactly `limit` per window and frees slots as they age out", () => {
    const hits = new HitLog();
    for (let i = 0; i < 3; i++) expect(slidingWindowHit(hits, 3, 1000 + i * 10).allowed).toBe(true);
    const denied = slidingWindowHit(hits, 3, 30_000);
    expect(denied).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 31 });
    // The first hit (t=1000) leaves the window at t=61000.
    expect(slidingWindowHit(hits, 3, 60_999).allowed).toBe(false);
    expect(slidingWindowHit(hits, 3, 61_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect([hits.at(0), hits.at(1), hits.at(2), hits.size]).toEqual([1010, 1020, 61_000, 3]);
  });

  it("a boundary burst cannot double the rate (unlike fixed windows)", () => {
    const hits = new HitLog();
    let allowed = 0;
    for (let t = 59_000; t < 61_000; t += 10) if (slidingWindowHit(hits, 60, t).allowed) allowed++;
    expect(allowed).toBe(60);
  });

  it("a lowered limit takes effect immediately", () => {
    const hits = new HitLog();
    for (let t = 1; t <= 5; t++) hits.add(t, 1);
    expect(slidingWindowHit(hits, 2, 100).allowed).toBe(false);
  });

  it("stays exact across compactions of a long log", () => {
    const hits = new HitLog();
    // 100 requests a second (6,000 a minute) for 5 minutes against a limit of 6,000: all allowed,
    // and the log never holds more than one window.
    for (let t = 0; t < 300_000; t += 10) {
      expect(slidingWindowHit(hits, 6_000, t).allowed).toBe(true);
      expect(hits.size).toBeLessThanOrEqual(6_000);
    }
    expect(hits.size).toBe(6_000);
    expect(hits.at(0)).toBe(240_000);
    // 6,000 a minute against 3,000: exactly 3,000 allowed in a minute once the log has filled.
    const dense = new HitLog();
    let allowed = 0;
    for (let t = 0; t < 120_000; t += 10)
      if (slidingWindowHit(dense, 3_000, t).allowed && t >= 60_000) allowed++;
    expect(allowed).toBe(3_000);
  });
});
