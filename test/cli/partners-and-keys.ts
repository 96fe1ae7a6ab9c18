import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { commands } from "../../scripts/cli/commands.mjs";
import { type CliOptions, type CommandSpec, parseDotenv, runCli } from "../../scripts/cli/core.mjs";
import { parseApiKey, secretMatches } from "../../src/domain/credentials";
import { findKey } from "../../src/storage/partners";
import { ADMIN_TOKEN, BASE } from "../helpers";
import { acceptInvite } from "../support/cabinet";

// Drives the CLI core (the same code `npm run cli` runs) against the real Worker in workerd.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const FULL_KEY = /\bpk_[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}\b/;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  requests: { url: string; method: string; authorization: string | null }[];
}

const workerFetch: CliOptions["fetch"] = (url, init) => exports.default.fetch(new Request(url, init));

async function cli(argv: string[], options: Partial<CliOptions> = {}): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const requests: Run["requests"] = [];
  const fetch = options.fetch ?? workerFetch;
  const code = await runCli(argv, {
    commands,
    env: { ADMIN_TOKEN, API_URL: BASE },
    print: (t) => out.push(t),
    printError: (t) => err.push(t),
    ...options,
    fetch: (url, init) => {
      requests.push({
        url,
        method: init.method ?? "GET",
        authorization: new Headers(init.headers).get("authorization"),
      });
      return fetch(url, init);
    },
  });
  return { code, stdout: out.join("\n"), stderr: err.join("\n"), requests };
}

async function ok(...argv: string[]): Promise<string> {
  const r = await cli(argv);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return r.stdout;
}

async function okJson<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  return JSON.parse(await ok("--json", ...argv)) as T;
}

async function newPartner(name = "acme"): Promise<string> {
  const p = await okJson<{ id: string }>("partner", "create", "--name", name);
  return p.id;
}

describe("cli: partners", () => {
  it("create → show → list → disable/enable → update", async () => {
    const out = await ok(
      "partner",
      "create",
      "--name",
      "Acme CLI",
      "--markup-bps",
      "30",
      "--rate-limit",
      "1200",
    );
    const id = new RegExp(`Created partner (${UUID.source})`).exec(out)?.[1];
    expect(id).toBeDefined();
    expect(out).toMatch(/active\s+yes/);
    expect(out).toMatch(/markup_bps\s+30/);
    expect(out).toMatch(/rate limit\s+1200\/min/);
    expect(out).toContain(`key create ${id}`);

    expect(await okJson("partner", "show", id!)).toMatchObject({
      id,
      name: "Acme CLI",
      is_active: true,
      markup_bps: 30,
      rate_limit_per_minute: 1200,
    });

    const list = await ok("partner", "list");
    const lines = list.split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+ACTIVE\s+MARKUP_BPS\s+RATE_LIMIT\/MIN$/);
    const row = lines.find((l) => l.startsWith(id!));
    expect(row).toMatch(/Acme CLI\s+yes\s+30\s+1200$/);

    expect(await ok("partner", "disable", id!)).toBe(`Partner ${id} (Acme CLI) is now disabled.`);
    expect(await okJson("partner", "show", id!)).toMatchObject({ is_active: false });
    expect((await ok("partner", "list")).split("\n").find((l) => l.startsWith(id!))).toMatch(/\sno\s/);
    expect(await ok("partner", "enable", id!)).toBe(`Partner ${id} (Acme CLI) is now enabled.`);
    expect(await okJson("partner", "show", id!)).toMatchObject({ is_active: true });

    const updated = await ok(
      "partner",
      "update",
      id!,
      "--name=Acme Ltd",
      "--markup-bps",
      "0",
      "--rate-limit",
      "5",
    );
    expect(updated).toContain(`Updated partner ${id}.`);
    expect(await okJson("partner", "show", id!)).toMatchObject({
      name: "Acme Ltd",
      markup_bps: 0,
      rate_limit_per_minute: 5,
    });
  });

  it("--json prints the raw API responses and may come anywhere", async () => {
    const created = await okJson<Record<string, unknown>>("partner", "create", "--name", "json-co");
    expect(created).toMatchObject({
      name: "json-co",
      is_active: true,
      markup_bps: 0,
      rate_limit_per_minute: 600,
    });
    const list = JSON.parse(await ok("partner", "--json", "list")) as { data: { id: string }[] };
    expect(list.data.some((p) => p.id === created.id)).toBe(true);
    const patched = JSON.parse(await ok("partner", "disable", String(created.id), "--json"));
    expect(patched).toMatchObject({ id: created.id, is_active: false });
  });
});

