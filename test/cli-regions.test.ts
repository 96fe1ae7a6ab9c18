import { describe, expect, it } from "vitest";
import { admin, json } from "./helpers";
import { cli } from "./support/cli";

describe("CLI: regions commands", () => {
  it("sets the countries and the per-coin lists part by part, shows them; each change is audited", async () => {
    const set = await cli("regions", "set", "--countries", "kp,IR");
    expect(set).toMatchObject({ code: 0, stderr: "" });
    expect(set.stdout).toMatch(/countries\s+IR, KP/);
    const coins = await cli("regions", "set", "--coins", "XMR=GB,US;doge=gb");
    expect(coins.code).toBe(0);
    const shown = JSON.parse((await cli("regions", "show", "--json")).stdout);
    expect(shown).toEqual({ countries: ["IR", "KP"], coins: { DOGE: ["GB"], XMR: ["GB", "US"] } });
    expect((await cli("regions", "show")).stdout).toMatch(/coins\s+DOGE: GB; XMR: GB, US/);
    const audit = await json<{ data: { action: string }[] }>(
      await admin("/audit?entity_type=region_restrictions"),
    );
    expect(audit.data.map((e) => e.action)).toEqual(["region_restrictions.set", "region_restrictions.set"]);
    const usage = await cli("regions", "set", "--coins", "XMR");
    expect(usage.code).toBe(2);
    const bad = await cli("regions", "set", "--countries", "Germany");
    expect(bad.code).toBe(1);
    expect((await cli("regions", "set", "--countries", "", "--coins", "")).code).toBe(0);
    expect(JSON.parse((await cli("regions", "show", "--json")).stdout)).toEqual({ countries: [], coins: {} });
  });
});
