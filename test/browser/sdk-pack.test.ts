// The packed SDK as a backend loads it: `npm pack` in sdk/ alone (its own build), the tarball
// installed into an empty project, then a CommonJS script and an ES module script each run a test
// order to completed against the Worker (the `wrangler dev` the browser project starts), and a
// .cts and an .mts file typecheck against the package's two sets of declarations.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { newKey, newPartner, ORIGIN, serverReady } from "./harness";

const ROOT = process.cwd();
const project = mkdtempSync(join(tmpdir(), "sdk-consumer-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** One test order from quote to completed; `load` is how the script gets the SDK. */
const script = (load: string) => `${load}
const api = createClient({ baseUrl: process.env.API, apiKey: process.env.KEY });
(async () => {
  const order = await api.createOrder({ coin_from: "BTC", network_from: "BTC", coin_to: "USDT",
    network_to: "TRX", amount_from: "0.01", rate_type: "float",
    recipient_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" });
  await api.test.deposit(order.id);
  await api.test.confirm(order.id);
  const done = await api.getOrder(order.short_id);
  const missing = await api.getOrder("NOPE-NOPE").catch((e) => e instanceof ApiError && e.code);
  console.log(JSON.stringify({ id: order.id, status: done.status, livemode: done.livemode, missing }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

const typed = `import { ApiError, createClient, type Order } from "@swap-partner-api/sdk";
const api = createClient({ baseUrl: "https://api.example.com", apiKey: "pk_test_x.y" });
export async function settle(id: string): Promise<Order["status"]> {
  try {
    const o = await api.payoutOrder(id, { recipient_address: "T..." });
    return o.status;
  } catch (e) {
    if (e instanceof ApiError && e.code === "order_not_found") return "failed";
    throw e;
  }
}
`;

serverReady();

describe("the packed SDK", () => {
  it("packs from sdk/ alone; CommonJS and ESM scripts each run a test order; both typings check", async () => {
    const packDir = join(project, "pack");
    mkdirSync(packDir);
    execFileSync("npm", ["pack", "--pack-destination", packDir], {
      cwd: join(ROOT, "sdk"),
      stdio: "pipe",
    });
    const [tarball] = readdirSync(packDir);
    const pkg = join(project, "node_modules", "@swap-partner-api", "sdk");
    mkdirSync(pkg, { recursive: true });
    execFileSync("tar", ["-xzf", join(packDir, tarball ?? ""), "-C", pkg, "--strip-components=1"]);
    // Its one dependency, for the declarations (the bundles carry their own copy).
    symlinkSync(join(ROOT, "node_modules", "openapi-fetch"), join(project, "node_modules", "openapi-fetch"));
    expect(readdirSync(pkg).sort()).toEqual(["LICENSE", "README.md", "dist", "openapi.json", "package.json"]);

    const partnerId = await newPartner("SDK Wallet");
    const key = await newKey(partnerId, "test");
    writeFileSync(
      join(project, "order.cjs"),
      script('const { ApiError, createClient } = require("@swap-partner-api/sdk");'),
    );
    writeFileSync(
      join(project, "order.mjs"),
      script('import { ApiError, createClient } from "@swap-partner-api/sdk";'),
    );
    const ids = new Set<string>();
    for (const file of ["order.cjs", "order.mjs"]) {
      const run = spawnSync(process.execPath, [file], {
        cwd: project,
        env: { ...process.env, API: ORIGIN, KEY: key },
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(run.stderr, file).toBe("");
      const out = JSON.parse(run.stdout) as {
        id: string;
        status: string;
        livemode: boolean;
        missing: string;
      };
      expect(out, file).toMatchObject({ status: "completed", livemode: false, missing: "order_not_found" });
      ids.add(out.id);
    }
    expect(ids.size).toBe(2);

    writeFileSync(join(project, "consumer.cts"), typed);
    writeFileSync(join(project, "consumer.mts"), typed);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: "node16",
          moduleResolution: "node16",
          target: "es2022",
          lib: ["es2022", "dom"],
          types: [],
        },
        files: ["consumer.cts", "consumer.mts"],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "."], {
      cwd: project,
      encoding: "utf8",
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  });
});
