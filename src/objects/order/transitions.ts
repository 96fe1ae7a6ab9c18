import type { OrderRecord } from "../../domain/order";
import type { ActionInputs } from "../../domain/order-actions";
import type { EventData, OrderEvent } from "../../domain/order-state";

export type { EventData };

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
