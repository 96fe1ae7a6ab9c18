import { DurableObject } from "cloudflare:workers";

/** Exact per-key request counter; implemented with the partners/limits module. */
export class RateLimiter extends DurableObject<Env> {}
