// Every TypeScript snippet of the pages that teach the SDK compiles against the SDK's source: the
// snippets of one page, in order, make one module (later ones use what earlier ones declared).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = process.cwd();
const PAGES = ["docs/integrate.md", "sdk/README.md"];

function snippets(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");
}

function typeErrors(page: string, source: string): string[] {
  const file = join(ROOT, `${page}.snippets.ts`);
  const options: ts.CompilerOptions = {
    strict: true,
    // A user's strictest settings: an optional option given as `string | undefined` must compile.
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.asynciterable.d.ts"],
    types: ["node"],
    paths: { "@swap-partner-api/sdk": [join(ROOT, "sdk/src/index.ts")] },
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file?.fileName === file ? page : d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
}

describe("documentation snippets", () => {
  for (const page of PAGES) {
    it(`${page}: every ts snippet typechecks against the SDK`, () => {
      const blocks = snippets(readFileSync(join(ROOT, page), "utf8"));
      expect(blocks.length).toBeGreaterThanOrEqual(2);
      expect(typeErrors(page, blocks.join("\n"))).toEqual([]);
    }, 120_000);
  }
});
