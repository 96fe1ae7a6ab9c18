import { describe, expect, it } from "vitest";
import { admin, json } from "./helpers";
import { cli } from "./support/cli";

describe("CLI: liquidity commands", () => {
  it("sets a balance, lists it, clears it; each change is in the audit log", async () => {
    const set = await cli("liquidity", "set", "usdt:trx", "2500.5");
    expect(set).toMatchObject({ code: 0, stderr: "" });
    expect(set.stdout).toContain("Set USDT on TRX to 2500.5");
    expect(set.stdout).toMatch(/available\s+2500\.5/);

    expect((await cli("liquidity", "list")).stdout).toMatch(
      /USDT\s+TRX\s+2500\.5\s+operator\s+0\s+0\s+2500\.5/,
    );
    const listed = JSON.parse((await cli("liquidity", "list", "--json")).stdout) as { data: unknown[] };
    expect(listed.data).toContainEqual(
      expect.objectContaining({ coin: "USDT", network: "TRX", balance: "2500.5" }),
    );

    const clear = await cli("liquidity", "clear", "USDT:TRX");
    expect(clear).toMatchObject({ code: 0, stderr: "" });
    expect(clear.stdout).toContain("Cleared USDT on TRX: not liquidity-limited.");
    const audit = await json<{ data: { action: string; after: { balance: string | null } }[] }>(
      await admin("/audit?entity_type=liquidity&entity_id=USDT:TRX"),
    );
    expect(audit.data.map((e) => e.after.balance)).toEqual([null, "2500.5"]);
  });

  it("refuses a malformed coin client-side (exit 2) and a bad amount server-side (exit 1, the server's words)", async () => {
    const usage = await cli("liquidity", "set", "USDT", "5");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("expected COIN:NETWORK");
    const bad = await cli("liquidity", "set", "USDT:TRX", "-5");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("balance");
    const unknown = await cli("liquidity", "set", "NOPE:NOPE", "5");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("not in the catalog");
    expect((await cli("liquidity", "--help")).stdout).toContain("liquidity set");
  });
});
