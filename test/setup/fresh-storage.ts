import {
  abortAllDurableObjects,
  applyD1Migrations,
  listDurableObjectIds,
  runInDurableObject,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";

// The workers project runs its files one after another in one workerd (isolate: false, see
// vitest.config.ts): each file starts from what a workerd of its own gave it. The Worker's and the
// tests' modules are evaluated again (their isolate caches — catalog, prices, API keys, venue
// clients — would serve the previous file's data); every Durable Object's storage is deleted
// (alarms included) and every instance dropped (one still running keeps what it read into memory:
// SimChain's fault settings, say); D1's tables are dropped and migrated again; a clock, mock or
// stubbed global a file left behind is undone. What stays is the workerd process and the modules'
// transformed code.
vi.useRealTimers();
vi.restoreAllMocks();
vi.unstubAllGlobals();

// Every Durable Object binding, found rather than listed, so a new one cannot carry state over.
// An RPC binding answers `in` for any name, so a candidate counts only if the runtime lists its ids.
let wiped = 0;
for (const candidate of Object.values(env)) {
  if (typeof candidate !== "object" || candidate === null || !("idFromName" in candidate)) continue;
  const ns = candidate as DurableObjectNamespace;
  let ids: DurableObjectId[];
  try {
    ids = await listDurableObjectIds(ns);
  } catch {
    continue;
  }
  wiped++;
  await Promise.all(
    ids.map((id) =>
      runInDurableObject(ns.get(id), async (_, state) => {
        await state.storage.deleteAlarm();
        await state.storage.deleteAll();
      }),
    ),
  );
}
if (wiped === 0) throw new Error("fresh-storage: no Durable Object binding found on env");
await abortAllDurableObjects();

const tables = await env.DB.prepare(
  "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
).all<{ type: string; name: string }>();
if (tables.results.length > 0)
  await env.DB.batch([
    env.DB.prepare("PRAGMA defer_foreign_keys = true"),
    ...tables.results.map((t) => env.DB.prepare(`DROP ${t.type.toUpperCase()} IF EXISTS "${t.name}"`)),
  ]);
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
// Last: objects the wipe above woke must not outlive the Worker's modules they were built from.
vi.resetModules();
