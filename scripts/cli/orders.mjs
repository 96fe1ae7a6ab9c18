// `orders …` commands: the operator's review queue and decisions on held funds, over
// /admin/v1/orders (src/http/routes/admin/order-review.ts, src/http/routes/admin/order-actions.ts).
import { clean, formatRecord, formatTable, PROG, seg, UsageError } from "./core.mjs";

const orderArg = { name: "order_id", description: "the order's id or short_id" };

/** @type {import("./core.d.mts").FlagSpec} */
const tagFlag = { type: "string", value: "tag", description: "memo / destination tag (memo networks)" };

const MAX_PAGES = 1000;

/** A screened deposit's hold in one line: why, until when, and what happens then; "-" when none. */
const holdLine = (h) => (h ? `${h.category} until ${h.deadline_at}, then ${h.at_deadline}` : "-");

/** The order after a decision, as one record; the next step to watch it. */
function printOrder(print, o) {
  print(
    formatRecord([
      ["order", `${o.short_id} (${o.id})`],
      ["status", o.status_reason ? `${o.status} (${o.status_reason})` : o.status],
      ["refund_address", o.refund_address ?? "(none)"],
      ["recipient_address", o.recipient_address],
      ["payout_txid", o.payout_txid ?? "-"],
      ["refund_txid", o.refund_txid ?? "-"],
      ["waits for a decision", o.actions ? "yes" : "no"],
      ["hold", holdLine(o.hold)],
    ]),
  );
}

/** What the order's `actions` offers, one line each. */
function offers(a) {
  const lines = [];
  const line = (name, o, what) =>
    lines.push(`${name.padEnd(9)} ${o.available ? what : `unavailable: ${o.unavailable_reason}`}`);
  if (a.reason !== null) {
    line(
      "refund",
      a.refund,
      `${a.refund.amount} ${a.refund.coin} to ${a.refund.address ?? "an address you give (--address)"}`,
    );
    line("continue", a.continue, `about ${a.continue.amount_to_estimate} at the float rate now`);
    if (a.payout)
      line("payout", a.payout, `${a.payout.amount} ${a.payout.coin} to a new recipient (--address)`);
  }
  for (const e of a.extra_deposits)
    line(
      "extra",
      e.refund,
      `--deposit ${e.deposit}: ${e.refund.amount} ${e.refund.coin} back to ${e.refund.address ?? "an address you give (--address)"}`,
    );
  for (const w of a.wrong_network_deposits ?? [])
    line(
      "wrong net",
      w.refund,
      `--deposit ${w.deposit}: ${w.amount_received} ${w.coin} arrived on ${w.network}; ${w.refund.amount} ${w.coin} back on ${w.network} to an address you give (--address)`,
    );
  return lines;
}

