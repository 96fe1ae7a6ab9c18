// Operator CLI core: argument parsing, command dispatch, admin-API calls and output helpers.
//
// No Node-only imports here: the HTTP client is an injected `fetch`, output goes through injected
// `print` / `printError`, and `runCli` returns the exit code instead of touching `process`. That
// lets test/cli.test.ts drive the real Worker inside workerd. The Node entry is scripts/cli.mjs.
//
// Commands are plain data: a map of "group sub" name → CommandSpec (see core.d.mts). Adding a
// command (e.g. `sim deposit`) means adding an entry to a module listed in commands.mjs; the
// dispatcher never changes.

import { parseArgs } from "@pkgjs/parseargs";

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const DEFAULT_URL = "http://localhost:8787";
export const PROG = "npm run cli --";

/** Bad invocation: printed with the relevant usage, exit code 2. */
export class UsageError extends Error {
  name = "UsageError";
}

/** A non-2xx answer from the API, exit code 1. */
export class ApiFailure extends Error {
  name = "ApiFailure";
  /**
   * @param {number} status
   * @param {any} body parsed JSON body, or null when the response was not JSON
   * @param {string | null} requestId
   * @param {string} [text] raw body when it was not JSON
   */
  constructor(status, body, requestId, text = "") {
    super(body?.detail ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.requestId = requestId;
    this.text = text;
  }
}

/** The API could not be reached at all, exit code 1. */
export class NetworkError extends Error {
  name = "NetworkError";
}

export const GLOBAL_FLAGS = {
  url: {
    type: "string",
    value: "base",
    description: `API base URL (default: $API_URL, else ${DEFAULT_URL})`,
  },
  token: {
    type: "string",
    value: "token",
    description: "operator token (default: $ADMIN_TOKEN, else ADMIN_TOKEN from .dev.vars for a local URL)",
  },
  json: { type: "boolean", description: "print the raw JSON responses instead of text (for scripts)" },
  help: { type: "boolean", description: "show help (also -h)" },
};

// ---------------------------------------------------------------------------------------------
// Parsing

const isFlagToken = (tok) => tok === "-h" || (tok.startsWith("--") && tok.length > 2);

/**
 * argv as parseArgs reads it against `spec` (string for `int` flags, `-h` for help). Not strict:
 * every check is ours, so each mistake gets the message an operator can act on.
 */
function tokenize(argv, spec) {
  const options = Object.fromEntries(
    Object.entries(spec).map(([name, def]) => [
      name,
      { type: def.type === "boolean" ? "boolean" : "string", ...(name === "help" ? { short: "h" } : {}) },
    ]),
  );
  return parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true }).tokens;
}

/** Checks one option token against `spec` and stores its value in `out`; UsageError otherwise. */
function takeFlag(token, spec, out) {
  const { name } = token;
  const def = Object.hasOwn(spec, name) ? spec[name] : undefined;
  if (!def) throw new UsageError(`unknown option ${token.rawName}`);
  if (Object.hasOwn(out, name)) throw new UsageError(`--${name} given more than once`);
  if (def.type === "boolean") {
    if (token.value !== undefined) throw new UsageError(`--${name} takes no value`);
    out[name] = true;
    return;
  }
  const raw = token.value;
  if (raw === undefined || (!token.inlineValue && (isFlagToken(raw) || raw === "--"))) {
    throw new UsageError(`--${name} needs a value: --${name} <${def.value ?? "value"}>`);
  }
  out[name] = def.type === "int" ? parseIntFlag(name, raw, def) : raw;
}

