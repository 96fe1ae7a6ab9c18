import type { Config } from "../config";
import type { KeyKind, KeyScope } from "../domain/key-scopes";
import type { Partner } from "../domain/partner";

/** Hono environment shared by every router: the Worker bindings plus per-request variables. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    config: Config;
    /** Set by partner authentication; absent on anonymous public requests. */
    partner?: Partner;
    /** Set by operator authentication on /admin/v1: who acts, for the audit log. */
    operator: string;
    /** The key id the partner authenticated with: who made a decision, in the order's log. */
    apiKeyId?: string;
    /** What that key may do (src/domain/key-scopes.ts); checked by partnerAuth. */
    keyScopes?: readonly KeyScope[];
    /** That key's kind: an `app` key reads only the orders it created. */
    keyKind?: KeyKind;
    /** The order a POST /partner/orders answered with, for the partner's request log. */
    createdOrderId?: string;
    /** The D1 session this request's replica-tolerant reads share (middleware/d1-session.ts). */
    d1Session?: D1DatabaseSession;
    /** The order a create's bookmark named has its index row in D1 (middleware/d1-session.ts). */
    createdIndexed?: true;
  };
}

/** Routers behind required partner authentication see the partner as always present. */
export interface PartnerEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { partner: Partner; apiKeyId: string };
}
