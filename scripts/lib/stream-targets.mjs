// `npm run soak -- --streams latency|idle|chaos`: the live event streams' targets (docs/events.md,
// docs/performance.md "Live event streams") against a private `wrangler dev`, with test orders that
// the test helpers move.
//
//   latency  N SSE streams (ten per order) open at once; every order moved once; the time from the
//            event's own created_at (the transition's commit) to its arrival; p99 ≤ 100 ms passes.
//   idle     N keyless WebSockets held open on a few orders, workerd's RSS before and after.
//   chaos    N orders to completion, CHAOS_CONCURRENCY at a time, while each one's client drops at
//            random moments and resumes with Last-Event-ID; every client must end with exactly its
//            order's webhook events (the receiver's record of the same run), in sequence, none
//            missing, none twice.

import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import WebSocket from "ws";
import { adminClient, call, createOrder, mapPool, ORDER_BODY, progress } from "./api.mjs";
import { findRuntimePid, findRuntimeUrl, ROOT, startWorker } from "./worker.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TERMINAL = new Set(["completed", "refunded"]);

/** A process's open file descriptors and their limit (Linux /proc), or nulls. */
function descriptors(pid) {
  try {
    const limit = Number(/Max open files\s+(\d+)/.exec(readFileSync(`/proc/${pid}/limits`, "utf8"))?.[1]);
    return { open: readdirSync(`/proc/${pid}/fd`).length, limit };
  } catch {
    return { open: null, limit: null };
  }
}

/** workerd's resident memory in MiB (Linux /proc), or null. */
function rssMiB(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    return Math.round(kb / 1024);
  } catch {
    return null;
  }
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

/**
 * One SSE connection: calls onEvent({id, event, data}) per event; resolves when the server ends
 * the stream or `signal` aborts it (then quietly).
 */
async function readSse(url, { key, lastEventId, signal, onEvent, onOpen }) {
  const headers = { accept: "text/event-stream" };
  if (key) headers.authorization = `Bearer ${key}`;
  if (lastEventId) headers["last-event-id"] = lastEventId;
  let res;
  try {
    res = await fetch(url, { headers, signal });
  } catch (err) {
    if (signal?.aborted) return { aborted: true };
    throw err;
  }
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  onOpen?.();
  const decoder = new TextDecoder();
  let buf = "";
  try {
    for await (const chunk of res.body) {
      buf += decoder.decode(chunk, { stream: true });
      for (let end = buf.indexOf("\n\n"); end >= 0; end = buf.indexOf("\n\n")) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const e = {};
        for (const line of block.split("\n")) {
          const i = line.indexOf(": ");
          if (i > 0) e[line.slice(0, i)] = line.slice(i + 2);
        }
        if (e.id && e.data) onEvent({ id: e.id, event: e.event, data: JSON.parse(e.data) });
      }
    }
  } catch (err) {
    if (signal?.aborted) return { aborted: true };
    throw err;
  }
  return { aborted: false };
}

/**
 * A private wrangler dev with the service's own connection limits (docs/events.md, "Limits"): the
 * targets spread their streams over as many keys or client addresses as those limits ask for,
 * as real clients would be, instead of lifting the limits.
 */
async function setUp(opts, vars = {}) {
  const token = `streams-${crypto.randomUUID()}`;
  const worker = await startWorker({
    stateDir: opts.stateDir,
    port: opts.port,
    vars: { ADMIN_TOKEN: token, ...vars },
  });
  // The runtime's own port: wrangler's proxy would hold a second socket per stream.
  const base = (await findRuntimeUrl(worker.pid)) ?? worker.baseUrl;
  const admin = adminClient(base, token);
  const partner = await admin.post("/partners", { name: "Streams", rate_limit_per_minute: 100_000 });
  const newKey = async () => (await admin.post(`/partners/${partner.id}/keys`, { mode: "test" })).key;
  const key = await newKey();
  console.log(`wrangler dev on ${base} (pid ${worker.pid}, state ${worker.stateDir})`);
  return { worker, base, key, newKey };
}

/** Server keys enough for `n` streams at STREAM_CONNECTIONS_PER_KEY each (the first is `key`). */
async function streamKeys({ key, newKey }, n) {
  const keys = [key];
  while (keys.length * PER_KEY < n) keys.push(await newKey());
  return keys;
}

/** A connection limit's default, read from src/config.ts (wrangler.toml leaves them as they are). */
function defaultLimit(name) {
  const m = new RegExp(`\\b${name}: int\\((\\d+)`).exec(readFileSync(join(ROOT, "src/config.ts"), "utf8"));
  if (!m) throw new Error(`${name}: no default in src/config.ts`);
  return Number(m[1]);
}
const PER_KEY = defaultLimit("STREAM_CONNECTIONS_PER_KEY");
const PER_IP = defaultLimit("STREAM_CONNECTIONS_PER_IP");

/** The client address of keyless connection `i`, PER_IP to an address (198.18.0.0/15: benchmarking). */
const clientIp = (i) => {
  const n = Math.floor(i / PER_IP);
  return `198.18.${(n >> 8) & 255}.${n & 255}`;
};

