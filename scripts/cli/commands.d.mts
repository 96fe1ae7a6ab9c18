import type { CommandSpec } from "./core.d.mts";

export declare const commands: Record<string, CommandSpec>;
