// `partner …` and `key …` commands: thin wrappers over /admin/v1/partners (src/http/routes/admin/partners.ts).
import { formatRecord, formatTable, PROG, seg } from "./core.mjs";

const partnerId = { name: "partner_id", description: "the partner's id (a UUID, see `partner list`)" };
const idArg = { name: "id", description: "the partner's id (a UUID, see `partner list`)" };

/** @type {import("./core.d.mts").FlagSpec} */
const nameFlag = { type: "string", value: "name", description: "display name, 1–100 characters" };
/** @type {import("./core.d.mts").FlagSpec} */
const markupFlag = {
  type: "int",
  value: "bps",
  min: 0,
  description: "partner markup in basis points on top of the service spread (0–1000; default 0)",
};
/** @type {import("./core.d.mts").FlagSpec} */
const rateLimitFlag = {
  type: "int",
  value: "per-minute",
  min: 1,
  description: "requests per minute for this partner (default: DEFAULT_PARTNER_RATE_LIMIT_PER_MINUTE)",
};

/** @type {import("./core.d.mts").FlagSpec} */
const webhookUrlFlag = {
  type: "string",
  value: "url",
  description: "https URL that receives signed order events; 'none' turns webhooks off",
};

function partnerRecord(p) {
  return formatRecord([
    ["id", p.id],
    ["name", p.name],
    ["active", p.is_active ? "yes" : "no"],
    ["markup_bps", p.markup_bps],
    ["rate limit", `${p.rate_limit_per_minute}/min`],
    ["webhook_url", p.webhook_url ?? "(none)"],
    ["webhook secret", p.webhook_secret_set ? "set" : "not set"],
    ["created_at", p.created_at],
    ["updated_at", p.updated_at],
  ]);
}

/** Builds the PATCH/POST body from the flags that were given. */
function partnerFields(flags) {
  const body = {};
  if (flags.name !== undefined) body.name = flags.name;
  if (flags["markup-bps"] !== undefined) body.markup_bps = flags["markup-bps"];
  if (flags["rate-limit"] !== undefined) body.rate_limit_per_minute = flags["rate-limit"];
  if (flags["webhook-url"] !== undefined)
    body.webhook_url = flags["webhook-url"] === "none" ? null : flags["webhook-url"];
  return body;
}

