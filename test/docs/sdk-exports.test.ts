// The SDK as a user meets it: its package root exports every type its client's methods take or
// give (a user never imports from a file inside the package or rebuilds a type from `components`),
// and its README's method table lists every method.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { createClient } from "../../sdk/src/index";

const SDK = join(process.cwd(), "sdk/src");

function exportNames(program: ts.Program, file: string): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const symbol = source && checker.getSymbolAtLocation(source);
  return symbol ? checker.getExportsOfModule(symbol).map((s) => s.getName()) : [];
}

describe("SDK package root", () => {
  it("exports every type and function the client module exports", () => {
    const files = [join(SDK, "index.ts"), join(SDK, "client.ts")];
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
    });
    const root = new Set(exportNames(program, files[0] ?? ""));
    const client = exportNames(program, files[1] ?? "");
    expect(client.length).toBeGreaterThan(20);
    expect(client.filter((name) => !root.has(name))).toEqual([]);
  }, 60_000);

  it("the README's method table lists every method of the client", () => {
    const readme = readFileSync(join(process.cwd(), "sdk/README.md"), "utf8");
    const table = readme.slice(
      readme.indexOf("## Methods"),
      readme.indexOf("\n## ", readme.indexOf("## Methods") + 1),
    );
    const client = createClient({ baseUrl: "https://api.example.com" });
    const methods = [
      ...Object.keys(client).filter((k) => k !== "test" && k !== "orders"),
      ...Object.keys(client.test).map((k) => `test.${k}`),
      ...Object.keys(client.orders).map((k) => `orders.${k}`),
    ];
    expect(methods.length).toBeGreaterThan(20);
    expect(methods.filter((m) => !new RegExp(`\`${m.replace(".", "\\.")}[(\`]`).test(table))).toEqual([]);
  });
});
