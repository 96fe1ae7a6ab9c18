// `currency …` and `audit list`: thin wrappers over /admin/v1/currencies and /admin/v1/audit
// (src/http/routes/admin/currencies.ts). Validation happens on the server; errors are printed as it words them.
import { formatRecord, formatTable, seg, UsageError } from "./core.mjs";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const str = (value, description) => ({ type: "string", value, description });
const onOff = (description) => ({ type: "string", value: "on|off", description });
const orNone = (description) => ({
  type: "string",
  value: "value|none",
  description: `${description}; 'none' clears it`,
});

/** Flags shared by `currency add` and `currency update`, with the body field each sets. */
const FIELD_FLAGS = {
  name: [str("name", "display name"), "name", String],
  min: [str("amount", "minimum amount per order, e.g. 0.0005"), "min_amount", String],
  max: [str("amount", "maximum amount per order"), "max_amount", String],
  confirmations: [
    { type: "int", value: "n", min: 0, description: "confirmations a deposit needs" },
    "min_confirmations",
    Number,
  ],
  decimals: [
    {
      type: "int",
      value: "n",
      min: 0,
      max: 18,
      description: "decimal places (frozen after the first order)",
    },
    "decimals",
    Number,
  ],
  "withdraw-fee": [str("amount", "payout network fee charged to the user"), "withdraw_fee", String],
  contract: [orNone("token contract / mint address"), "contract_address", noneIsNull],
  "explorer-tx": [orNone("https URL template with {txid}"), "explorer_tx_url", noneIsNull],
  "explorer-address": [orNone("https URL template with {address}"), "explorer_address_url", noneIsNull],
  sort: [{ type: "int", value: "n", description: "display position (lower first)" }, "sort_order", Number],
  active: [onOff("listed in /currencies and quotable"), "is_active", onOffValue],
  deposits: [onOff("accepted as coin_from by new orders"), "is_deposit_enabled", onOffValue],
  withdrawals: [onOff("accepted as coin_to by new orders"), "is_withdraw_enabled", onOffValue],
};

function noneIsNull(v) {
  return v === "none" ? null : v;
}

function onOffValue(v, flag) {
  if (v !== "on" && v !== "off") throw new UsageError(`--${flag} takes on or off`);
  return v === "on";
}

function body(flags) {
  const out = {};
  for (const [flag, [, field, convert]] of Object.entries(FIELD_FLAGS))
    if (flags[flag] !== undefined) out[field] = convert(flags[flag], flag);
  return out;
}

const fieldFlags = Object.fromEntries(Object.entries(FIELD_FLAGS).map(([f, [spec]]) => [f, spec]));
const yes = (b) => (b ? "yes" : "no");

function record(c) {
  return formatRecord([
    ["id", c.id],
    ["coin / network", `${c.coin} / ${c.network}`],
    ["name", c.name],
    ["active", yes(c.is_active)],
    ["deposits", yes(c.is_deposit_enabled)],
    ["withdrawals", yes(c.is_withdraw_enabled)],
    ["min / max", `${c.min_amount} / ${c.max_amount}`],
    ["confirmations", c.min_confirmations],
    ["decimals", c.decimals],
    ["withdraw_fee", c.withdraw_fee],
    ["contract", c.contract_address ?? "(native)"],
    ["explorer tx", c.explorer_tx_url ?? "(none)"],
    ["explorer address", c.explorer_address_url ?? "(none)"],
  ]);
}

/** A row id, or COIN/NETWORK looked up in the catalog. */
async function resolveId(api, ref) {
  if (UUID.test(ref)) return ref;
  const [coin, network] = ref.toUpperCase().split("/");
  const { data } = await api.get("/currencies");
  const row = data.find((c) => c.coin === coin && c.network === network);
  if (!row) throw new UsageError(`no catalog row ${ref} (use COIN/NETWORK, e.g. USDT/TRX, or the row id)`);
  return row.id;
}

