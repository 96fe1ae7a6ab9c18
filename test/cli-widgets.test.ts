import { describe, expect, it } from "vitest";
import { createPartner } from "./helpers";
import { cli } from "./support/cli";

describe("CLI: widget commands", () => {
  it("creates a widget with a locked recipient, prints the snippet, lists and revokes it", async () => {
    const p = await createPartner({ name: "cli-widgets" });
    const made = await cli(
      "widget",
      "create",
      p.id,
      "--origins",
      "https://shop.example, http://localhost:3000",
      "--mode",
      "test",
      "--pair",
      "BTC:BTC>USDT:TRX",
      "--locked-recipient",
      "TRX:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    );
    expect(made).toMatchObject({ code: 0, stderr: "" });
    const id = /(wid_[A-Za-z0-9]{20})/.exec(made.stdout)?.[1] ?? "";
    expect(id).toBeTruthy();
    expect(made.stdout).toMatch(/locked recipient\s+TRX:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t/);
    expect(made.stdout).toContain(`/widget.js" data-widget="${id}" async></script>`);
    expect((await cli("widget", "list", p.id)).stdout).toMatch(
      new RegExp(`${id}\\s+test\\s+Widget\\s+https://shop.example,http://localhost:3000`),
    );
    expect((await cli("widget", "revoke", p.id, id)).stdout).toBe(`Revoked ${id}.`);
    const again = await cli("widget", "revoke", p.id, id);
    expect(again.code).toBe(1);
    const listed = JSON.parse((await cli("widget", "list", p.id, "--json")).stdout) as {
      data: { id: string; revoked_at: string | null }[];
    };
    expect(listed.data.find((w) => w.id === id)?.revoked_at).toBeTruthy();
  });

  it("refuses a malformed pair client-side (exit 2) and a bad origin server-side (exit 1)", async () => {
    const p = await createPartner({ name: "cli-widgets-bad" });
    const usage = await cli("widget", "create", p.id, "--origins", "https://a.example", "--pair", "BTC-USDT");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--pair must look like");
    const bad = await cli("widget", "create", p.id, "--origins", "http://a.example");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("https");
  });
});