async function orders(base, key, n) {
  const p = progress("orders created", n);
  return mapPool(Array.from({ length: n }), 8, async () => {
    const { order } = await createOrder(base, key, ORDER_BODY);
    p.tick();
    return order;
  });
}

const helper = async (base, key, id, step) => {
  const r = await call(base, "POST", `/api/v1/partner/test/orders/${id}/${step}`, { token: key, body: {} });
  if (r.status !== 200) throw new Error(`${step} ${id}: ${r.status} ${JSON.stringify(r.body)}`);
};

/** (a) Commit-to-delivery latency at N concurrent streams (ten on each order). */
async function latency(opts) {
  const ctx = await setUp(opts);
  const { worker, base, key } = ctx;
  try {
    const perOrder = 10;
    const list = await orders(base, key, Math.ceil(opts.count / perOrder));
    const keys = await streamKeys(ctx, opts.count);
    const abort = new AbortController();
    const lags = [];
    let open = 0;
    let refused = 0;
    // A connection the busy local runtime drops before answering is opened again.
    const follow = async (url, key) => {
      for (;;) {
        try {
          return await readSse(url, {
            key,
            signal: abort.signal,
            onOpen: () => open++,
            onEvent: (e) => lags.push(Date.now() - Date.parse(e.data.created_at)),
          });
        } catch {
          refused++;
          await sleep(500);
        }
      }
    };
    const streams = Array.from({ length: opts.count }, (_, i) =>
      follow(
        `${base}/api/v1/partner/orders/${list[Math.floor(i / perOrder)].id}/events`,
        keys[Math.floor(i / PER_KEY)],
      ),
    );
    const opening = Date.now() + 120_000;
    while (open < opts.count && Date.now() < opening) await sleep(500);
    console.log(
      `${open} streams open with ${keys.length} keys (${refused} attempts dropped before an answer and retried); moving every order once`,
    );
    await mapPool(list, 4, (o) => helper(base, key, o.id, "deposit"));
    const deadline = Date.now() + 60_000;
    while (lags.length < opts.count && Date.now() < deadline) await sleep(200);
    abort.abort();
    await Promise.allSettled(streams);
    const p99 = quantile(lags, 0.99);
    console.log(
      `latency: ${lags.length}/${opts.count} events at ${opts.count} streams on ${list.length} orders; commit → delivery p50 ${quantile(lags, 0.5)} ms, p95 ${quantile(lags, 0.95)} ms, p99 ${p99} ms, max ${Math.max(...lags)} ms (target p99 ≤ 100 ms)`,
    );
    return lags.length === opts.count && p99 <= 100;
  } finally {
    await worker.stop();
  }
}

/** (b) N idle hibernated WebSockets on one wrangler dev (from N / PER_IP addresses), with workerd's memory. */
async function idle(opts) {
  const { worker, base, key } = await setUp(opts);
  const sockets = [];
  try {
    const perOrder = 100;
    const list = await orders(base, key, Math.ceil(opts.count / perOrder));
    const pid = findRuntimePid(worker.pid);
    await sleep(3_000);
    const before = rssMiB(pid);
    const fds = descriptors(pid);
    // workerd holds two descriptors per accepted WebSocket connection (the socket and a dup() of
    // it), so its RLIMIT_NOFILE bounds how many one runtime can hold.
    if (fds.limit && fds.open + 2 * opts.count > fds.limit)
      console.log(
        `warning: workerd may open ${fds.limit} files and has ${fds.open} open; ${opts.count} WebSockets need about ${2 * opts.count} more (raise the hard limit, ulimit -Hn, to hold them)`,
      );
    const p = progress("websockets open", opts.count);
    const wsBase = base.replace(/^http/, "ws");
    await mapPool(Array.from({ length: opts.count }), 32, async (_, i) => {
      const o = list[Math.floor(i / perOrder)];
      const path = new URL(o.status_url).pathname.replace(/\/status$/, "/events");
      await new Promise((resolve, reject) => {
        // The keyless stream's slots are per client address: PER_IP sockets to each.
        const ws = new WebSocket(`${wsBase}${path}`, { headers: { "cf-connecting-ip": clientIp(i) } });
        ws.once("open", resolve);
        ws.once("error", (err) => reject(new Error(`WebSocket ${i + 1} of ${opts.count}: ${err.message}`)));
        sockets.push(ws);
      });
      p.tick();
    });
    // Long enough for the objects to hibernate (idle objects leave memory after about 10 s).
    await sleep(30_000);
    const held = sockets.filter((s) => s.readyState === WebSocket.OPEN).length;
    const after = rssMiB(pid);
    const fdsAfter = descriptors(pid).open;
    console.log(
      `idle: ${held}/${opts.count} WebSockets open on ${list.length} orders from ${Math.ceil(opts.count / PER_IP)} addresses after 30 s idle; workerd RSS ${before} MiB before, ${after} MiB after (${(((after - before) * 1024) / Math.max(1, held)).toFixed(1)} KiB per socket), ${fdsAfter} of ${fds.limit} file descriptors open (${fds.open} before)`,
    );
    return held === opts.count;
  } finally {
    for (const s of sockets) s.terminate();
    await worker.stop();
  }
}

