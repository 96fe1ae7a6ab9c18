// `regions …`: thin wrappers over /admin/v1/region-restrictions (src/http/routes/admin/region-restrictions.ts,
// docs/operators.md "Region restrictions"). Validation happens on the server.
import { formatRecord, UsageError } from "./core.mjs";

const list = (s) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");

/** "XMR=GB,US;ZEC=GB" → {XMR: ["GB","US"], ZEC: ["GB"]}. */
function coinsOf(spec) {
  const coins = {};
  for (const part of spec.split(";").filter((p) => p.trim() !== "")) {
    const [coin, countries, extra] = part.split("=");
    if (!coin?.trim() || countries === undefined || extra !== undefined)
      throw new UsageError(`expected COIN=CC,CC;COIN=CC, e.g. XMR=GB,US, got "${part}"`);
    coins[coin.trim()] = list(countries);
  }
  return coins;
}

function record(r) {
  const coins = Object.entries(r.coins).map(([coin, cs]) => `${coin}: ${cs.join(", ")}`);
  return formatRecord([
    ["countries", r.countries.length ? r.countries.join(", ") : "(none)"],
    ["coins", coins.length ? coins.join("; ") : "(none)"],
  ]);
}

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const regionCommands = {
  "regions show": {
    summary: "Countries served nothing, and coins refused per country",
    examples: ["regions show", "regions show --json"],
    async run({ api, output, print }) {
      output(await api.get("/region-restrictions"), (r) => print(record(r)));
    },
  },
  "regions set": {
    summary: "Replace the country list, the per-coin lists, or both (audited)",
    description:
      "Quotes and orders from a restricted country answer 451 region_restricted within a few seconds. A part not given is kept; an empty value clears it.",
    flags: {
      countries: { type: "string", value: "<CC,CC>", description: "ISO 3166-1 alpha-2 codes, e.g. KP,IR" },
      coins: { type: "string", value: "<COIN=CC,CC;…>", description: "per coin, e.g. XMR=GB,US;ZEC=GB" },
    },
    requireOneOf: ["countries", "coins"],
    examples: ["regions set --countries KP,IR", 'regions set --coins "XMR=GB,US"', 'regions set --coins ""'],
    async run({ flags, api, output, print }) {
      const current = await api.get("/region-restrictions");
      const next = {
        countries: flags.countries === undefined ? current.countries : list(String(flags.countries)),
        coins: flags.coins === undefined ? current.coins : coinsOf(String(flags.coins)),
      };
      const r = await api.request("PUT", "/region-restrictions", next);
      output(r, () => {
        print("Region restrictions set. Quotes and orders apply them within a few seconds.");
        print(record(r));
      });
    },
  },
};