describe("cli: keys", () => {
  it("create prints the key once; list never shows secrets; revoke marks it revoked", async () => {
    const id = await newPartner();
    const out = await ok("key", "create", id);
    const key = FULL_KEY.exec(out)?.[0];
    expect(key).toBeDefined();
    expect(out).toMatch(/store it now/i);
    expect(out).toMatch(/cannot be shown again/i);

    // The printed key is the one the Worker will authenticate: same checks as partner auth.
    const parsed = parseApiKey(key!);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(out).toContain(`Created live API key ${parsed.keyId} for partner ${id}.`);
    const found = await findKey(env.DB, parsed.keyId);
    expect(found?.partner.id).toBe(id);
    expect(await secretMatches(parsed.secret, found!.key.secret_hash)).toBe(true);

    const list = await ok("key", "list", id);
    expect(list.split("\n")[0]).toMatch(
      /^KEY_ID\s+MODE\s+KIND\s+STATUS\s+SCOPES\s+CREATED_AT\s+LAST_USED_AT\s+REVOKED_AT$/,
    );
    expect(list).toMatch(new RegExp(`^${parsed.keyId}\\s+live\\s+server\\s+active\\s`, "m"));
    expect(list).not.toContain(parsed.secret);
    const listJson = await okJson<{ data: Record<string, unknown>[] }>("key", "list", id);
    expect(listJson.data).toEqual([expect.objectContaining({ key_id: parsed.keyId, revoked_at: null })]);
    expect(JSON.stringify(listJson)).not.toContain(parsed.secret);

    expect(await ok("key", "revoke", id, parsed.keyId)).toBe(
      `Revoked API key ${parsed.keyId} of partner ${id}.`,
    );
    expect(await ok("key", "list", id)).toMatch(
      new RegExp(`^${parsed.keyId}\\s+live\\s+server\\s+revoked\\s.*\\d{4}-\\d\\d-\\d\\dT`, "m"),
    );
    const after = await okJson<{ data: { revoked_at: string | null }[] }>("key", "list", id);
    expect(after.data[0]?.revoked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await findKey(env.DB, parsed.keyId))?.key.revoked_at).toBeTruthy();

    // Revoking twice is harmless; --json gives a small confirmation object for scripts.
    expect(await okJson("key", "revoke", id, parsed.keyId)).toEqual({
      partner_id: id,
      key_id: parsed.keyId,
      revoked: true,
    });
  });

  it("key create --json returns {key_id, key, mode, scopes, kind, created_at}", async () => {
    const id = await newPartner();
    const k = await okJson<{ key_id: string; key: string; created_at: string }>("key", "create", id);
    expect(k.key).toMatch(FULL_KEY);
    expect(k.key.startsWith(`${k.key_id}.`)).toBe(true);
    expect(Object.keys(k).sort()).toEqual(["created_at", "key", "key_id", "kind", "mode", "scopes"]);
    expect(k).toMatchObject({ scopes: ["read", "orders:write", "webhooks:write"] });
  });

  it("key create --scopes grants exactly those; key list shows them; an unknown scope is refused", async () => {
    const id = await newPartner();
    const out = await ok("key", "create", id, "--scopes", "read, orders:act");
    const keyId = /API key (pk_[A-Za-z0-9_-]{16})/.exec(out)?.[1];
    expect(out).toContain("Scopes: read, orders:act");
    expect((await findKey(env.DB, keyId!))?.key.scopes).toBe("read orders:act");
    expect(await ok("key", "list", id)).toMatch(
      new RegExp(`^${keyId}\\s+live\\s+server\\s+active\\s+read,orders:act\\s`, "m"),
    );
    const bad = await cli(["key", "create", id, "--scopes", "orders:delete"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/scopes/);
  });

  it("key create --test makes a pk_test_ key (test mode)", async () => {
    const id = await newPartner();
    const out = await ok("key", "create", id, "--test");
    const parsed = parseApiKey(/pk_test_[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}/.exec(out)?.[0] ?? "");
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(out).toContain(`Created test API key ${parsed.keyId} for partner ${id}.`);
    expect((await findKey(env.DB, parsed.keyId))?.key.mode).toBe("test");
    expect(await ok("key", "list", id)).toMatch(
      new RegExp(`^${parsed.keyId}\\s+test\\s+server\\s+active\\s`, "m"),
    );
  });

  it("key create --app makes a public pk_app_ key and says it is public; key list shows its kind", async () => {
    const id = await newPartner();
    const out = await ok("key", "create", id, "--app");
    const parsed = parseApiKey(/pk_app_[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}/.exec(out)?.[0] ?? "");
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(out).toMatch(/PUBLIC/);
    expect((await findKey(env.DB, parsed.keyId))?.key.kind).toBe("app");
    expect(await ok("key", "list", id)).toMatch(
      new RegExp(`^${parsed.keyId}\\s+live\\s+app\\s+active\\s+read,orders:write\\s`, "m"),
    );
  });

  it("empty lists say how to go on", async () => {
    const id = await newPartner();
    expect(await ok("key", "list", id)).toContain(`key create ${id}`);
  });
});

