// `widget create|list|revoke`: thin wrappers over /admin/v1/partners/{id}/widgets
// (src/http/routes/admin/widgets.ts; docs/widget.md).
import { formatRecord, formatTable, seg, UsageError } from "./core.mjs";

const partnerId = { name: "partner_id", description: "the partner's id (a UUID, see `partner list`)" };

/** "BTC:BTC>USDT:TRX" → the API's default_pair. */
function pairOf(text) {
  const m = /^([A-Za-z0-9]+):([A-Za-z0-9]+)>([A-Za-z0-9]+):([A-Za-z0-9]+)$/.exec(text);
  if (!m) throw new UsageError("--pair must look like BTC:BTC>USDT:TRX");
  return { coin_from: m[1], network_from: m[2], coin_to: m[3], network_to: m[4] };
}

/** "TRX:T…" or "XRP:r…:12345" → the API's locked_recipient. */
function lockedOf(text) {
  const [network, address, tag] = text.split(":");
  if (!network || !address) throw new UsageError("--locked-recipient must look like NETWORK:ADDRESS[:TAG]");
  return { network, address, ...(tag ? { tag } : {}) };
}

const list = (v) =>
  String(v)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

function widgetRecord(w) {
  return formatRecord([
    ["id", w.id],
    ["mode", w.mode],
    ["name", w.name],
    ["allowed origins", w.allowed_origins.join(", ")],
    ["theme", `${w.theme.accent} ${w.theme.scheme}`],
    [
      "default pair",
      w.default_pair
        ? `${w.default_pair.coin_from}:${w.default_pair.network_from} → ${w.default_pair.coin_to}:${w.default_pair.network_to}`
        : "(none)",
    ],
    [
      "locked recipient",
      w.locked_recipient ? `${w.locked_recipient.network}:${w.locked_recipient.address}` : "(none)",
    ],
    ["iframe", w.embed_url],
    ["referral link", w.referral_url],
    ["revoked_at", w.revoked_at ?? "(active)"],
  ]);
}

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const widgetCommands = {
  "widget create": {
    summary: "Create a widget and its referral link for a partner",
    args: [partnerId],
    flags: {
      origins: {
        type: "string",
        value: "origins",
        required: true,
        description: "comma-separated origins that may frame it (https; http only for localhost)",
      },
      mode: { type: "string", value: "mode", description: "live (default) or test (creates test orders)" },
      name: { type: "string", value: "name", description: "a name for the cabinet" },
      accent: { type: "string", value: "#rrggbb", description: "accent colour" },
      scheme: { type: "string", value: "scheme", description: "light, dark or auto (default)" },
      pair: { type: "string", value: "pair", description: "default pair, e.g. BTC:BTC>USDT:TRX" },
      amount: { type: "string", value: "amount", description: "default amount, in the coin sent" },
      coins: {
        type: "string",
        value: "coins",
        description: "comma-separated tickers offered (default: all)",
      },
      "locked-recipient": {
        type: "string",
        value: "network:address[:tag]",
        description: "every order pays out here; the user cannot change it",
      },
    },
    examples: [
      "widget create 3f2c… --origins https://shop.example",
      "widget create 3f2c… --origins https://wallet.example --mode test --locked-recipient TRX:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    ],
    async run({ args, flags, api, output, print }) {
      const theme = {
        ...(flags.accent !== undefined ? { accent: flags.accent } : {}),
        ...(flags.scheme !== undefined ? { scheme: flags.scheme } : {}),
      };
      const body = {
        allowed_origins: list(flags.origins),
        ...(flags.mode !== undefined ? { mode: flags.mode } : {}),
        ...(flags.name !== undefined ? { name: flags.name } : {}),
        ...(Object.keys(theme).length ? { theme } : {}),
        ...(flags.pair !== undefined ? { default_pair: pairOf(flags.pair) } : {}),
        ...(flags.amount !== undefined ? { default_amount: String(flags.amount) } : {}),
        ...(flags.coins !== undefined ? { coins: list(flags.coins) } : {}),
        ...(flags["locked-recipient"] !== undefined
          ? { locked_recipient: lockedOf(flags["locked-recipient"]) }
          : {}),
      };
      const w = await api.post(`/partners/${seg(args.partner_id)}/widgets`, body);
      output(w, () => {
        print(widgetRecord(w));
        print("");
        print("Paste on the site:");
        print(`<script src="${new URL(w.embed_url).origin}/widget.js" data-widget="${w.id}" async></script>`);
      });
    },
  },
  "widget list": {
    summary: "List a partner's widgets, revoked ones included",
    args: [partnerId],
    examples: ["widget list 3f2c…"],
    async run({ args, api, output, print }) {
      const res = await api.get(`/partners/${seg(args.partner_id)}/widgets`);
      output(res, ({ data }) =>
        print(
          data.length
            ? formatTable(
                ["ID", "MODE", "NAME", "ORIGINS", "REVOKED_AT"],
                data.map((w) => [w.id, w.mode, w.name, w.allowed_origins.join(","), w.revoked_at ?? ""]),
              )
            : "No widgets yet (see `widget create`).",
        ),
      );
    },
  },
  "widget revoke": {
    summary: "Revoke a widget: its frame, referral link and order creation stop",
    args: [partnerId, { name: "widget_id", description: "the widget's id (wid_…)" }],
    examples: ["widget revoke 3f2c… wid_3kP9xQ2mB7vT4nR8sL1a"],
    async run({ args, api, output, print }) {
      await api.delete(`/partners/${seg(args.partner_id)}/widgets/${seg(args.widget_id)}`);
      output({ partner_id: args.partner_id, widget_id: args.widget_id, revoked: true }, () =>
        print(`Revoked ${args.widget_id}.`),
      );
    },
  },
};
