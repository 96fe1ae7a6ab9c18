import type { OrderRecord } from "../domain/order";
import type { ActionInputs } from "../domain/order-actions";
import type { OrderEvent } from "../domain/order-state";

/** Event data: flat JSON values only, so it crosses RPC and serialises as is. */
export type EventData = Record<string, string | number | boolean | null>;

/** What the order object's modules may do to its record: transitions, log rows, the index row. */
export interface OrderTransitions {
  /** One event through the state machine; the record and its log row commit together (null: rejected). */
  apply(
    r: OrderRecord,
    event: OrderEvent,
    now: number,
    extra?: Partial<OrderRecord>,
    logData?: EventData | null,
    inputs?: ActionInputs,
  ): OrderRecord | null;
  /** A log row without a status change. */
  note(r: OrderRecord, now: number, reason: string, data: EventData | null): void;
  /** The index row must be written again (status, needs_action). */
  markProjection(now: number): void;
}
