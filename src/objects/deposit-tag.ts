import { DurableObject } from "cloudflare:workers";

/**
 * One object per memo tag of a shared deposit address (named by `memoTagName`): the tag belongs to
 * the first order that claims it, for ever. Claims are serialised by the object, and a repeated
 * claim by the same order (its creation retried after an eviction) succeeds again, so a tag is
 * unique per address without a global counter. The object lives where it was first asked, i.e.
 * near the order that created it.
 */
export class DepositTag extends DurableObject<Env> {
  /** Whether `orderId` holds the tag (now, or already). */
  claim(orderId: string): boolean {
    const owner = this.ctx.storage.kv.get<string>("order");
    if (owner !== undefined) return owner === orderId;
    this.ctx.storage.kv.put("order", orderId);
    return true;
  }
}
