import { DurableObject } from "cloudflare:workers";

/** A simulated chain per network (dev and test default); built with the lifecycle module. */
export class SimChain extends DurableObject<Env> {}
