// HTTP helpers shared by the bench and soak drivers: admin and partner calls, seeding, bounded
// concurrency, and order creation that honours 429 Retry-After.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A valid float order: 0.01 BTC → USDT on TRON. */
export const ORDER_BODY = Object.freeze({
  coin_from: "BTC",
  network_from: "BTC",
  coin_to: "USDT",
  network_to: "TRX",
  amount_from: 0.01,
  rate_type: "float",
  recipient_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
});

/** USD prices for PRICE_SOURCE=static, one per catalog coin (fixed, so every run quotes the same). */
export const STATIC_PRICES = Object.freeze({
  BTC: "64000",
  ETH: "3100",
  USDT: "1",
  USDC: "1",
  LTC: "80",
  DOGE: "0.15",
  BNB: "580",
  TRX: "0.12",
  SOL: "150",
  XRP: "0.55",
  XLM: "0.11",
  TON: "5.5",
  DASH: "30",
  BCH: "380",
  POL: "0.45",
  AVAX: "35",
  ETC: "25",
  LINK: "15",
});

export class HttpError extends Error {
  constructor(method, path, status, body) {
    super(`${method} ${path} → ${status}: ${typeof body === "string" ? body : JSON.stringify(body)}`);
    this.status = status;
    this.body = body;
  }
}

/**
 * One request; returns { status, headers, body } with body parsed as JSON when it is JSON.
 * Network errors and timeouts throw.
 */
export async function call(baseUrl, method, path, { token, body, headers = {}, timeoutMs = 30_000 } = {}) {
  const h = { accept: "application/json", ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  if (body !== undefined) h["content-type"] = "application/json";
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed = text;
  if ((res.headers.get("content-type") ?? "").includes("json") && text) {
    try {
      parsed = JSON.parse(text);
    } catch {}
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** An admin-API client (`/admin/v1`); every non-2xx answer throws HttpError. */
export function adminClient(baseUrl, token) {
  const req = async (method, path, body) => {
    const r = await call(baseUrl, method, `/admin/v1${path}`, { token, body });
    if (r.status < 200 || r.status > 299) throw new HttpError(method, path, r.status, r.body);
    return r.body;
  };
  return {
    get: (p) => req("GET", p),
    post: (p, b) => req("POST", p, b),
    put: (p, b) => req("PUT", p, b),
    patch: (p, b) => req("PATCH", p, b),
  };
}

/** A partner with its own rate limit and one API key. */
export async function seedPartner(admin, { name, rateLimitPerMinute }) {
  const partner = await admin.post("/partners", { name, rate_limit_per_minute: rateLimitPerMinute });
  const key = await admin.post(`/partners/${partner.id}/keys`);
  return { partnerId: partner.id, key: key.key };
}

/** Runs fn over items with at most `concurrency` in flight; results in input order. */
export async function mapPool(items, concurrency, fn) {
  const out = new Array(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i], i);
    }
  });
  await Promise.all(runners);
  return out;
}

/**
 * Creates one order, retrying a 429 after its Retry-After and a network error or 5xx after a
 * short pause. With an Idempotency-Key the retries can never create a second order.
 * Returns { order, attempts, rateLimited }.
 */
export async function createOrder(
  baseUrl,
  key,
  body,
  { idempotencyKey, maxAttempts = 20, deadline = Number.POSITIVE_INFINITY } = {},
) {
  let rateLimited = 0;
  let lastError;
  for (let attempt = 1; attempt <= maxAttempts && Date.now() < deadline; attempt++) {
    let r;
    try {
      r = await call(baseUrl, "POST", "/api/v1/partner/orders", {
        token: key,
        body,
        headers: idempotencyKey ? { "idempotency-key": idempotencyKey } : {},
      });
    } catch (err) {
      lastError = err;
      await sleep(250 * attempt);
      continue;
    }
    if (r.status === 201) return { order: r.body, attempts: attempt, rateLimited };
    if (r.status === 429) {
      rateLimited++;
      const wait = Number(r.headers.get("retry-after") ?? "1");
      await sleep(Math.max(0.2, Math.min(wait, 60)) * 1000 * (0.5 + Math.random() * 0.5));
      continue;
    }
    lastError = new HttpError("POST", "/api/v1/partner/orders", r.status, r.body);
    // Only a retry-safe request (idempotency key) is retried after a server error.
    if (r.status >= 500 && idempotencyKey) {
      await sleep(250 * attempt);
      continue;
    }
    throw lastError;
  }
  throw lastError ?? new Error("order creation gave up (deadline or attempts)");
}

/** Prints a one-line progress counter at most every `everyMs`. */
export function progress(label, total, everyMs = 5_000) {
  const start = Date.now();
  let last = start;
  let done = 0;
  return {
    tick(n = 1) {
      done += n;
      const now = Date.now();
      if (now - last >= everyMs || done === total) {
        last = now;
        const s = (now - start) / 1000;
        console.log(`  ${label}: ${done}/${total} in ${s.toFixed(0)} s (${(done / s).toFixed(0)}/s)`);
      }
    },
    get done() {
      return done;
    },
    elapsedSeconds: () => (Date.now() - start) / 1000,
  };
}
