import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";

// The workers project runs its files one after another in one workerd (isolate: false, see
// vitest.config.ts): each file starts from what a workerd of its own gave it. The Worker's and the
// tests' modules are evaluated again (their isolate caches — catalog, prices, venue clients — held
// the previous file's data); every Durable Object and the local D1 (a Durable Object too) are
// emptied, alarms included, and D1 migrated again; a clock, mock or stubbed global a file left
// behind is undone. What stays is the workerd process and the modules' transformed code.
vi.resetModules();
vi.useRealTimers();
vi.restoreAllMocks();
vi.unstubAllGlobals();
await reset();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
