import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, createPartner, json, setPrices } from "./helpers";
import { cli } from "./support/cli";

describe("CLI: statements commands", () => {
  it("adjusts, closes a month (twice: nothing new), lists, holds, releases and shows what is owed", async () => {
    await setPrices();
    const p = await createPartner({ name: "cli-payee" });
    await env.DB.prepare("UPDATE partners SET created_at = '2026-01-01T00:00:00.000Z' WHERE id = ?")
      .bind(p.id)
      .run();
    await env.DB.prepare(
      `INSERT INTO payout_settings (partner_id, coin, network, address, tag, minimum_usd, updated_at)
       VALUES (?, 'USDT', 'TRX', 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', NULL, '50', '2026-01-01T00:00:00.000Z')`,
    )
      .bind(p.id)
      .run();

    const adjust = await cli("statements", "adjust", p.id, "60.25", "--reason", "launch bonus");
    expect(adjust).toMatchObject({ code: 0, stderr: "" });
    expect(adjust.stdout).toContain("60.25 USD (launch bonus) for the next statement");

    // A past month's payout is due at once: the close issues the statement and pays it.
    const close = await cli("statements", "close", "2026-01");
    expect(close.stdout).toMatch(/Closed 2026-01: [1-9]\d* statement\(s\) issued/);
    const again = await cli("statements", "close", "2026-01");
    expect(again.stdout).toContain("Closed 2026-01: 0 statement(s) issued");

    const list = await cli("statements", "list", "--partner", p.id);
    expect(list.stdout).toMatch(/2026-01\s+live\s+\S+\s+0\s+60\.25\s+paid\s+USDT\/TRX\s+60\.25/);
    const listed = JSON.parse((await cli("statements", "list", "--partner", p.id, "--json")).stdout) as {
      data: { id: string }[];
    };
    expect(listed.data).toHaveLength(1);

    const hold = await cli("statements", "hold", listed.data[0]?.id ?? "", "--reason", "late");
    expect(hold.code).toBe(1);
    expect(hold.stderr).toContain("Only a pending payout can be held");

    expect((await cli("statements", "owed")).stdout).toContain("ASSET");
    const audit = await json<{ data: { action: string }[] }>(
      await admin(`/audit?entity_type=partner&entity_id=${p.id}`),
    );
    expect(audit.data.map((a) => a.action)).toContain("statement.adjustment");
  });
});
