// The working clone's own tooling: what `npm run dev` creates does not turn `npm run lint` red, and
// its first start says what matters in a few lines.
import { spawn, spawnSync } from "node:child_process";
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

  it("a first `npm run dev` prints a few lines, not the database's setup, before its hint", async () => {
    const clone = mkdtempSync(join(tmpdir(), "dev-first-start-"));
    try {
      for (const f of ["wrangler.toml", ".dev.vars.example"]) copyFileSync(join(ROOT, f), join(clone, f));
      for (const d of ["src", "node_modules", "public", "migrations", "scripts"])
        symlinkSync(join(ROOT, d), join(clone, d));
      const dev = spawn(process.execPath, ["scripts/dev.mjs", "--port", "0"], {
        cwd: clone,
        detached: true,
        env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` },
      });
      let out = "";
      const hint = await new Promise<boolean>((resolve) => {
        dev.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("First start:")) resolve(true);
        });
        dev.stderr.on("data", (d: Buffer) => {
          out += d.toString();
        });
        dev.on("exit", () => resolve(false));
      });
      try {
        if (dev.pid) process.kill(-dev.pid, "SIGKILL");
      } catch {
        // already gone
      }
      expect(hint, out).toBe(true);
      const before = out
        .slice(0, out.indexOf("First start:"))
        .split("\n")
        .filter((l) => l.trim() !== "");
      expect(before, out).toEqual([
        "Created .dev.vars from .dev.vars.example (dev ADMIN_TOKEN).",
        expect.stringMatching(/^Local database created with all \d+ migrations\.$/),
      ]);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  }, 120_000);
});
