// The operator CLI's commands beyond partners and keys (./partners-and-keys.ts), driven through its core
// against the Worker in workerd (test/support/cli.ts). One file, one describe per command group:
// each was a file of its own that paid a workerd start and a load of the Worker for a second or
// two of tests (docs/performance.md, "Test-suite time"). The groups share the file's storage; each
// makes its own partners and looks only at what it made, and puts back the shared settings it
// changes (liquidity, regions).
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { projectAlertRows } from "../../src/storage/alerts";
import { openIncidentStatement } from "../../src/storage/service-status";
import { admin, createPartner, json, setPrices, type TestPartner } from "../helpers";
import { cli } from "../support/cli";
import {
  BTC_TO_USDT,
  createOrder,
  events,
  NEW_BTC,
  type Order,
  read,
  simMine,
  simSend,
  startClock,
  step,
} from "../support/orders";

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

const NEW_TRON = "TZ1RFjs5gov1Qse96dMz7uCuMvabw7X72i";

describe("CLI: orders", () => {
  // Its clock is fake and moves on by simulated minutes, so this block comes last and keeps the
  // fake clock to itself (its hooks are inside it).
  let partner: TestPartner;

  beforeAll(async () => {
    partner = await createPartner({ name: "cli-orders", rate_limit_per_minute: 100_000 });
    await setPrices();
    startClock();
  });

  afterAll(() => {
    vi.useRealTimers();
  });

  /** An underpaid order without a refund address: failed, holding its deposit. */
  async function held(): Promise<Order> {
    const o = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.0003");
    await simMine("BTC", 2);
    await step(o.id);
    await step(o.id); // the projection into the index
    return o;
  }

  it("review lists the held orders; show says what can be done; refund and resolve take them off", async () => {
    const a = await held();
    const b = await held();
    const review = await cli("orders", "review");
    expect(review.code).toBe(0);
    expect(review.stdout.indexOf(a.short_id)).toBeGreaterThan(-1);
    expect(review.stdout.indexOf(a.short_id)).toBeLessThan(review.stdout.indexOf(b.short_id));
    const listed = JSON.parse((await cli("--json", "orders", "review")).stdout) as { data: { id: string }[] };
    expect(listed.data.map((r) => r.id)).toEqual(expect.arrayContaining([a.id, b.id]));

    const show = await cli("orders", "show", a.short_id);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("Waits for a decision (amount_below_min)");
    expect(show.stdout).toMatch(/refund\s+0\.0002 BTC to an address you give/);

    // The API's refusal is printed with its code; usage errors never reach the API.
    const noAddress = await cli("orders", "refund", a.short_id);
    expect(noAddress.code).toBe(1);
    expect(noAddress.stderr).toContain("invalid_address, HTTP 422");
    expect((await cli("orders", "refund", a.short_id, "--tag", "1")).code).toBe(2);
    expect((await cli("orders", "payout", a.short_id)).code).toBe(2);
    const notOffered = await cli("orders", "payout", a.short_id, "--address", NEW_TRON);
    expect(notOffered.stderr).toContain("action_not_available, HTTP 409");

    const refund = await cli("orders", "refund", a.short_id, "--address", NEW_BTC);
    expect(refund.code).toBe(0);
    expect(refund.stdout).toContain(`Refund chosen for order ${a.short_id}: it is refunding.`);
    expect((await read(partner, a.id)).refund_address).toBe(NEW_BTC);
    const decided = (await events(a.id)).find((e) => e.data?.event === "refund_chosen");
    expect(decided?.data).toMatchObject({ decided_by: "operator", refund_address: NEW_BTC });

    expect(
      (await cli("orders", "resolve", b.id, "--kind", "exchange", "--txid", "t", "--note", "n")).code,
    ).toBe(2);
    expect((await cli("orders", "resolve", b.id, "--kind", "refund", "--txid", "t")).code).toBe(2);
    const onHold = await cli("orders", "hold", b.id, "--note", "settling by hand");
    expect(onHold.code).toBe(0);
    expect(onHold.stdout).toContain(`Order ${b.short_id} is on hold.`);
    const resolved = await cli(
      "orders",
      "resolve",
      b.id,
      "--kind",
      "refund",
      "--txid",
      "c".repeat(64),
      "--note",
      "by hand",
    );
    expect(resolved.code).toBe(0);
    expect(resolved.stdout).toContain(`Recorded the refund ${"c".repeat(64)} on order ${b.short_id}.`);
    expect(await read(partner, b.id)).toMatchObject({ status: "refunded", refund_txid: "c".repeat(64) });

    await step(a.id);
    await step(b.id);
    const after = await cli("--json", "orders", "review");
    const ids = (JSON.parse(after.stdout) as { data: { id: string }[] }).data.map((r) => r.id);
    expect(ids).not.toContain(a.id);
    expect(ids).not.toContain(b.id);
  });

  it("continue on a held order that fits the limits now", async () => {
    await setPrices(); // the first test's simulated minutes made the prices stale
    const o = await createOrder(partner, { ...BTC_TO_USDT, rate_type: "fixed" });
    await simSend("BTC", o.deposit_address, "0.0102");
    await simMine("BTC", 2);
    await step(o.id);
    expect((await read(partner, o.id)).status_reason).toBe("fixed_amount_mismatch");
    const r = await cli("orders", "continue", o.short_id);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Continue chosen for order ${o.short_id}: it is exchanging.`);
  });
});

describe("CLI: alerts, incidents and guard rails", () => {
  it("lists alerts (open only on request), incidents with a note added, and the guard rails", async () => {
    const orderId = "cli-alerts-order";
    const at = new Date().toISOString();
    await projectAlertRows(env.DB, [
      {
        order_id: orderId,
        kind: "payout_outcome_unknown",
        ledger_key: `${orderId}:payout`,
        opened_at: at,
        message: "payout outcome unknown: needs an operator",
        data: "{}",
        last_at: at,
        reminders: 0,
        cleared_at: null,
      },
    ]);
    const open = await cli("alerts", "list", "--open");
    expect(open).toMatchObject({ code: 0, stderr: "" });
    expect(open.stdout).toMatch(/open\s+payout_outcome_unknown\s+cli-alerts-order\s+cli-alerts-order:payout/);
    const listed = JSON.parse((await cli("alerts", "list", "--limit", "500", "--json")).stdout) as {
      data: { order_id: string; state: string }[];
    };
    expect(listed.data).toContainEqual(expect.objectContaining({ order_id: orderId, state: "open" }));
    expect((await cli("alerts", "list", "--limit", "0")).code).toBe(2);

    await openIncidentStatement(
      env.DB,
      { component: "DOGE", level: "degraded", summary: "DOGE: slow reads" },
      at,
    ).run();
    const incidents = JSON.parse((await cli("incidents", "list", "--json")).stdout) as {
      data: { id: number; component: string }[];
    };
    const incident = incidents.data.find((i) => i.component === "DOGE");
    expect(incident).toBeDefined();
    const note = await cli(
      "incidents",
      "note",
      String(incident?.id),
      "--body",
      "Switching DOGE to a backup node.",
    );
    expect(note).toMatchObject({ code: 0, stderr: "" });
    expect(note.stdout).toContain(`Noted incident ${incident?.id} (DOGE, degraded): 1 note(s).`);
    expect((await cli("incidents", "list", "--days", "1")).stdout).toMatch(
      /DOGE\s+degraded\s+\S+\s+-\s+1\s+DOGE: slow reads/,
    );
    const missing = await cli("incidents", "note", "999999", "--body", "x");
    expect(missing.code).toBe(1);

    const rails = await cli("guard-rails");
    expect(rails).toMatchObject({ code: 0, stderr: "" });
    expect(rails.stdout).toMatch(/live orders\s+on/);
    expect(rails.stdout).toMatch(/cabinet origin\s+http:\/\/localhost:8787/);
    expect(JSON.parse((await cli("guard-rails", "--json")).stdout)).toMatchObject({ problems: [] });
  });

  it("takes the documented `statements adjust <partner> -- -12.5 --reason …`: `--` before a negative amount", async () => {
    const p = await createPartner({ name: "cli-negative-adjustment" });
    const adjust = await cli(
      "statements",
      "adjust",
      p.id,
      "--",
      "-12.5",
      "--reason",
      "order refunded after completion",
    );
    expect(adjust).toMatchObject({ code: 0, stderr: "" });
    expect(adjust.stdout).toContain("-12.5 USD (order refunded after completion)");
    // Without the `--` as well; a second `--` still ends the options.
    expect((await cli("statements", "adjust", p.id, "-1", "--reason", "fee correction")).code).toBe(0);
    const extra = await cli("statements", "adjust", p.id, "--", "-1", "--", "--reason", "x");
    expect(extra.code).toBe(2);
  });
});
