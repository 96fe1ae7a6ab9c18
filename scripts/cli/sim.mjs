// `sim …` commands: drive a simulated chain (SimChain) through /admin/v1/sim (src/http/routes/admin/sim.ts).
// Only networks in `simulated` chain mode have one; the API answers 404 for the others.
import { clean, formatRecord, formatTable, PROG, seg, UsageError } from "./core.mjs";

const MAX_MINE = 1000;

const networkArg = { name: "network", description: "network code, e.g. BTC, ETH, TRX (any case)" };

/** @type {import("./core.d.mts").FlagSpec} */
const tagFlag = { type: "string", value: "tag", description: "memo / destination tag (memo networks)" };
/** @type {import("./core.d.mts").FlagSpec} */
const coinFlag = {
  type: "string",
  value: "coin",
  description: "coin on that network, e.g. USDT (default: the network's native coin)",
};

/** Positional numbers are checked here, like int flags in core.mjs, so no request is made for a typo. */
function wholeNumber(name, raw, min, max) {
  const s = raw.trim();
  if (!/^\d+$/.test(s)) throw new UsageError(`<${name}> must be a whole number, got "${raw}"`);
  const n = Number(s);
  if (n < min || n > max) throw new UsageError(`<${name}> must be from ${min} to ${max}, got ${n}`);
  return n;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const tagText = (tag) => (tag === null || tag === undefined ? "" : ` (tag ${clean(tag)})`);

function printSent(print, t) {
  print(
    `Sent ${t.amount} ${t.coin} to ${clean(t.to)}${tagText(t.tag)} on ${t.network}; unconfirmed for now.`,
  );
  print(`txid  ${t.txid}`);
}

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const simCommands = {
  "sim status": {
    summary: "Show a simulated network's height and mempool size",
    args: [networkArg],
    examples: ["sim status BTC"],
    async run({ args, api, output, print }) {
      const s = await api.get(`/sim/${seg(args.network)}`);
      output(s, () =>
        print(
          formatRecord([
            ["network", s.network],
            ["height", s.height],
            ["mempool", plural(s.mempool, "transfer")],
          ]),
        ),
      );
    },
  },
  "sim send": {
    summary: "Send a simulated transfer to an address (lands in the mempool)",
    args: [
      networkArg,
      { name: "to", description: "receiving address" },
      { name: "amount", description: "amount in coin units, e.g. 0.015" },
    ],
    flags: { tag: tagFlag, coin: coinFlag },
    examples: [
      "sim send BTC bc1q… 0.015",
      "sim send ETH 0x9858… 25 --coin USDT",
      "sim send XRP rHb9… 20 --tag 1001",
    ],
    async run({ args, flags, api, output, print }) {
      const body = { to: args.to, amount: args.amount };
      if (flags.tag !== undefined) body.tag = flags.tag;
      if (flags.coin !== undefined) body.coin = flags.coin;
      const t = await api.post(`/sim/${seg(args.network)}/transfers`, body);
      output(t, () => {
        printSent(print, t);
        print("");
        print(`Next: confirm it with \`${PROG} sim mine ${t.network}\`.`);
      });
    },
  },
  "sim mine": {
    summary: "Mine blocks; the first one includes every transfer in the mempool",
    args: [
      networkArg,
      { name: "n", description: `how many blocks, 1–${MAX_MINE} (default 1)`, optional: true },
    ],
    examples: ["sim mine BTC", "sim mine BTC 6"],
    async run({ args, api, output, print }) {
      const count = args.n === undefined ? 1 : wholeNumber("n", args.n, 1, MAX_MINE);
      const r = await api.post(`/sim/${seg(args.network)}/blocks`, { count });
      output(r, () =>
        print(`Mined ${plural(count, "block")} on ${args.network.toUpperCase()}; height is now ${r.height}.`),
      );
    },
  },
  "sim reorg": {
    summary: "Remove the last blocks and the deposits in them (payouts go back to the mempool)",
    args: [networkArg, { name: "depth", description: "how many blocks to remove from the tip" }],
    examples: ["sim reorg BTC 2"],
    async run({ args, api, output, print }) {
      const depth = wholeNumber("depth", args.depth, 1, 1_000_000);
      const r = await api.post(`/sim/${seg(args.network)}/reorg`, { depth });
      output(r, () =>
        print(
          `Removed the last ${plural(depth, "block")} on ${args.network.toUpperCase()} and the deposits in them; height is now ${r.height}.`,
        ),
      );
    },
  },
  "sim drop": {
    summary: "Drop an unconfirmed transfer from the mempool (as if evicted or replaced)",
    args: [networkArg, { name: "txid", description: "the transfer's txid (64 hex characters)" }],
    examples: ["sim drop BTC 9f2c…"],
    async run({ args, api, output, print }) {
      await api.delete(`/sim/${seg(args.network)}/transfers/${seg(args.txid)}`);
      const network = args.network.toUpperCase();
      output({ network, txid: args.txid, dropped: true }, () =>
        print(`Dropped ${args.txid} from the ${network} mempool.`),
      );
    },
  },
  "sim outgoing": {
    summary: "List payouts and refunds sent on a simulated network, with their order ids",
    args: [networkArg],
    examples: ["sim outgoing BTC", "sim outgoing TRX --json"],
    async run({ args, api, output, print }) {
      const res = await api.get(`/sim/${seg(args.network)}/outgoing`);
      output(res, ({ data }) => {
        if (!data.length) {
          print(`No payouts or refunds on ${args.network.toUpperCase()} yet.`);
          return;
        }
        print(
          formatTable(
            ["TXID", "KIND", "ORDER_ID", "AMOUNT", "COIN", "TO", "TAG", "BLOCK", "CREATED_AT"],
            data.map((o) => [
              o.txid,
              o.kind,
              o.order_id,
              o.amount,
              o.coin,
              o.to,
              o.tag,
              o.block_height ?? "mempool",
              o.created_at,
            ]),
          ),
        );
      });
    },
  },
  "sim deposit": {
    summary: "Pay an order's deposit: send the expected (or given) amount to its deposit address and tag",
    description:
      "Looks the order up with GET /admin/v1/orders/{order_id}, then sends coin_from on network_from to " +
      "deposit_address (+ deposit_address_tag). The transfer is unconfirmed until you mine blocks.",
    args: [
      { name: "order_id", description: "the order's id or short_id" },
      { name: "amount", description: "amount to send (default: amount_from_expected)", optional: true },
    ],
    examples: ["sim deposit 7K3M9QX2TB", "sim deposit 7K3M9QX2TB 0.0149  # a short deposit"],
    async run({ args, api, output, print }) {
      const order = await api.get(`/orders/${seg(args.order_id)}`);
      const body = {
        to: order.deposit_address,
        amount: args.amount ?? order.amount_from_expected,
        coin: order.coin_from,
      };
      if (order.deposit_address_tag !== null && order.deposit_address_tag !== undefined)
        body.tag = order.deposit_address_tag;
      const t = await api.post(`/sim/${seg(order.network_from)}/transfers`, body);
      output({ order_id: order.id, ...t }, () => {
        print(`Deposit for order ${order.short_id ?? order.id}:`);
        printSent(print, t);
        if (order.status && order.status !== "waiting_deposit") {
          print(`Note: the order is ${order.status}, not waiting_deposit; the transfer was sent anyway.`);
        }
        const needed = order.deposit_confirmations_required;
        print("");
        print(
          `Next: \`${PROG} sim mine ${t.network}${needed > 1 ? ` ${needed}` : ""}\`` +
            (needed ? ` (the order needs ${plural(needed, "confirmation")}).` : "."),
        );
      });
    },
  },
};