const ref = { name: "currency", description: "COIN/NETWORK (e.g. USDT/TRX) or the row id" };

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const currencyCommands = {
  "currency list": {
    summary: "List every catalog row, active or not",
    examples: ["currency list", "currency list --json"],
    async run({ api, output, print }) {
      output(await api.get("/currencies"), ({ data }) =>
        print(
          formatTable(
            ["COIN", "NETWORK", "ACTIVE", "DEPOSITS", "WITHDRAWALS", "MIN", "MAX", "CONF", "DEC", "ID"],
            data.map((c) => [
              c.coin,
              c.network,
              yes(c.is_active),
              yes(c.is_deposit_enabled),
              yes(c.is_withdraw_enabled),
              c.min_amount,
              c.max_amount,
              c.min_confirmations,
              c.decimals,
              c.id,
            ]),
          ),
        ),
      );
    },
  },
  "currency add": {
    summary: "List a coin on a network (audited)",
    flags: {
      coin: { ...str("ticker", "ticker, e.g. PEPE"), required: true },
      network: { ...str("code", "network code, e.g. ETH (docs/networks.md)"), required: true },
      memo: { type: "boolean", description: "the network needs a memo / destination tag" },
      ...fieldFlags,
      name: { ...fieldFlags.name, required: true },
      min: { ...fieldFlags.min, required: true },
      max: { ...fieldFlags.max, required: true },
      confirmations: { ...fieldFlags.confirmations, required: true },
      decimals: { ...fieldFlags.decimals, required: true },
      "withdraw-fee": { ...fieldFlags["withdraw-fee"], required: true },
    },
    examples: [
      "currency add --coin PEPE --network ETH --name 'Pepe (ERC-20)' --min 100000 --max 1000000000 --confirmations 12 --decimals 6 --withdraw-fee 50000 --contract 0x6982508145454ce325ddbe47a25d4ec3d2311933 --explorer-tx 'https://etherscan.io/tx/{txid}'",
    ],
    async run({ flags, api, output, print }) {
      const c = await api.post("/currencies", {
        coin: flags.coin,
        network: flags.network,
        ...(flags.memo ? { is_memo: true } : {}),
        ...body(flags),
      });
      output(c, () => {
        print(`Listed ${c.coin} on ${c.network}. Quotes and /currencies show it within 5 seconds.`);
        print(record(c));
      });
    },
  },
  "currency update": {
    summary: "Change a catalog row: switches, limits, fee, explorer links, contract (audited)",
    description:
      "Switching deposits or the row off stops new orders; existing orders sending this coin complete. Switching withdrawals off makes existing orders paying this coin refund.",
    args: [ref],
    flags: fieldFlags,
    requireOneOf: Object.keys(fieldFlags),
    examples: [
      "currency update USDT/TRX --deposits off",
      "currency update BTC/BTC --min 0.001 --confirmations 3",
    ],
    async run({ args, flags, api, output, print }) {
      const id = await resolveId(api, args.currency);
      const c = await api.patch(`/currencies/${seg(id)}`, body(flags));
      output(c, () => {
        print(`Updated ${c.coin} on ${c.network}. Every isolate serves the change within 5 seconds.`);
        print(record(c));
      });
    },
  },
  "audit list": {
    summary: "The operator audit log, newest first",
    flags: {
      currency: str("COIN/NETWORK|id", "only this catalog row's history"),
      limit: { type: "int", value: "n", min: 1, max: 500, description: "entries to show (default 100)" },
    },
    examples: ["audit list", "audit list --currency USDT/TRX --limit 10"],
    async run({ flags, api, output, print }) {
      const q = new URLSearchParams();
      if (flags.currency !== undefined) q.set("entity_id", await resolveId(api, String(flags.currency)));
      if (flags.limit !== undefined) q.set("limit", String(flags.limit));
      output(await api.get(`/audit${q.size ? `?${q}` : ""}`), ({ data }) =>
        print(
          formatTable(
            ["AT", "OPERATOR", "ACTION", "ENTITY", "REQUEST"],
            data.map((e) => [e.at, e.operator, e.action, `${e.entity_type}:${e.entity_id}`, e.request_id]),
          ),
        ),
      );
    },
  },
};