function parseIntFlag(name, raw, def) {
  const s = raw.trim();
  if (!/^[+-]?\d+$/.test(s)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} is out of range: ${raw}`);
  if (def.min !== undefined && n < def.min)
    throw new UsageError(`--${name} must be at least ${def.min}, got ${n}`);
  if (def.max !== undefined && n > def.max)
    throw new UsageError(`--${name} must be at most ${def.max}, got ${n}`);
  return n;
}

/**
 * Splits argv into the command name, its positional arguments and flags. Command words and
 * global flags may come in any order before the command's own arguments.
 * @returns {{ name: string, words: string[], command: any, positionals: string[], flags: Record<string, any>, help: boolean, error?: UsageError }}
 */
export function parseArgv(argv, commands) {
  const names = Object.keys(commands);
  const end = argv.indexOf("--");
  const help = (end < 0 ? argv : argv.slice(0, end)).some((t) => t === "--help" || t === "-h");
  const flags = {};
  const words = [];
  const isPrefix = (ws) => {
    const s = ws.join(" ");
    return names.some((n) => n === s || n.startsWith(`${s} `));
  };

  // `help partner create` is the same as `partner create --help`.
  if (argv[0] === "help" && !Object.hasOwn(commands, "help")) {
    const ws = argv.slice(1).filter((t) => !isFlagToken(t));
    const take = [];
    for (const w of ws) {
      if (!isPrefix([...take, w])) break;
      take.push(w);
    }
    const name = take.join(" ");
    const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
    const error = ws.length > take.length ? new UsageError(`unknown command: ${ws.join(" ")}`) : undefined;
    return { name, words: take, command, positionals: [], flags, help: !error, error };
  }

  // Phase 1: command words (longest known prefix) and global flags; stops at the first token that
  // is neither, which is where the command's own arguments begin.
  let rest = argv.length;
  try {
    for (const token of tokenize(argv, GLOBAL_FLAGS)) {
      const own =
        token.kind === "option"
          ? Object.hasOwn(GLOBAL_FLAGS, token.name)
          : token.kind === "positional" && isPrefix([...words, token.value]);
      if (!own) {
        rest = token.index;
        break;
      }
      if (token.kind === "option") takeFlag(token, GLOBAL_FLAGS, flags);
      else words.push(token.value);
    }
  } catch (e) {
    return { name: words.join(" "), words, command: undefined, positionals: [], flags, help, error: e };
  }

  const name = words.join(" ");
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    const next = argv[rest];
    let error;
    if (next !== undefined && next !== "--") {
      error = isFlagToken(next)
        ? new UsageError(`unknown option ${next.split("=")[0]}`)
        : new UsageError(`unknown command: ${[...words, next].join(" ")}`);
    } else if (!help) {
      error = new UsageError(words.length ? `missing subcommand for "${name}"` : "missing command");
    }
    return { name, words, command, positionals: [], flags, help, error };
  }

  // Phase 2: the command's own positionals and flags (global flags still allowed).
  const spec = { ...GLOBAL_FLAGS, ...(command.flags ?? {}) };
  const positionals = [];
  // A `--` before the command's arguments is only a shell habit for a negative number
  // (`statements adjust <partner> -- -12.5 --reason …`, as documented): a lone dash word is an
  // argument anyway, and the flags after it are still the command's. Dropped, not an end of options.
  const own = argv.slice(rest).filter((t, i, all) => t !== "--" || all.indexOf("--") !== i);
  let lastShort = -1;
  try {
    for (const token of tokenize(own, spec)) {
      // Only `-h` and `--name` are options: a lone dash word such as `-1` is an argument (a
      // negative number the command refuses with its own message), however parseArgs split it.
      if (token.kind === "option" && !isFlagToken(own[token.index])) {
        if (token.index !== lastShort) positionals.push(own[token.index]);
        lastShort = token.index;
      } else if (token.kind === "option") takeFlag(token, spec, flags);
      else if (token.kind === "positional") positionals.push(token.value);
    }
  } catch (e) {
    return { name, words, command, positionals, flags, help, error: e };
  }
  return { name, words, command, positionals, flags, help };
}

/** Binds positionals to the command's declared args and checks required flags. */
function bindArgs(command, positionals, flags) {
  const decl = command.args ?? [];
  const args = {};
  decl.forEach((a, idx) => {
    const v = positionals[idx];
    if (v === undefined) {
      if (!a.optional) throw new UsageError(`missing argument <${a.name}>`);
    } else args[a.name] = v;
  });
  if (positionals.length > decl.length)
    throw new UsageError(`unexpected argument "${positionals[decl.length]}"`);
  for (const [fname, def] of Object.entries(command.flags ?? {})) {
    if (def.required && flags[fname] === undefined) throw new UsageError(`--${fname} is required`);
  }
  if (command.requireOneOf && !command.requireOneOf.some((f) => flags[f] !== undefined)) {
    throw new UsageError(`give at least one of ${command.requireOneOf.map((f) => `--${f}`).join(", ")}`);
  }
  return args;
}

// ---------------------------------------------------------------------------------------------
// Help texts

function synopsis(name, command) {
  const args = (command.args ?? []).map((a) => (a.optional ? `[<${a.name}>]` : `<${a.name}>`));
  const flags = Object.entries(command.flags ?? {}).map(([f, d]) => {
    const s = d.type === "boolean" ? `--${f}` : `--${f} <${d.value ?? "value"}>`;
    return d.required ? s : `[${s}]`;
  });
  return [PROG, name, ...args, ...flags].join(" ");
}

function optionLines(spec) {
  const rows = Object.entries(spec).map(([f, d]) => [
    d.type === "boolean" ? `--${f}` : `--${f} <${d.value ?? "value"}>`,
    d,
  ]);
  const width = Math.max(...rows.map(([s]) => s.length));
  return rows.map(
    ([s, d]) => `  ${s.padEnd(width)}  ${d.description ?? ""}${d.required ? " (required)" : ""}`,
  );
}

export function commandHelp(name, command) {
  const lines = [`Usage: ${synopsis(name, command)}`, "", command.summary];
  if (command.description) lines.push("", command.description);
  if (command.args?.length) {
    const width = Math.max(...command.args.map((a) => a.name.length + 2));
    lines.push("", "Arguments:");
    for (const a of command.args) lines.push(`  ${`<${a.name}>`.padEnd(width)}  ${a.description ?? ""}`);
  }
  if (command.flags && Object.keys(command.flags).length)
    lines.push("", "Options:", ...optionLines(command.flags));
  lines.push("", "Global options:", ...optionLines(GLOBAL_FLAGS));
  if (command.examples?.length) lines.push("", "Examples:", ...command.examples.map((e) => `  ${PROG} ${e}`));
  return lines.join("\n");
}

function commandList(commands, prefix) {
  const entries = Object.entries(commands).filter(
    ([n]) => !prefix || n === prefix || n.startsWith(`${prefix} `),
  );
  const width = Math.max(0, ...entries.map(([n]) => n.length));
  return entries.map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`);
}