/** POST /orders/{id}/<action> and print the order it answers with. */
async function decide({ args, api, output, print }, action, body, done) {
  const o = await api.post(`/orders/${seg(args.order_id)}/${action}`, body);
  output(o, () => {
    print(done(o));
    printOrder(print, o);
    print("");
    print(`Follow it with \`${PROG} orders show ${o.short_id}\`.`);
  });
}

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const orderCommands = {
  "orders review": {
    summary: "The review queue: every order waiting for a decision on money it holds, oldest first",
    description:
      "Walks GET /admin/v1/orders?needs_action=true page by page; HOLD is a screened deposit's " +
      "hold: its category, its deadline and what happens then. Each order's `actions` (GET " +
      "/admin/v1/orders/{id}) says what can be done: `orders refund|continue|payout`, or " +
      "`orders resolve` for a transfer made by hand.",
    examples: ["orders review", "orders review --json"],
    async run({ api, output, print }) {
      const data = [];
      let cursor = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const q = `/orders?needs_action=true&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const res = await api.get(q);
        data.push(...res.data);
        cursor = res.next_cursor;
        if (!cursor) break;
      }
      output({ data }, () => {
        if (data.length === 0) {
          print("No order waits for a decision.");
          return;
        }
        print(
          formatTable(
            ["SHORT_ID", "STATUS", "PAIR", "PARTNER_ID", "CREATED_AT", "HOLD", "ID"],
            data.map((o) => [
              o.short_id,
              o.status,
              `${o.coin_from}/${o.network_from} → ${o.coin_to}/${o.network_to}`,
              o.partner_id,
              o.created_at,
              holdLine(o.hold),
              o.id,
            ]),
          ),
        );
        print("");
        print(`${data.length} order(s). What each can do: \`${PROG} orders show <short_id>\`.`);
      });
    },
  },
  "orders show": {
    summary: "An order with what can be done with its money and its recent log",
    args: [orderArg],
    examples: ["orders show 7K3M9QX2TB", "orders show 7K3M9QX2TB --json"],
    async run({ args, api, output, print }) {
      const o = await api.get(`/orders/${seg(args.order_id)}`);
      output(o, () => {
        printOrder(print, o);
        if (o.actions) {
          print("");
          print(`Waits for a decision${o.actions.reason ? ` (${o.actions.reason})` : ""}:`);
          for (const l of offers(o.actions)) print(`  ${l}`);
        }
        print("");
        print(
          formatTable(
            ["AT", "FROM", "TO", "REASON"],
            o.events.slice(-10).map((e) => [e.at, e.from_status ?? "-", e.to_status, e.reason]),
          ),
        );
      });
    },
  },
  "orders refund": {
    summary:
      "Refund the deposit an order holds (or one extra deposit) to the address given or the order's own",
    args: [orderArg],
    flags: {
      address: {
        type: "string",
        value: "address",
        description: "refund address (required when the order has none)",
      },
      tag: tagFlag,
      deposit: {
        type: "string",
        value: "txid:index",
        description:
          "refund this extra or wrong-network deposit (actions.extra_deposits[].deposit, actions.wrong_network_deposits[].deposit) instead of the order's own",
      },
    },
    examples: [
      "orders refund 7K3M9QX2TB --address bc1q…",
      "orders refund 7K3M9QX2TB",
      "orders refund 7K3M9QX2TB --deposit 9f2c…:1 --address bc1q…",
    ],
    async run(ctx) {
      const { flags } = ctx;
      if (flags.tag !== undefined && flags.address === undefined)
        throw new UsageError("--tag needs --address");
      const body = {};
      if (flags.address !== undefined) body.refund_address = flags.address;
      if (flags.tag !== undefined) body.refund_address_tag = flags.tag;
      if (flags.deposit !== undefined) body.deposit = flags.deposit;
      await decide(ctx, "refund", body, (o) =>
        flags.deposit === undefined
          ? `Refund chosen for order ${o.short_id}: it is ${o.status}.`
          : `Refund of extra deposit ${clean(flags.deposit)} chosen for order ${o.short_id}.`,
      );
    },
  },
  "orders continue": {
    summary: "Exchange the deposit a failed order holds after all, at the float rate now",
    args: [orderArg],
    examples: ["orders continue 7K3M9QX2TB"],
    async run(ctx) {
      await decide(ctx, "continue", {}, (o) => `Continue chosen for order ${o.short_id}: it is ${o.status}.`);
    },
  },
  "orders payout": {
    summary: "Send a failed payout (payout_failed) to another recipient address",
    args: [orderArg],
    flags: {
      address: { type: "string", value: "address", required: true, description: "the new recipient address" },
      tag: tagFlag,
    },
    examples: ["orders payout 7K3M9QX2TB --address TZ1R…"],
    async run(ctx) {
      const body = { recipient_address: ctx.flags.address };
      if (ctx.flags.tag !== undefined) body.recipient_address_tag = ctx.flags.tag;
      await decide(
        ctx,
        "payout",
        body,
        (o) => `Payout to ${clean(ctx.flags.address)} chosen for order ${o.short_id}.`,
      );
    },
  },
  "orders resolve": {
    summary: "Record a payout or refund made by hand, outside the service (ends the order)",
    description:
      "The order must be on hold (`orders hold`): one waiting for a decision, or one stuck exchanging " +
      '(docs/operators.md, "An exchange stuck on the venue"). Refused (send_pending) while a send of that kind ' +
      "is pending or of unknown outcome at the gateway: settle it there first. The order ends completed (payout) or refunded (refund) with the " +
      "txid; the note and your operator name go into its log.",
    args: [orderArg],
    flags: {
      txid: { type: "string", value: "txid", required: true, description: "the transaction made by hand" },
      kind: { type: "string", value: "payout|refund", required: true, description: "what the transfer was" },
      note: { type: "string", value: "text", required: true, description: "why and how (goes into the log)" },
    },
    examples: [
      'orders resolve 7K3M9QX2TB --kind refund --txid 9f2c… --note "sent back from the cold wallet"',
    ],
    async run(ctx) {
      const { kind, txid, note } = ctx.flags;
      if (kind !== "payout" && kind !== "refund")
        throw new UsageError(`--kind must be payout or refund, got "${kind}"`);
      await decide(
        ctx,
        "resolve",
        { kind, txid, note },
        (o) => `Recorded the ${kind} ${clean(txid)} on order ${o.short_id}.`,
      );
    },
  },
  "orders hold": {
    summary:
      "Put an order waiting for a decision, or exchanging, on hold: the partner's decisions answer 409 and no venue leg is placed until released",
    description:
      "For settling the money by hand: `orders resolve` requires the hold. Your own decisions on the order " +
      "end it. Logged on the order and in the operator audit log.",
    args: [orderArg],
    flags: {
      note: { type: "string", value: "text", required: true, description: "why (goes into the log)" },
    },
    examples: ['orders hold 7K3M9QX2TB --note "refunding from the cold wallet"'],
    async run(ctx) {
      await decide(ctx, "hold", { note: ctx.flags.note }, (o) => `Order ${o.short_id} is on hold.`);
    },
  },
  "orders release": {
    summary: "Release an order's hold: the partner's decisions go again, a held exchange goes on",
    args: [orderArg],
    examples: ["orders release 7K3M9QX2TB"],
    async run({ args, api, output, print }) {
      const o = await api.delete(`/orders/${seg(args.order_id)}/hold`);
      output(o, () => {
        print(`Order ${o.short_id} is released.`);
        printOrder(print, o);
      });
    },
  },
};