describe("cli: help and usage errors", () => {
  it("--help lists every command; each command has its own help", async () => {
    for (const argv of [["--help"], ["-h"], ["help"]]) {
      const top = await cli(argv);
      expect(top.code).toBe(0);
      for (const name of Object.keys(commands)) expect(top.stdout).toContain(name);
      expect(top.stdout).toContain("--json");
    }
    for (const [name, spec] of Object.entries(commands)) {
      const r = await cli([...name.split(" "), "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: npm run cli -- ${name}`);
      expect(r.stdout).toContain(spec.summary);
      expect(r.requests).toEqual([]);
    }
    const create = await ok("partner", "create", "--help");
    expect(create).toMatch(/--name <name>.*\(required\)/);
    expect(create).toContain("--markup-bps <bps>");
    expect(create).toContain("--rate-limit <per-minute>");
    expect(await ok("help", "key", "revoke")).toContain(
      "Usage: npm run cli -- key revoke <partner_id> <key_id>",
    );
    // --help wins over a missing argument.
    expect(await ok("partner", "show", "--help")).toContain("<id>");

    const group = await ok("key", "--help");
    expect(group).toContain("key create");
    expect(group).not.toContain("partner create");
  });

  const usageCases: [string[], RegExp][] = [
    [[], /missing command/],
    [["bogus"], /unknown command: bogus/],
    [["partner"], /missing subcommand for "partner"/],
    [["partner", "bogus"], /unknown command: partner bogus/],
    [["--bogus", "partner", "list"], /unknown option --bogus/],
    [["partner", "list", "--bogus"], /unknown option --bogus/],
    [["partner", "list", "extra"], /unexpected argument "extra"/],
    [["partner", "show"], /missing argument <id>/],
    [["key", "revoke", "3f2c"], /missing argument <key_id>/],
    [["partner", "create"], /--name is required/],
    [["partner", "create", "--name"], /--name needs a value/],
    [["partner", "create", "--name", "a", "--name", "b"], /--name given more than once/],
    [
      ["partner", "create", "--name", "a", "--markup-bps", "1.5"],
      /--markup-bps must be a whole number, got "1.5"/,
    ],
    [["partner", "create", "--name", "a", "--markup-bps", "ten"], /--markup-bps must be a whole number/],
    [["partner", "create", "--name", "a", "--markup-bps", "-1"], /--markup-bps must be at least 0/],
    [["partner", "create", "--name", "a", "--rate-limit=0"], /--rate-limit must be at least 1/],
    [["partner", "create", "--name", "a", "--rate-limit", "1e3"], /--rate-limit must be a whole number/],
    [["partner", "update", "3f2c"], /give at least one of --name, --markup-bps, --rate-limit/],
    [["--json=yes", "partner", "list"], /--json takes no value/],
    [["--url", "ftp://example.com", "partner", "list"], /--url must be an http\(s\) URL/],
    [["--url", "not a url", "partner", "list"], /--url must be an absolute http\(s\) URL/],
  ];
  it.each(usageCases)("%j → exit 2", async (argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain("Usage: npm run cli --");
    expect(r.requests).toEqual([]);
  });
});

describe("cli: API and transport errors", () => {
  it("unknown partner → exit 1 with the API's detail and code", async () => {
    const r = await cli(["partner", "show", crypto.randomUUID()]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Error: Partner not found. (not_found, HTTP 404)");
    expect(r.stderr).toMatch(/request id: \S+/);
  });

  it("validation errors list the fields", async () => {
    const bad = await cli(["partner", "show", "not-a-uuid"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/\(invalid_request, HTTP 400\)/);
    expect(bad.stderr).toMatch(/ {2}- id: /);
    const big = await cli(["partner", "create", "--name", "x", "--markup-bps", "5000"]);
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/ {2}- markup_bps: /);
  });

  it("unknown key → exit 1; --json puts the raw error body on stderr", async () => {
    const id = await newPartner();
    const r = await cli(["--json", "key", "revoke", id, "pk_AAAAAAAAAAAAAAAA"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(JSON.parse(r.stderr)).toMatchObject({
      code: "not_found",
      detail: "API key not found for this partner.",
    });
  });

  it("wrong token → exit 1 with the 401 detail; --token overrides the environment", async () => {
    const r = await cli(["partner", "list"], { env: { ADMIN_TOKEN: "wrong", API_URL: BASE } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Error: Missing or invalid operator token. (invalid_api_key, HTTP 401)");
    const flag = await cli(["--token", "also-wrong", "partner", "list"]);
    expect(flag.code).toBe(1);
    expect(flag.requests[0]?.authorization).toBe("Bearer also-wrong");
    const good = await cli(["partner", "list", "--token", ADMIN_TOKEN], { env: { ADMIN_TOKEN: "wrong" } });
    expect(good.code).toBe(0);
  });

  it("without a token: .dev.vars for local URLs only, else exit 2 before any request", async () => {
    const loadDevToken = () => ADMIN_TOKEN;
    const local = await cli(["partner", "list"], { env: {}, loadDevToken });
    expect(local.code).toBe(0);
    expect(local.requests[0]).toMatchObject({
      url: "http://localhost:8787/admin/v1/partners",
      authorization: `Bearer ${ADMIN_TOKEN}`,
    });

    const remote = await cli(["--url", "https://api.example.com/", "partner", "list"], {
      env: {},
      loadDevToken,
    });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(
      /no operator token for https:\/\/api\.example\.com: set ADMIN_TOKEN or pass --token/,
    );
    expect(remote.requests).toEqual([]);

    const none = await cli(["partner", "list"], { env: {} });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no operator token/);
  });

  it("--url / API_URL choose the base URL; ids are path-encoded", async () => {
    const r = await cli(["--url", "https://ops.example.com/base/", "partner", "show", "a/b?c"], {
      fetch: async () => Response.json({ detail: "nope", code: "not_found" }, { status: 404 }),
    });
    expect(r.requests[0]?.url).toBe("https://ops.example.com/base/admin/v1/partners/a%2Fb%3Fc");
    expect(r.code).toBe(1);
    const env = await cli(["partner", "list"], {
      env: { ADMIN_TOKEN, API_URL: "http://127.0.0.1:9999" },
      fetch: async () => Response.json({ data: [] }),
    });
    expect(env.requests[0]?.url).toBe("http://127.0.0.1:9999/admin/v1/partners");
    expect(env.stdout).toMatch(/No partners yet/);
  });

  it("unreachable API or a non-JSON answer → exit 1 with a clear message", async () => {
    const down = await cli(["partner", "list"], {
      fetch: async () => {
        throw new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:8787") });
      },
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/could not reach http:\/\/localhost: fetch failed \(connect ECONNREFUSED/);

    const html = await cli(["partner", "list"], {
      fetch: async () => new Response("<html>Bad gateway</html>", { status: 502 }),
    });
    expect(html.code).toBe(1);
    expect(html.stderr).toContain("Error: HTTP 502: <html>Bad gateway</html>");
  });
});

describe("cli: extensibility and helpers", () => {
  it("other modules add commands by extending the table", async () => {
    const seen: unknown[] = [];
    const extra: Record<string, CommandSpec> = {
      "sim deposit": {
        summary: "Simulate a deposit",
        args: [{ name: "order_id" }],
        flags: { amount: { type: "string", value: "amount", required: true } },
        async run({ args, flags, print }) {
          seen.push({ args, flags });
          print("deposited");
          return 0;
        },
      },
    };
    const all = { ...commands, ...extra };
    const help = await cli(["--help"], { commands: all });
    expect(help.stdout).toMatch(/sim deposit\s+Simulate a deposit/);
    const r = await cli(["sim", "deposit", "o1", "--amount", "0.5"], { commands: all });
    expect(r).toMatchObject({ code: 0, stdout: "deposited" });
    expect(seen).toEqual([{ args: { order_id: "o1" }, flags: { amount: "0.5" } }]);
  });

  it("parseDotenv reads KEY=VALUE lines", () => {
    expect(
      parseDotenv(
        "# comment\n\nADMIN_TOKEN=abc123\r\nexport QUOTED=\"a b # c\"\nSINGLE='x'\nTRAILING=v # note\nnot a line\n",
      ),
    ).toEqual({ ADMIN_TOKEN: "abc123", QUOTED: "a b # c", SINGLE: "x", TRAILING: "v" });
  });
});

describe("cabinet commands", () => {
  it("invites, lists members and invites, signs a member out and deactivates them", async () => {
    const id = await newPartner("cabinet");
    const out = await ok("partner", "invite", id, "--email", "dev@example.com");
    const url = /(http:\/\/localhost:8787\/cabinet\/invite\/\S+)/.exec(out)?.[1];
    expect(out).toContain("as admin");
    expect(url).toBeTruthy();
    expect(await ok("partner", "invites", id)).toContain("dev@example.com");
    await ok("partner", "invite", id, "--email", "gone@example.com");
    const gone = /(\S+)\s+gone@example\.com/.exec(await ok("partner", "invites", id))![1]!;
    expect(await ok("partner", "invite-revoke", id, gone)).toBe(`Revoked invite ${gone} of partner ${id}.`);
    expect(await ok("partner", "invites", id)).not.toContain("gone@example.com");
    expect(await ok("partner", "users", id)).toContain("No cabinet members yet");
    const member = await acceptInvite(new URL(url!).pathname.split("/").pop()!);
    expect(await ok("partner", "users", id)).toContain(member.userId);
    expect(await ok("user", "sign-out", id, member.userId)).toBe("Ended 1 session(s).");
    expect(await ok("user", "deactivate", id, member.userId)).toMatch(/status\s+deactivated/);
    const bad = await cli(["partner", "invite", id, "--email", "x@example.com", "--role", "owner"]);
    expect(bad.code).toBe(1);
  });
});