export function topHelp(commands, prefix = "") {
  return [
    `Usage: ${PROG} ${prefix ? `${prefix} ` : ""}<command> [arguments] [options]`,
    "",
    prefix ? `"${prefix}" commands:` : "Operator CLI for the partner exchange API (/admin/v1).",
    ...(prefix ? [] : ["", "Commands:"]),
    ...commandList(commands, prefix),
    "",
    "Global options:",
    ...optionLines(GLOBAL_FLAGS),
    "",
    `Run "${PROG} ${prefix ? `${prefix} ` : ""}<command> --help" for a command's arguments and options.`,
    "Exit codes: 0 success, 1 API or network error, 2 usage error.",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------
// HTTP

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** True for loopback URLs, where the dev token from .dev.vars may be used. */
export function isLocalUrl(url) {
  try {
    const host = new URL(url).hostname;
    return LOCAL_HOSTS.has(host) || host.endsWith(".localhost");
  } catch {
    return false;
  }
}

function normalizeBaseUrl(raw) {
  let u;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`--url must be an absolute http(s) URL, got "${raw}"`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new UsageError(`--url must be an http(s) URL, got "${raw}"`);
  }
  if (u.search || u.hash) throw new UsageError(`--url must not have a query or fragment: "${raw}"`);
  return u.href.replace(/\/+$/, "");
}

/**
 * A tiny admin-API client. `getToken` is called on the first request, so commands and help that
 * never hit the API do not need a token.
 */
export function createApi({ fetch, baseUrl, getToken }) {
  async function request(method, path, body) {
    const token = getToken();
    const headers = {
      authorization: `Bearer ${token}`,
      accept: "application/json",
      "user-agent": "swap-partner-api-cli",
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    const url = `${baseUrl}/admin/v1${path}`;
    let res;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      const cause = e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : "";
      throw new NetworkError(
        `could not reach ${baseUrl}: ${e instanceof Error ? e.message : String(e)}${cause}. ` +
          `Is the API running (npm run dev), and is --url right?`,
      );
    }
    const requestId = res.headers.get("x-request-id");
    if (res.status === 204) return null;
    const text = await res.text();
    let parsed;
    let isJson = false;
    if ((res.headers.get("content-type") ?? "").includes("json")) {
      try {
        parsed = JSON.parse(text);
        isJson = true;
      } catch {}
    }
    if (!res.ok) throw new ApiFailure(res.status, isJson ? parsed : null, requestId, isJson ? "" : text);
    if (!isJson) {
      throw new ApiFailure(
        res.status,
        null,
        requestId,
        `expected JSON from ${method} ${url}, got: ${text.slice(0, 200)}`,
      );
    }
    return parsed;
  }
  return {
    baseUrl,
    request,
    get: (path) => request("GET", path),
    post: (path, body) => request("POST", path, body),
    patch: (path, body) => request("PATCH", path, body),
    delete: (path) => request("DELETE", path),
  };
}

/** Encodes one path segment (ids come from the command line). */
export const seg = (s) => encodeURIComponent(s);

// ---------------------------------------------------------------------------------------------
// Output helpers (used by command modules)

/** Makes control characters visible so a stored name cannot break the layout or the terminal. */
export function clean(v) {
  if (v === null || v === undefined) return "-";
  return String(v).replace(/\p{Cc}/gu, (c) => JSON.stringify(c).slice(1, -1));
}

/** A left-aligned text table; `rows` are arrays of cells. */
export function formatTable(headers, rows) {
  const cells = rows.map((r) => r.map(clean));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const line = (r) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

/** "key  value" lines for one record. */
export function formatRecord(pairs) {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${clean(v)}`).join("\n");
}

// ---------------------------------------------------------------------------------------------
// .dev.vars

/** Parses KEY=VALUE lines (dotenv style: comments, blank lines, `export`, quotes). */
export function parseDotenv(text) {
  const out = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2];
    const q = value[0];
    if ((q === '"' || q === "'") && value.length >= 2 && value.endsWith(q)) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, "");
    out[m[1]] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Dispatcher

function printFailure(e, io, json) {
  if (e instanceof ApiFailure) {
    if (json && e.body) {
      io.printError(JSON.stringify(e.body));
      return;
    }
    if (e.body && typeof e.body.detail === "string") {
      io.printError(`Error: ${e.body.detail} (${e.body.code ?? "no code"}, HTTP ${e.status})`);
      for (const fe of Array.isArray(e.body.errors) ? e.body.errors : []) {
        io.printError(`  - ${fe.field || "(body)"}: ${fe.message}`);
      }
    } else {
      io.printError(`Error: HTTP ${e.status}${e.text ? `: ${clean(e.text.slice(0, 300))}` : ""}`);
    }
    if (e.requestId) io.printError(`  request id: ${e.requestId}`);
    return;
  }
  io.printError(`Error: ${e instanceof Error ? e.message : String(e)}`);
}

/**
 * Runs one CLI invocation and returns its exit code.
 * @param {string[]} argv arguments after `npm run cli --`
 * @param {import("./core.d.mts").CliOptions} options
 */
export async function runCli(argv, options) {
  const { commands, fetch, env = {}, loadDevToken } = options;
  const io = { print: options.print, printError: options.printError };
  const parsed = parseArgv(argv, commands);
  const { name, command, flags } = parsed;

  // --help wins over other mistakes once the command (or group) is known.
  if (parsed.help && (command || !parsed.error)) {
    io.print(command ? commandHelp(name, command) : topHelp(commands, name));
    return EXIT_OK;
  }
  const usageFail = (e) => {
    io.printError(`error: ${e.message}`);
    io.printError("");
    if (command) {
      io.printError(`Usage: ${synopsis(name, command)}`);
      io.printError(`Run "${PROG} ${name} --help" for details.`);
    } else io.printError(topHelp(commands, parsed.words.join(" ")));
    return EXIT_USAGE;
  };
  if (parsed.error) return usageFail(parsed.error);
  if (!command) return usageFail(new UsageError("missing command"));

  let args;
  let baseUrl;
  try {
    args = bindArgs(command, parsed.positionals, flags);
    baseUrl = normalizeBaseUrl(flags.url ?? (env.API_URL || DEFAULT_URL));
  } catch (e) {
    if (e instanceof UsageError) return usageFail(e);
    throw e;
  }

  const getToken = () => {
    const token = flags.token ?? (env.ADMIN_TOKEN || (isLocalUrl(baseUrl) ? loadDevToken?.() : undefined));
    if (!token) {
      throw new UsageError(
        isLocalUrl(baseUrl)
          ? "no operator token: set ADMIN_TOKEN, pass --token, or run `npm run dev` once to create .dev.vars"
          : `no operator token for ${baseUrl}: set ADMIN_TOKEN or pass --token (.dev.vars is only used for local URLs)`,
      );
    }
    return token;
  };
  const api = createApi({ fetch, baseUrl, getToken });
  const json = flags.json === true;
  const ctx = {
    name,
    args,
    flags,
    json,
    api,
    print: io.print,
    printError: io.printError,
    /** Prints `data` as JSON with --json, otherwise calls `human(data)`. */
    output(data, human) {
      if (json) io.print(JSON.stringify(data, null, 2));
      else human(data);
    },
  };

  try {
    const code = await command.run(ctx);
    return typeof code === "number" ? code : EXIT_OK;
  } catch (e) {
    if (e instanceof UsageError) {
      io.printError(`error: ${e.message}`);
      return EXIT_USAGE;
    }
    if (e instanceof ApiFailure || e instanceof NetworkError) {
      printFailure(e, io, json);
      return EXIT_ERROR;
    }
    io.printError(`error: unexpected failure: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return EXIT_ERROR;
  }
}
