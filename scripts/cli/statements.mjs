// `statements …`: thin wrappers over /admin/v1/statements (src/http/routes/admin/statements.ts,
// docs/earnings.md "Statements"). Validation happens on the server; errors are printed as it words them.
import { formatTable } from "./core.mjs";

const orNone = (v) => v ?? "-";
const idArg = { name: "statement", description: "statement id (stmt_…)" };

function summary(s) {
  const p = s.payout;
  const paid = p.txid ? ` txid ${p.txid}` : p.hold_reason ? ` (${p.hold_reason})` : "";
  return `${s.id}: ${s.month} ${s.livemode ? "live" : "test"} total ${s.total_usd} USD — ${p.status}${paid}`;
}

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const statementCommands = {
  "statements list": {
    summary: "Statements, newest month first: totals and payout status",
    flags: {
      partner: { type: "string", value: "<id>", description: "one partner's" },
      month: { type: "string", value: "<YYYY-MM>", description: "one month's" },
      mode: { type: "string", value: "<live|test>", description: "one mode's (default both)" },
    },
    examples: ["statements list --month 2026-10", "statements list --partner <id> --json"],
    async run({ flags, api, output, print }) {
      const q = new URLSearchParams();
      if (flags.partner !== undefined) q.set("partner_id", String(flags.partner));
      if (flags.month !== undefined) q.set("month", String(flags.month));
      if (flags.mode !== undefined) q.set("mode", String(flags.mode));
      output(await api.get(`/statements${q.size ? `?${q}` : ""}`), ({ data }) =>
        print(
          formatTable(
            ["MONTH", "MODE", "PARTNER", "ORDERS", "TOTAL USD", "STATUS", "ASSET", "AMOUNT", "TXID", "ID"],
            data.map((s) => [
              s.month,
              s.livemode ? "live" : "test",
              s.partner_id,
              String(s.orders),
              s.total_usd,
              s.payout.status,
              s.payout.coin ? `${s.payout.coin}/${s.payout.network}` : "-",
              orNone(s.payout.amount),
              orNone(s.payout.txid),
              s.id,
            ]),
          ),
        ),
      );
    },
  },
  "statements owed": {
    summary: "What unpaid live statements add up to per payout asset (liquidity planning)",
    examples: ["statements owed"],
    async run({ api, output, print }) {
      output(await api.get("/statements/owed"), ({ data }) =>
        print(
          formatTable(
            ["ASSET", "STATEMENTS", "TOTAL USD", "CONVERTED", "UNCONVERTED USD"],
            data.map((o) => [
              o.coin ? `${o.coin}/${o.network}` : "(none chosen)",
              String(o.statements),
              o.total_usd,
              o.amount_converted,
              o.unconverted_usd,
            ]),
          ),
        ),
      );
    },
  },
  "statements close": {
    summary: "Re-run a month's statement generation (idempotent; audited)",
    description:
      "Issues the live statements still missing and hands over due payouts; never a second statement or payout.",
    args: [{ name: "month", description: "YYYY-MM" }],
    examples: ["statements close 2026-10"],
    async run({ args, api, output, print }) {
      const r = await api.post("/statements/close", { month: args.month });
      output(r, () =>
        print(`Closed ${r.month}: ${r.issued} statement(s) issued, ${r.dispatched} payout(s) handed over.`),
      );
    },
  },
  "statements hold": {
    summary: "Hold a statement's payout before it starts (audited)",
    args: [idArg],
    flags: { reason: { type: "string", value: "<text>", required: true, description: "why" } },
    examples: ['statements hold stmt_live_202610_… --reason "KYC review"'],
    async run({ args, flags, api, output, print }) {
      const s = await api.post(`/statements/${encodeURIComponent(args.statement)}/hold`, {
        reason: flags.reason,
      });
      output(s, () => print(summary(s)));
    },
  },
  "statements release": {
    summary: "Release a held payout (paid at once when due; audited)",
    args: [idArg],
    examples: ["statements release stmt_live_202610_…"],
    async run({ args, api, output, print }) {
      const s = await api.post(`/statements/${encodeURIComponent(args.statement)}/release`);
      output(s, () => print(summary(s)));
    },
  },
  "statements resolve": {
    summary: "Record a held payout as paid by hand: it can no longer be released and paid again (audited)",
    args: [idArg],
    flags: {
      txid: { type: "string", value: "<txid>", required: true, description: "the transfer made by hand" },
      note: { type: "string", value: "<text>", required: true, description: "why and how" },
    },
    examples: ['statements resolve stmt_live_202610_… --txid 9f2c… --note "paid from the treasury"'],
    async run({ args, flags, api, output, print }) {
      const s = await api.post(`/statements/${encodeURIComponent(args.statement)}/resolve`, {
        txid: flags.txid,
        note: flags.note,
      });
      output(s, () => print(summary(s)));
    },
  },
  "statements adjust": {
    summary: "Add a signed USD adjustment to a partner's next statement (audited)",
    args: [
      { name: "partner", description: "partner id" },
      { name: "amount", description: "signed USD, e.g. -12.5" },
    ],
    flags: {
      reason: { type: "string", value: "<text>", required: true, description: "shown on the statement" },
      mode: { type: "string", value: "<live|test>", description: "default live" },
    },
    examples: ['statements adjust <partner> -- -12.5 --reason "order refunded after completion"'],
    async run({ args, flags, api, output, print }) {
      const a = await api.post(`/partners/${encodeURIComponent(args.partner)}/statement-adjustments`, {
        amount_usd: args.amount,
        reason: flags.reason,
        ...(flags.mode === undefined ? {} : { mode: flags.mode }),
      });
      output(a, () => print(`Adjustment ${a.id}: ${a.amount_usd} USD (${a.reason}) for the next statement.`));
    },
  },
};
