import type { Config } from "../../config";
import { isLive, type OrderRecord, type OrderView, orderView } from "../../domain/order";
import { type ActionInputs, awaitsDecision, extrasDecidable, orderActions } from "../../domain/order-actions";
import type { SiblingAsset } from "../../domain/wrong-network";
import { pricingNow, refundAmountNow } from "../../storage/market";
import type { ExtraDeposits } from "./extra-deposits";
import { exchangeNeedsReview } from "./money-steps";

/**
 * What the view reads: the order's storage and configuration, its record and clock, its extra
 * deposits, whether the late-deposit watch is over, and the count of its storage writes.
 */
export interface ViewHost {
  readonly env: Env;
  readonly config: Config;
  readonly kv: SyncKvStorage;
  readonly extraDeposits: ExtraDeposits;
  record(): OrderRecord | undefined;
  now(): number;
  watchEnded(): boolean;
  writes(): number;
}

/** The order's view as the partner API's JSON body, with its owner, its mode and the key that created it. */
export interface SerialisedView {
  partnerId: string;
  livemode: boolean;
  createdByKey: string | null;
  json: string;
}

/**
 * The order as its partner sees it, with its `actions` when its own deposit or an extra one waits
 * for a decision, and the inputs those actions are priced with (docs/lifecycle.md, "Decisions on
 * held funds").
 */
export class PartnerView {
  /** The last serialised view without actions, and the storage writes count it was made at. */
  #kept: { writes: number; view: SerialisedView } | null = null;

  constructor(private readonly host: ViewHost) {}

  /** The view with its actions, priced now when the order waits for a decision. */
  async view(r: OrderRecord, now: number): Promise<OrderView> {
    return this.needsAction(r) ? this.#priced(r, now) : orderView(r, this.host.config.CABINET_ORIGIN);
  }

  /**
   * The view as the API's JSON body (`GET /partner/orders/{id}`, the hottest read); null when no
   * order has this id. A view without actions is worked out from the object's storage alone (the
   * record, and what `needsAction` reads), so it is kept until the storage is next written, by
   * whichever part: a repeated read then reads no record, builds no view and serialises nothing. A
   * view with actions is priced now, on every read.
   */
  async serialised(): Promise<SerialisedView | null> {
    const writes = this.host.writes();
    if (this.#kept?.writes === writes) return this.#kept.view;
    const r = this.host.record();
    if (!r) return null;
    const held = this.needsAction(r);
    const view = held
      ? await this.#priced(r, this.host.now())
      : orderView(r, this.host.config.CABINET_ORIGIN);
    const serialised = {
      partnerId: r.partnerId,
      livemode: isLive(r),
      createdByKey: r.createdByKey ?? null,
      json: JSON.stringify(view),
    };
    if (!held) this.#kept = { writes, view: serialised };
    return serialised;
  }

  async #priced(r: OrderRecord, now: number): Promise<OrderView> {
    return orderView(r, this.host.config.CABINET_ORIGIN, orderActions(r, await this.actionInputs(r, now)));
  }

  /** Whether the order's `actions` is not null: its own deposit or an extra one waits for a decision. */
  needsAction(r: OrderRecord): boolean {
    return awaitsDecision(r) || this.awaitingExtras(r).length > 0;
  }

  /**
   * Whether the order is in the operator's review queue (the index's `needs_action`): its `actions`
   * is not null, or its exchange waits on the venue for an operator (docs/venue.md), or a screened
   * deposit holds it (docs/lifecycle.md, "Holds").
   */
  needsReview(r: OrderRecord): boolean {
    return this.needsAction(r) || exchangeNeedsReview(this.host.kv, r) || (r.hold ?? null) !== null;
  }

  /**
   * The extra deposits whose refund is offered: none of the order's own network while the order may
   * still take one as its own; a wrong-network deposit's at once (the order never takes it).
   */
  awaitingExtras(r: OrderRecord): ReturnType<ExtraDeposits["awaiting"]> {
    const awaiting = this.host.extraDeposits.awaiting();
    if (awaiting.length === 0) return awaiting;
    return extrasDecidable(r.status, () => this.host.watchEnded())
      ? awaiting
      : awaiting.filter((d) => d.arrival !== undefined);
  }

  /**
   * What a decision on held funds would do now: the refund less the current network fee, and the
   * pair's float pricing with the partner's markup. Never throws: what cannot be worked out now is
   * shown as unavailable, with the reason.
   */
  async actionInputs(r: OrderRecord, now: number): Promise<ActionInputs> {
    const refundOf = (amount: string | null, arrival?: SiblingAsset) =>
      refundAmountNow(this.host.env.DB, r, amount, arrival).then(
        (a) => (a === null ? { unavailable: "no deposit received" } : { amount: a }),
        (err: unknown) => ({ unavailable: `the network fee cannot be read now: ${String(err)}` }),
      );
    const refund = await refundOf(r.amountFromReceived);
    const extras = await Promise.all(
      this.awaitingExtras(r).map(async (e) => ({ ...e, refund: await refundOf(e.amount, e.arrival) })),
    );
    if (!awaitsDecision(r)) return { refund, pricing: { unavailable: "no decision on the order" }, extras };
    const { env, config } = this.host;
    const pricing = await pricingNow(
      env,
      config,
      { coinFrom: r.coinFrom, networkFrom: r.networkFrom, coinTo: r.coinTo, networkTo: r.networkTo },
      config.SPREAD_FLOAT_BPS,
      r.markupBps,
      now,
    ).then(
      ({ input }) => input,
      (err: unknown) => ({ unavailable: err instanceof Error ? err.message : String(err) }),
    );
    return { refund, pricing, extras };
  }

  /**
   * The inputs of the actions a failure may offer, worked out before the failure is applied so its
   * webhook says what can be done; undefined when this failure cannot hold funds for a decision.
   */
  async inputsIfHeld(r: OrderRecord, now: number, mayHold: boolean): Promise<ActionInputs | undefined> {
    return mayHold ? this.actionInputs(r, now) : undefined;
  }
}
