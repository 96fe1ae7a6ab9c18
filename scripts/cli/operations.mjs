// `alerts`, `incidents …`, `guard-rails`: thin wrappers over /admin/v1/alerts, /admin/v1/incidents
// and /admin/v1/guard-rails (src/http/routes/admin/{alerts,incidents,guard-rails}.ts; docs/operators.md).
// Validation happens on the server; errors are printed as it words them.
import { formatRecord, formatTable } from "./core.mjs";

const orNone = (v) => v ?? "-";

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const operationCommands = {
  "alerts list": {
    summary: "Orders' and statement payouts' alerts, open ones first",
    flags: {
      open: { type: "boolean", description: "only open alerts" },
      limit: { type: "int", value: "<n>", min: 1, max: 500, description: "at most this many (default 100)" },
    },
    examples: ["alerts list --open", "alerts list --limit 20 --json"],
    async run({ flags, api, output, print }) {
      const q = new URLSearchParams({ state: flags.open ? "open" : "all" });
      if (flags.limit !== undefined) q.set("limit", String(flags.limit));
      output(await api.get(`/alerts?${q}`), ({ data }) =>
        print(
          formatTable(
            ["STATE", "KIND", "ORDER", "LEDGER KEY", "OPENED", "LAST", "MESSAGE"],
            data.map((a) => [
              a.state,
              a.kind,
              a.order_id,
              a.ledger_key ?? "-",
              a.opened_at,
              a.last_at,
              a.message,
            ]),
          ),
        ),
      );
    },
  },
  "incidents list": {
    summary: "Service-status incidents: open ones and those opened in the last days, with notes",
    flags: {
      days: { type: "int", value: "<n>", min: 1, max: 365, description: "how far back (default 30)" },
    },
    examples: ["incidents list", "incidents list --days 7 --json"],
    async run({ flags, api, output, print }) {
      const q = flags.days === undefined ? "" : `?days=${flags.days}`;
      output(await api.get(`/incidents${q}`), ({ data }) =>
        print(
          formatTable(
            ["ID", "COMPONENT", "LEVEL", "OPENED", "CLOSED", "NOTES", "SUMMARY"],
            data.map((i) => [
              String(i.id),
              i.component,
              i.level,
              i.opened_at,
              orNone(i.closed_at),
              String(i.notes.length),
              i.summary,
            ]),
          ),
        ),
      );
    },
  },
  "incidents note": {
    summary: "Add a public note to an incident (shown on /status; audited)",
    args: [{ name: "id", description: "incident id" }],
    flags: {
      body: { type: "string", value: "<text>", required: true, description: "the note, 1–2000 characters" },
    },
    examples: ['incidents note 12 --body "Our BTC node provider is down; switching to a backup."'],
    async run({ args, flags, api, output, print }) {
      const i = await api.post(`/incidents/${encodeURIComponent(args.id)}/notes`, { body: flags.body });
      output(i, () =>
        print(`Noted incident ${i.id} (${i.component}, ${i.level}): ${i.notes.length} note(s).`),
      );
    },
  },
  "guard-rails": {
    summary: "Whether the configured modes (and the cabinet's origin) may run live money",
    examples: ["guard-rails", "guard-rails --json"],
    async run({ api, output, print }) {
      output(await api.get("/guard-rails"), (g) =>
        print(
          formatRecord([
            ["chain mode", g.chain_mode],
            ["exchange mode", g.exchange_mode],
            ["payout mode", g.payout_mode],
            ["cabinet origin", g.cabinet_origin],
            ["live orders", g.live_orders ? "on" : "OFF (503 service_misconfigured)"],
            ...g.problems.map((p) => ["problem", p]),
          ]),
        ),
      );
    },
  },
};
