import { DurableObject } from "cloudflare:workers";

/** One Durable Object per order (DESIGN.md §4); the state machine lands with the orders module. */
export class OrderObject extends DurableObject<Env> {}
