// The working clone's own tooling agrees with itself: what `npm run dev` creates does not turn
// `npm run lint` red.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = process.cwd();
const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<
  string,
  string
>;

describe("dev setup and lint", () => {
  const dir = mkdtempSync(join(tmpdir(), "dev-setup-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the lint's `wrangler types --check` passes with a .dev.vars holding secrets", () => {
    for (const f of ["wrangler.toml", "worker-configuration.d.ts", ".dev.vars.example"])
      copyFileSync(join(ROOT, f), join(dir, f));
    for (const d of ["src", "node_modules", "public", "migrations"]) symlinkSync(join(ROOT, d), join(dir, d));
    // What `npm run dev` copies, plus a secret a developer adds for a real venue.
    writeFileSync(
      join(dir, ".dev.vars"),
      `${readFileSync(join(ROOT, ".dev.vars.example"), "utf8")}\nEXCHANGE_API_KEY=local-key\n`,
    );
    const check = /wrangler types --check[^&]*/.exec(scripts.lint ?? "")?.[0].trim();
    expect(check).toBeDefined();
    const args = (check ?? "").split(/\s+/).slice(1);
    const r = spawnSync(join(ROOT, "node_modules/.bin/wrangler"), args, {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" },
    });
    expect(r.stderr + r.stdout).toContain("up to date");
    expect(r.status).toBe(0);
  }, 60_000);
});
