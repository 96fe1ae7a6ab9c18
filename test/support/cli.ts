import { exports } from "cloudflare:workers";
import { commands } from "../../scripts/cli/commands.mjs";
import { runCli } from "../../scripts/cli/core.mjs";
import { ADMIN_TOKEN, BASE } from "../helpers";

/** Runs the operator CLI through its core against the real Worker in workerd. */
export async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    commands,
    env: { ADMIN_TOKEN, API_URL: BASE },
    print: (t) => out.push(t),
    printError: (t) => err.push(t),
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
  });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}
