// Types for core.mjs (the CLI is plain ESM for Node; these let TypeScript tests import it).

export declare const EXIT_OK: 0;
export declare const EXIT_ERROR: 1;
export declare const EXIT_USAGE: 2;
export declare const DEFAULT_URL: string;
export declare const PROG: string;

export interface FlagSpec {
  type: "string" | "int" | "boolean";
  /** Placeholder shown in help, e.g. `--name <name>`. */
  value?: string;
  description?: string;
  required?: boolean;
  /** Client-side bounds for `int` flags. */
  min?: number;
  max?: number;
}

export interface ArgSpec {
  name: string;
  description?: string;
  optional?: boolean;
}

export interface Api {
  baseUrl: string;
  request(method: string, path: string, body?: unknown): Promise<unknown>;
  get(path: string): Promise<unknown>;
  post(path: string, body?: unknown): Promise<unknown>;
  patch(path: string, body: unknown): Promise<unknown>;
  delete(path: string): Promise<unknown>;
}

export interface CommandContext {
  name: string;
  args: Record<string, string>;
  flags: Record<string, string | number | boolean>;
  json: boolean;
  api: Api;
  print(text: string): void;
  printError(text: string): void;
  /** With --json prints `data` as JSON, otherwise calls `human(data)`. */
  output<T>(data: T, human: (data: T) => void): void;
}

export interface CommandSpec {
  summary: string;
  description?: string;
  args?: ArgSpec[];
  flags?: Record<string, FlagSpec>;
  /** At least one of these flags must be given. */
  requireOneOf?: string[];
  examples?: string[];
  /** Resolves to an exit code (anything but a number means 0). Throw UsageError; let ApiFailure propagate. */
  run(ctx: CommandContext): Promise<unknown>;
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface CliOptions {
  commands: Record<string, CommandSpec>;
  fetch: FetchLike;
  print(text: string): void;
  printError(text: string): void;
  /** ADMIN_TOKEN and API_URL from the environment. */
  env?: { ADMIN_TOKEN?: string | undefined; API_URL?: string | undefined };
  /** The dev token (ADMIN_TOKEN in .dev.vars); consulted only for local URLs. */
  loadDevToken?: () => string | undefined;
}

export declare class UsageError extends Error {}
export declare class NetworkError extends Error {}
export declare class ApiFailure extends Error {
  status: number;
  body: unknown;
  requestId: string | null;
  text: string;
}

export declare const GLOBAL_FLAGS: Record<string, FlagSpec>;
export declare function runCli(argv: string[], options: CliOptions): Promise<number>;
export declare function parseDotenv(text: string): Record<string, string>;
export declare function isLocalUrl(url: string): boolean;
export declare function formatTable(headers: string[], rows: unknown[][]): string;
export declare function formatRecord(pairs: [string, unknown][]): string;
export declare function commandHelp(name: string, command: CommandSpec): string;
export declare function topHelp(commands: Record<string, CommandSpec>, prefix?: string): string;
export declare function seg(s: string): string;
export declare function clean(v: unknown): string;
