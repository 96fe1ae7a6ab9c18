import { describe, expect, it } from "vitest";
import { cli } from "./support/cli";

describe("CLI: currency and audit commands", () => {
  it("adds a coin, switches its deposits off by COIN/NETWORK, and shows both changes in the audit log", async () => {
    const add = await cli(
      "currency",
      "add",
      "--coin",
      "wif",
      "--network",
      "SOL",
      "--name",
      "dogwifhat",
      "--min",
      "1",
      "--max",
      "100000",
      "--confirmations",
      "1",
      "--decimals",
      "6",
      "--withdraw-fee",
      "0.5",
      "--contract",
      "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm",
      "--explorer-tx",
      "https://solscan.io/tx/{txid}",
    );
    expect(add).toMatchObject({ code: 0, stderr: "" });
    expect(add.stdout).toContain("Listed WIF on SOL");

    const off = await cli("currency", "update", "wif/sol", "--deposits", "off", "--contract", "none");
    expect(off.code).toBe(0);
    expect(off.stdout).toMatch(/deposits\s+no/);
    expect(off.stdout).toContain("(native)");

    expect((await cli("currency", "list")).stdout).toMatch(/WIF\s+SOL\s+yes\s+no\s+yes/);
    const log = await cli("audit", "list", "--currency", "WIF/SOL", "--json");
    const entries = JSON.parse(log.stdout).data as { action: string; operator: string }[];
    expect(entries.map((e) => e.action)).toEqual(["currency.update", "currency.create"]);
    expect(entries.every((e) => e.operator === "token")).toBe(true);
  });

  it("refuses bad values: on/off client-side (exit 2), rules server-side (exit 1, the server's words)", async () => {
    const usage = await cli("currency", "update", "BTC/BTC", "--deposits", "maybe");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--deposits takes on or off");
    const rule = await cli("currency", "update", "BTC/BTC", "--min", "5", "--max", "4");
    expect(rule.code).toBe(1);
    expect(rule.stderr).toContain("max_amount");
    const unknown = await cli("currency", "update", "NOPE/NOPE", "--min", "1");
    expect(unknown.code).toBe(2);
  });
});
