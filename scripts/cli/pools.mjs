// `pool …`: the deposit-address pools (SOL) over /admin/v1/address-pool (src/http/routes/admin/orders.ts,
// docs/operators.md "Deposit-address pools"). Addresses are validated on the server.
import { formatTable, seg, UsageError } from "./core.mjs";

/** The API takes this many addresses per request. */
const PER_REQUEST = 1000;

function table({ low_water, data }) {
  return formatTable(
    ["NETWORK", "FREE", "UNRESERVED", "HELD BY SHARDS", "ASSIGNED", "STATE"],
    data.map((p) => [
      p.network,
      p.free,
      p.available,
      p.reserved,
      p.assigned,
      p.free === 0 ? "EMPTY: orders refused" : p.low ? `LOW (< ${low_water})` : "ok",
    ]),
  );
}

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const poolCommands = {
  "pool show": {
    summary: "Deposit-address pools: free, unreserved, held by shards, assigned; low or empty",
    description:
      "Every network whose deposits draw from a pool, an empty one included. Below the low-water mark (ADDRESS_POOL_LOW_WATER) the operator alert address_pool_low is open; an empty pool refuses every order from that network and shows its deposits down in the service status.",
    examples: ["pool show", "pool show --json"],
    async run({ api, output, print }) {
      output(await api.get("/address-pool"), (r) => print(table(r)));
    },
  },
  "pool add": {
    summary: "Load deposit addresses into a network's pool (duplicates ignored)",
    description: `Addresses separated by commas, spaces or newlines, sent ${PER_REQUEST} per request; a request with an invalid address adds nothing of its own and stops the command. The keys of these addresses are the operator's (docs/networks.md, "Address pools").`,
    args: [
      { name: "network", description: "the pool's network, e.g. SOL" },
      { name: "addresses", description: 'the addresses, e.g. "$(cat sol-addresses.txt)"' },
    ],
    examples: [
      "pool add SOL 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
      'pool add SOL "$(cat sol-addresses.txt)"',
    ],
    async run({ args, api, output, print }) {
      const addresses = args.addresses.split(/[\s,]+/).filter((a) => a !== "");
      if (addresses.length === 0) throw new UsageError("no addresses given");
      let added = 0;
      for (let i = 0; i < addresses.length; i += PER_REQUEST) {
        const r = await api.post(`/address-pool/${seg(args.network)}`, {
          addresses: addresses.slice(i, i + PER_REQUEST),
        });
        added += r.added;
      }
      const levels = await api.get("/address-pool");
      const network = args.network.toUpperCase();
      output({ network, added, pool: levels.data.find((p) => p.network === network) ?? null }, () => {
        print(
          `Added ${added} of ${addresses.length} addresses to the ${network} pool (the rest were there already).`,
        );
        print(table({ ...levels, data: levels.data.filter((p) => p.network === network) }));
      });
    },
  },
};
