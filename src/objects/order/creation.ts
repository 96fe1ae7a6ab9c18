import type { DepositScheme } from "../../domain/deposit";
import { nextPoll } from "../../domain/deposit-tracking";
import { type OrderDraft, type OrderRecord, type OrderView, orderView } from "../../domain/order";
import { type CreationKey, creationVerdict, shortIdOfOrderId } from "../../domain/order-id";
import { newTrackToken } from "../../domain/order-link";
import type { OrderContext } from "./context";
import { allocateDeposit } from "./deposit-allocation";
import {
  markProjection,
  type OutboxStores,
  type ProjectionHost,
  projectRecord,
  scheduleOutbox,
} from "./projection";
import { DUE, type DueRow, nextAlarm } from "./schedule";

/** What a creation uses of the order's context: the record, its storage, log and schedule. */
export type CreationHost = ProjectionHost &
  OutboxStores &
  Pick<OrderContext, "storage" | "log" | "config" | "arm">;

/**
 * `amountToExpected` is the record's exact decimal: the view's JSON number can drop the last digits
 * of an 18-decimal coin, and a signed amount (Ledger's payload) must be the order's to the unit.
 */
export type CreateResult =
  | { kind: "created"; order: OrderView; amountToExpected: string }
  | { kind: "replayed"; order: OrderView; amountToExpected: string }
  | { kind: "conflict" }
  /** The id is another order's (a short id drawn twice): the caller moves on to another id. */
  | { kind: "taken" }
  | { kind: "unavailable"; reason: string };

/**
 * The 201 body as first sent, so an Idempotency-Key replay returns exactly the same body. Kept only
 * for a creation under an Idempotency-Key: nothing else can be replayed (creationVerdict).
 */
export const CREATED_VIEW = "created_view";

/**
 * The answer to a repeated Idempotency-Key: the first response, or a conflict when the request
 * differs, or `taken` when the order here is another creation's; null while no order exists. Asked
 * before the request is validated again, so a retry gets its order even after prices, limits or the
 * quote's validity have changed.
 */
export function replayCreation(
  c: Pick<OrderContext, "record" | "kv" | "config">,
  creation: CreationKey,
): CreateResult | null {
  const existing = c.record();
  if (!existing) return null;
  const verdict = creationVerdict(existing, creation);
  if (verdict !== "replay") return { kind: verdict };
  return {
    kind: "replayed",
    amountToExpected: existing.amountToExpected,
    order: c.kv.get<OrderView>(CREATED_VIEW) ?? orderView(existing, c.config.CABINET_ORIGIN),
  };
}

/**
 * An order's creation, once. Concurrent calls for the same id (an Idempotency-Key retried in
 * parallel) share the first call's work; later calls replay it, or conflict if the request differs.
 */
export class OrderCreation {
  #inFlight: Promise<CreateResult> | null = null;
  /** The index projection the last creation started after its answer. */
  #projecting: Promise<void> = Promise.resolve();

  /** Settles once the projection started after this object's creation is over, however it ended. */
  projected(): Promise<void> {
    return this.#projecting.catch(() => undefined);
  }

  /** `needsAction` is the partner view's, for the index row projected after the answer. */
  async create(
    c: CreationHost,
    draft: OrderDraft,
    scheme: DepositScheme,
    needsAction: (r: OrderRecord) => boolean,
  ): Promise<CreateResult> {
    const existing = replayCreation(c, draft);
    if (existing) return existing;
    if (this.#inFlight) {
      await this.#inFlight.catch(() => undefined);
      const now = replayCreation(c, draft);
      if (now) return now;
    }
    this.#inFlight = createOnce(c, draft, scheme, needsAction, (p) => {
      this.#projecting = p;
    });
    try {
      return await this.#inFlight;
    } finally {
      this.#inFlight = null;
    }
  }
}

async function createOnce(
  c: CreationHost,
  draft: OrderDraft,
  scheme: DepositScheme,
  needsAction: (r: OrderRecord) => boolean,
  projecting: (p: Promise<void>) => void,
): Promise<CreateResult> {
  const shortId = shortIdOfOrderId(draft.id);
  if (!shortId) throw new Error(`order id ${draft.id} does not carry a short id`);
  const deposit = await allocateDeposit(c.env, draft, shortId, scheme);
  if ("unavailable" in deposit) return { kind: "unavailable", reason: deposit.unavailable };
  const created: OrderRecord = { ...draft, shortId, ...deposit, trackToken: newTrackToken() };
  const view = orderView(created, c.config.CABINET_ORIGIN);
  const firstDue: DueRow[] = [
    {
      name: DUE.poll,
      dueAt: nextPoll(Date.parse(created.createdAt), 0, true, c.config.CHAIN_POLL_SECONDS * 1000).at,
    },
    { name: DUE.expiry, dueAt: Date.parse(created.expiresAt) },
  ];
  // The record is the only write of a creation; the D1 index row is projected from it after the
  // answer (the projection flag is the outbox). The alarm is armed first, so no eviction can leave
  // a record that nothing will project, and armed once: at the first poll or deadline, where it
  // stays when the projection succeeds. An eviction before the projection delays the row to that
  // wake (≤ CHAIN_POLL_SECONDS), which finds the outbox row due; a failed projection re-arms sooner.
  const armed = c.storage.setAlarm(nextAlarm(firstDue, Date.now()) ?? Date.now());
  const version = c.storage.transactionSync(() => {
    c.saveRecord(created);
    if (created.idempotencyKey !== null) c.kv.put(CREATED_VIEW, view);
    const logged = c.log(created.createdAt, null, created.status, "order created", {
      deposit_address: created.depositAddress,
      deposit_address_tag: created.depositAddressTag,
      amount_from_expected: created.amountFromExpected,
      rate_quoted: created.rateQuoted,
    });
    markProjection(c.kv, c.schedule, Date.now(), firstDue);
    return logged;
  });
  await armed;
  projecting(projectCreated(c, created, version, needsAction));
  return { kind: "created", order: view, amountToExpected: created.amountToExpected };
}

/**
 * Not awaited by the creation: the 201 never waits for D1, and the alarm retries what fails. A
 * list sent the create's bookmark waits for it (`OrderObject.indexed`). The row is projected at
 * the version its log row took, with no read of the log.
 */
async function projectCreated(
  c: CreationHost,
  r: OrderRecord,
  version: number,
  needsAction: (r: OrderRecord) => boolean,
) {
  if ((await projectRecord(c, r, needsAction, version)) === "untouched") {
    // Nothing has written to the order since its creation, which sends no webhook, alert or
    // liquidity step: the outbox row was the index row's alone, and the first poll or the deadline
    // is next (a new order's clock is real time), where the creation armed the alarm: what
    // scheduleOutbox and arm would find, unread and unwritten.
    c.schedule.clear(DUE.outbox);
    return;
  }
  scheduleOutbox(c, Date.now());
  await c.arm(Date.now());
}
