#!/usr/bin/env node
// `npm run cli -- <command>`: the operator CLI for /admin/v1. Everything but process I/O lives in
// scripts/cli/core.mjs (commands in scripts/cli/commands.mjs); `npm run cli -- --help` lists them.
//
// Token: --token, else $ADMIN_TOKEN, else ADMIN_TOKEN from .dev.vars in the project root (local
// URLs only). URL: --url, else $API_URL, else http://localhost:8787.
import { readFileSync } from "node:fs";
import { commands } from "./cli/commands.mjs";
import { parseDotenv, runCli } from "./cli/core.mjs";

const devVarsPath = new URL("../.dev.vars", import.meta.url);

function loadDevToken() {
  try {
    return parseDotenv(readFileSync(devVarsPath, "utf8")).ADMIN_TOKEN || undefined;
  } catch (e) {
    if (e && e.code === "ENOENT") return undefined;
    throw e;
  }
}

process.exitCode = await runCli(process.argv.slice(2), {
  commands,
  fetch: globalThis.fetch,
  env: { ADMIN_TOKEN: process.env.ADMIN_TOKEN, API_URL: process.env.API_URL },
  loadDevToken,
  print: (text) => process.stdout.write(`${text}\n`),
  printError: (text) => process.stderr.write(`${text}\n`),
});
