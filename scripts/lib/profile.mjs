/**
 * CPU profiles of the local Worker runtime through wrangler dev's inspector (`--port` + 1): the
 * V8 sampling profiler of the one isolate that runs the Worker, its Durable Objects and D1's
 * JavaScript. Used by `npm run bench -- --profile <dir>` (docs/performance.md).
 */
import { writeFileSync } from "node:fs";

/** Starts sampling (every `intervalUs`); the returned function stops it and resolves to the profile. */
export async function startProfile(inspectorPort, intervalUs = 200) {
  // Miniflare's inspector proxy refuses a client that sends a User-Agent without a local Origin.
  const ws = new WebSocket(`ws://127.0.0.1:${inspectorPort}/ws`, { headers: { origin: "http://localhost" } });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = (e) => reject(new Error(`no inspector on ${inspectorPort}: ${e.message ?? e.type}`));
  });
  let seq = 0;
  const pending = new Map();
  ws.onmessage = (m) => {
    const d = JSON.parse(String(m.data));
    const p = d.id === undefined ? undefined : pending.get(d.id);
    if (!p) return;
    pending.delete(d.id);
    if (d.error) p.reject(new Error(JSON.stringify(d.error)));
    else p.resolve(d.result);
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: intervalUs });
  await send("Profiler.start");
  return async () => {
    const { profile } = await send("Profiler.stop");
    ws.close();
    return profile;
  };
}

/** Self time per function (name, file, line) as a share of the profile's wall time, largest first. */
export function selfTimes(profile, top = 20) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byNode = new Map();
  for (const [i, id] of profile.samples.entries()) {
    byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byFn = new Map();
  for (const [id, us] of byNode) {
    const f = nodes.get(id).callFrame;
    const file = f.url.split("/").slice(-2).join("/");
    const key = `${f.functionName || "(anonymous)"} ${file}${file ? `:${f.lineNumber + 1}` : ""}`;
    byFn.set(key, (byFn.get(key) ?? 0) + us);
  }
  const wall = profile.endTime - profile.startTime;
  return [...byFn]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => ({ fn, share: us / wall }));
}

export function writeProfile(file, profile) {
  writeFileSync(file, JSON.stringify(profile));
}
