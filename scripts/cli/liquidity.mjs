// `liquidity …`: thin wrappers over /admin/v1/liquidity (src/http/routes/admin/liquidity.ts,
// docs/liquidity.md). Validation happens on the server; errors are printed as it words them.
import { formatRecord, formatTable, UsageError } from "./core.mjs";

const coinArg = { name: "coin", description: "COIN:NETWORK, e.g. USDT:TRX" };

/** COIN:NETWORK (COIN/NETWORK also read) → the body's coin and network. */
function coinOf(ref) {
  const [coin, network, extra] = ref.split(/[:/]/);
  if (!coin || !network || extra !== undefined)
    throw new UsageError(`expected COIN:NETWORK, e.g. USDT:TRX, got "${ref}"`);
  return { coin, network };
}

const orNone = (v) => v ?? "-";

function record(l) {
  return formatRecord([
    ["coin / network", `${l.coin} / ${l.network}`],
    ["balance", l.balance ?? "(not limited)"],
    ["source", orNone(l.source)],
    ["paid since set", l.paid],
    ["held by regions", l.granted],
    ["available", orNone(l.available)],
    ["updated", l.updated_at],
  ]);
}

async function put(api, ref, balance) {
  return api.request("PUT", "/liquidity", { ...coinOf(ref), balance });
}

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const liquidityCommands = {
  "liquidity list": {
    summary: "Coins with an operator balance: balance, paid, held by regions, available",
    description: "A coin that is not listed is not limited by an operator balance (docs/liquidity.md).",
    examples: ["liquidity list", "liquidity list --json"],
    async run({ api, output, print }) {
      output(await api.get("/liquidity"), ({ data }) =>
        print(
          formatTable(
            ["COIN", "NETWORK", "BALANCE", "SOURCE", "PAID", "HELD", "AVAILABLE", "UPDATED"],
            data.map((l) => [
              l.coin,
              l.network,
              l.balance ?? "(not limited)",
              orNone(l.source),
              l.paid,
              l.granted,
              orNone(l.available),
              l.updated_at,
            ]),
          ),
        ),
      );
    },
  },
  "liquidity set": {
    summary: "Set what the service can pay out of a coin (audited)",
    description:
      "Orders that would promise more are refused with 422 insufficient_liquidity and quotes cap max_amount. Reservations of open orders are kept; payouts from now on count against the new balance.",
    args: [coinArg, { name: "amount", description: "a plain decimal, e.g. 2500.5" }],
    examples: ["liquidity set USDT:TRX 250000", "liquidity set BTC:BTC 3.5"],
    async run({ args, api, output, print }) {
      const l = await put(api, args.coin, args.amount);
      output(l, () => {
        print(`Set ${l.coin} on ${l.network} to ${l.balance}. New orders and quotes see it at once.`);
        print(record(l));
      });
    },
  },
  "liquidity clear": {
    summary: "Remove a coin's operator balance (audited)",
    description:
      "The coin is then limited by the payout gateway's GET /balances when it reports one (PAYOUT_MODE=http), else not at all.",
    args: [coinArg],
    examples: ["liquidity clear USDT:TRX"],
    async run({ args, api, output, print }) {
      const l = await put(api, args.coin, null);
      output(l, () => {
        print(
          l.balance === null
            ? `Cleared ${l.coin} on ${l.network}: not liquidity-limited.`
            : `Cleared ${l.coin} on ${l.network}: the payout gateway's balance (${l.balance}) applies.`,
        );
        print(record(l));
      });
    },
  },
};