/** A webhook receiver: every delivery's body, by order id (at-least-once: kept once per event id). */
function receiver(port) {
  const byOrder = new Map();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const e = JSON.parse(body);
      const id = e.data?.order?.id;
      if (id) {
        const events = byOrder.get(id) ?? new Map();
        events.set(e.id, e.sequence);
        byOrder.set(id, events);
      }
      res.end("ok");
    });
  });
  server.listen(port, "127.0.0.1");
  return { byOrder, close: () => server.close() };
}

/**
 * Follows one order's stream to its end, dropping the connection at random moments and resuming
 * with the last event id; returns the event ids in the order received.
 */
async function chaoticClient(base, key, orderId, rand, drops) {
  const got = [];
  for (;;) {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 50 + rand() * 1500);
    // A connection refused or dropped by the busy local runtime counts as one more drop.
    const { aborted, refused } = await readSse(`${base}/api/v1/partner/orders/${orderId}/events`, {
      key,
      lastEventId: got.at(-1)?.id,
      signal: abort.signal,
      onEvent: (e) => got.push({ id: e.id, sequence: e.data.sequence, status: e.data.data.order.status }),
    }).catch(() => ({ aborted: true, refused: true }));
    clearTimeout(timer);
    if (!aborted) return got;
    drops.n++;
    if (refused) {
      drops.refused++;
      await sleep(200);
    }
  }
}

/** Orders whose lifecycles run at once in the chaos run, each with its client connected. */
const CHAOS_CONCURRENCY = 32;

/** (c) Clients that drop and resume end with exactly their orders' webhook events. */
async function chaos(opts) {
  const receiverPort = opts.port + 2;
  const hooks = receiver(receiverPort);
  const ctx = await setUp(opts, { ALLOW_HTTP_WEBHOOKS: "true", RETRY_BASE_SECONDS: "1" });
  const { worker, base, key } = ctx;
  try {
    const set = await call(base, "PUT", "/api/v1/partner/webhook", {
      token: key,
      body: { url: `http://127.0.0.1:${receiverPort}/hook` },
    });
    const secret = await call(base, "POST", "/api/v1/partner/webhook/secret", { token: key, body: {} });
    if (set.status !== 200 || secret.status !== 201)
      throw new Error(`webhook endpoint: ${set.status} ${secret.status} ${JSON.stringify(secret.body)}`);
    const list = await orders(base, key, opts.count);
    const keys = await streamKeys(ctx, CHAOS_CONCURRENCY * 2);
    let seed = opts.seed;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const drops = { n: 0, refused: 0 };
    const started = Date.now();
    const p = progress("orders moved to completion, their clients at the end", list.length);
    // Each client follows its order from just before the order's first move to its end, so the
    // drops fall over that order's lifecycle (and CHAOS_CONCURRENCY streams are open at a time,
    // not every order's from the start of the run).
    const got = await mapPool(list, CHAOS_CONCURRENCY, async (o, i) => {
      const client = chaoticClient(base, keys[i % keys.length], o.id, rand, drops);
      await sleep(rand() * 1000);
      await helper(base, key, o.id, "deposit");
      await sleep(rand() * 1000);
      await helper(base, key, o.id, "confirm");
      const events = await client;
      p.tick();
      return events;
    });
    const deadline = Date.now() + 120_000;
    const hooked = (o) => [...(hooks.byOrder.get(o.id)?.values() ?? [])].length;
    while (Date.now() < deadline && list.some((o, i) => hooked(o) < got[i].length)) await sleep(500);
    const bad = [];
    list.forEach((o, i) => {
      const ids = got[i].map((e) => e.id);
      const want = [...(hooks.byOrder.get(o.id)?.entries() ?? [])]
        .sort((a, b) => a[1] - b[1])
        .map(([id]) => id);
      const inSequence = got[i].every((e, j) => e.sequence === j + 1);
      const finished = TERMINAL.has(got[i].at(-1)?.status);
      if (ids.join() !== want.join() || !inSequence || !finished)
        bad.push(
          `${o.id}: stream ${ids.length} events [${got[i].map((e) => e.sequence)}], webhooks ${want.length}`,
        );
    });
    const events = got.reduce((n, g) => n + g.length, 0);
    console.log(
      `chaos: ${list.length} orders in ${((Date.now() - started) / 1000).toFixed(0)} s, ${events} events, ${drops.n} dropped connections resumed (${drops.refused} of them refused or cut by the runtime); ${bad.length} clients differ from the webhook record`,
    );
    for (const line of bad.slice(0, 10)) console.log(`  ${line}`);
    return bad.length === 0;
  } finally {
    hooks.close();
    await worker.stop();
  }
}

export const STREAM_TARGETS = { latency, idle, chaos };