function setActive(active) {
  return {
    summary: active
      ? "Re-enable a disabled partner"
      : "Disable a partner (its keys stop working; nothing is deleted)",
    args: [idArg],
    examples: [`partner ${active ? "enable" : "disable"} 3f2c…`],
    async run({ args, api, output, print }) {
      const p = await api.patch(`/partners/${seg(args.id)}`, { is_active: active });
      output(p, () => print(`Partner ${p.id} (${p.name}) is now ${p.is_active ? "enabled" : "disabled"}.`));
    },
  };
}

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const partnerCommands = {
  "partner create": {
    summary: "Create a partner",
    flags: { name: { ...nameFlag, required: true }, "markup-bps": markupFlag, "rate-limit": rateLimitFlag },
    examples: ["partner create --name acme", "partner create --name acme --markup-bps 30 --rate-limit 1200"],
    async run({ flags, api, output, print }) {
      const p = await api.post("/partners", partnerFields(flags));
      output(p, () => {
        print(`Created partner ${p.id}.`);
        print(partnerRecord(p));
        print("");
        print(`Next: give it an API key with \`${PROG} key create ${p.id}\``);
      });
    },
  },
  "partner list": {
    summary: "List all partners",
    examples: ["partner list", "partner list --json"],
    async run({ api, output, print }) {
      const res = await api.get("/partners");
      output(res, ({ data }) => {
        if (!data.length) {
          print(`No partners yet. Create one with \`${PROG} partner create --name <name>\`.`);
          return;
        }
        print(
          formatTable(
            ["ID", "NAME", "ACTIVE", "MARKUP_BPS", "RATE_LIMIT/MIN"],
            data.map((p) => [
              p.id,
              p.name,
              p.is_active ? "yes" : "no",
              p.markup_bps,
              p.rate_limit_per_minute,
            ]),
          ),
        );
      });
    },
  },
  "partner show": {
    summary: "Show one partner",
    args: [idArg],
    examples: ["partner show 3f2c…"],
    async run({ args, api, output, print }) {
      output(await api.get(`/partners/${seg(args.id)}`), (p) => print(partnerRecord(p)));
    },
  },
  "partner update": {
    summary: "Change a partner's name, markup, rate limit or webhook URL",
    args: [idArg],
    flags: {
      name: nameFlag,
      "markup-bps": markupFlag,
      "rate-limit": rateLimitFlag,
      "webhook-url": webhookUrlFlag,
    },
    requireOneOf: ["name", "markup-bps", "rate-limit", "webhook-url"],
    examples: [
      "partner update 3f2c… --markup-bps 25",
      "partner update 3f2c… --name 'Acme Ltd' --rate-limit 300",
      "partner update 3f2c… --webhook-url https://partner.example/hooks",
    ],
    async run({ args, flags, api, output, print }) {
      const p = await api.patch(`/partners/${seg(args.id)}`, partnerFields(flags));
      output(p, () => {
        print(`Updated partner ${p.id}.`);
        print(partnerRecord(p));
      });
    },
  },
  "partner webhook-secret": {
    summary: "Create or rotate the webhook signing secret (shown only once)",
    args: [idArg],
    examples: ["partner webhook-secret 3f2c…"],
    async run({ args, api, output, print }) {
      const r = await api.post(`/partners/${seg(args.id)}/webhook-secret`);
      output(r, () => {
        print(`New webhook signing secret for partner ${args.id}:`);
        print("");
        print(`  ${r.secret}`);
        print("");
        print("Give it to the partner now: it cannot be shown again. The previous secret no longer signs.");
      });
    },
  },
  "partner disable": setActive(false),
  "partner enable": setActive(true),

  "key create": {
    summary: "Create an API key for a partner (the full key is shown only once)",
    args: [partnerId],
    flags: {
      test: {
        type: "boolean",
        description: "a test-mode key (pk_test_…): test orders only, nothing real moves",
      },
      scopes: {
        type: "string",
        value: "list",
        description:
          "comma-separated: read, orders:write, orders:act, webhooks:write (default: all but orders:act)",
      },
      app: {
        type: "boolean",
        description:
          "an app key (pk_app_…) to embed in an app: PUBLIC, anyone can read it out; it only quotes, creates orders and reads its own (no --scopes)",
      },
    },
    examples: [
      "key create 3f2c…",
      "key create 3f2c… --test",
      "key create 3f2c… --scopes read",
      "key create 3f2c… --scopes read,orders:write,orders:act",
      "key create 3f2c… --app",
      "key create 3f2c… --json | jq -r .key",
    ],
    async run({ args, flags, api, output, print }) {
      const k = await api.post(`/partners/${seg(args.partner_id)}/keys`, {
        mode: flags.test ? "test" : "live",
        ...(flags.app ? { kind: "app" } : {}),
        ...(flags.scopes !== undefined
          ? {
              scopes: flags.scopes
                .split(",")
                .map((s) => s.trim())
                .filter(Boolean),
            }
          : {}),
      });
      output(k, () => {
        print(`Created ${k.mode} API key ${k.key_id} for partner ${args.partner_id}.`);
        print(`Scopes: ${k.scopes.join(", ")}`);
        if (k.kind === "app")
          print(
            "App key: it is PUBLIC once in an app. It only quotes, creates orders and reads the orders it created; keep server keys off devices.",
          );
        print("");
        print(`  ${k.key}`);
        print("");
        print("Store it now: this is the only time the full key is shown. It cannot be shown again;");
        print(`if it is lost, create a new key and revoke ${k.key_id}.`);
      });
    },
  },
  "key list": {
    summary: "List a partner's API keys (ids, scopes and dates; secrets are never shown)",
    args: [partnerId],
    examples: ["key list 3f2c…"],
    async run({ args, api, output, print }) {
      const res = await api.get(`/partners/${seg(args.partner_id)}/keys`);
      output(res, ({ data }) => {
        if (!data.length) {
          print(
            `No API keys for partner ${args.partner_id}. Create one with \`${PROG} key create ${args.partner_id}\`.`,
          );
          return;
        }
        print(
          formatTable(
            ["KEY_ID", "MODE", "KIND", "STATUS", "SCOPES", "CREATED_AT", "LAST_USED_AT", "REVOKED_AT"],
            data.map((k) => [
              k.key_id,
              k.mode,
              k.kind,
              k.revoked_at ? "revoked" : "active",
              k.scopes.join(","),
              k.created_at,
              k.last_used_at,
              k.revoked_at,
            ]),
          ),
        );
      });
    },
  },
  "key revoke": {
    summary: "Revoke an API key (takes effect everywhere within 30 s)",
    args: [partnerId, { name: "key_id", description: "the key's id, `pk_…` (see `key list`)" }],
    examples: ["key revoke 3f2c… pk_AbCdEfGhIjKlMnOp"],
    async run({ args, api, output, print }) {
      await api.delete(`/partners/${seg(args.partner_id)}/keys/${seg(args.key_id)}`);
      output({ partner_id: args.partner_id, key_id: args.key_id, revoked: true }, () =>
        print(`Revoked API key ${args.key_id} of partner ${args.partner_id}.`),
      );
    },
  },
};
