import type { Config } from "../config";

/** Hono environment shared by every router: the Worker bindings plus per-request variables. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    config: Config;
  };
}
