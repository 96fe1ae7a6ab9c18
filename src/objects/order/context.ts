import type { ChainReader } from "../../adapters/chain/types";
import { analyticsEngineSink } from "../../adapters/metrics";
import { liveReaderFor, type OrderAdapters } from "../../adapters/registry";
import { type Config, getConfig } from "../../config";
import type { OrderRecord } from "../../domain/order";
import { partnerEventsName } from "../../domain/streams";
import type { ClockJump } from "../../domain/test-clock";
import { adaptersOf } from "./adapters";
import { ALERTS_TABLE, OrderAlerts } from "./alerts";
import { ExtraDeposits } from "./extra-deposits";
import { OrderJournal } from "./journal";
import { type LazyTable, LazyTables } from "./lazy-table";
import { OrderOutbox, OUTBOX_TABLE, type PartnerFeed } from "./outbox";
import { OrderSchedule } from "./schedule";
import { SENDS_TABLE_LATEST, SendsLedger } from "./sends-ledger";
import type { OrderTransitions } from "./transitions";

const K = {
  record: "order",
  /** A test order's clock: ms it runs ahead of real time (the `expire` test helper moves it). */
  testClock: "test_clock_ms",
  /** Where the test clock jumped: the first event logged after each jump, and the lead from then. */
  testClockJumps: "test_clock_jumps",
} as const;

/** The key-value rows every read of the order needs (what a compacted order keeps). */
export const RECORD_KEYS: readonly string[] = Object.values(K);

/**
 * What the parts of an order object share: its storage and configuration, the
 * record, the order's clock, and the stores every part writes through (journal, schedule, sends
 * ledger, webhook outbox, extra deposits). A plain object of members, so a part's host is the
 * context spread with the few members only that part needs.
 */
export interface OrderContext extends OrderTransitions {
  readonly env: Env;
  readonly config: Config;
  readonly storage: DurableObjectStorage;
  readonly kv: SyncKvStorage;
  readonly journal: OrderJournal;
  readonly schedule: OrderSchedule;
  readonly ledger: SendsLedger;
  readonly outbox: OrderOutbox;
  readonly extraDeposits: ExtraDeposits;
  readonly alerts: OrderAlerts;
  record(): OrderRecord | undefined;
  /**
   * A count that moves whenever the object's storage is written, whichever part writes it: SQLite's
   * `total_changes()` (the key-value API is stored in the same database; a read never moves it, a
   * rolled-back write still does). What is worked out from storage alone may be kept while it holds.
   */
  writes(): number;
  /** Writes the record as is, with no transition. */
  saveRecord(r: OrderRecord): void;
  /** The order's time: real time, plus a test order's test clock. */
  now(): number;
  /** Moves a test order's clock `ms` further ahead. */
  runAhead(ms: number): void;
  /** The test clock's jumps, oldest first (none for a live order). */
  clockJumps(): ClockJump[];
  /** Keeps exactly one alarm at the earliest row of the schedule, or none when nothing is due. */
  arm(now: number): Promise<void>;
  adapters(r: OrderRecord): OrderAdapters;
  reader(r: OrderRecord): ChainReader;
  /** A live order's reader of another network: where its address is watched for wrong-network deposits. */
  siblingReader(network: string): ChainReader;
  /** A log row as is (the journal's). */
  log: OrderJournal["log"];
  /** The hold put, moved or ended with no status change (the journal's). */
  changeHold: OrderJournal["changeHold"];
}

/**
 * The tables a new order does not write yet, each made by its first write through its accessor
 * (src/objects/order/migrations.ts, ORDER_SCHEMA); a store that has them (an earlier version's
 * order, the partner payouts object) uses them as they are.
 */
export function orderTables(sql: SqlStorage): Record<"sends" | "outbox" | "alerts", LazyTable> {
  const lazy = new LazyTables(sql);
  return {
    sends: lazy.table("sends", SENDS_TABLE_LATEST),
    outbox: lazy.table("outbox", OUTBOX_TABLE),
    alerts: lazy.table("alerts", ALERTS_TABLE),
  };
}

/** The partner's event stream for the order's mode (src/objects/partner-events.ts). */
export function partnerFeed(kv: SyncKvStorage, env: Env): PartnerFeed {
  return {
    kv,
    send: async (messages) => {
      const first = messages[0];
      if (first)
        await env.PARTNER_EVENTS.getByName(partnerEventsName(first.partner_id, first.mode)).append(messages);
    },
  };
}

/**
 * `announce` is told after every status change has been written (the object's live streams send
 * it then; src/objects/stream-hub.ts).
 */
export function orderContext(
  storage: DurableObjectStorage,
  env: Env,
  announce: () => void = () => {},
): OrderContext {
  const { kv, sql } = storage;
  const config = getConfig(env);
  const schedule = new OrderSchedule(sql);
  const tables = orderTables(sql);
  const ledger = new SendsLedger(tables.sends, schedule);
  const outbox = new OrderOutbox(tables.outbox, env.WEBHOOKS, config.CABINET_ORIGIN, partnerFeed(kv, env));
  const alerts = new OrderAlerts(tables.alerts);
  const saveRecord = (r: OrderRecord) => kv.put(K.record, r);
  const metrics = analyticsEngineSink(env.SLO_EVENTS);
  const journal = new OrderJournal({
    storage,
    schedule,
    ledger,
    outbox,
    alerts,
    metrics,
    saveRecord,
    announce,
  });
  const clock = () => kv.get<number>(K.testClock) ?? 0;
  const jumps = () => kv.get<ClockJump[]>(K.testClockJumps) ?? [];
  const adapters = (r: OrderRecord) => adaptersOf(env, config, ledger, r);
  return {
    env,
    config,
    storage,
    kv,
    journal,
    schedule,
    ledger,
    outbox,
    extraDeposits: new ExtraDeposits(kv, sql, ledger),
    alerts,
    record: () => kv.get<OrderRecord>(K.record),
    writes: () => sql.exec<{ n: number }>("SELECT total_changes() AS n").one().n,
    saveRecord,
    now: () => Date.now() + clock(),
    runAhead: (ms) => {
      const aheadMs = clock() + ms;
      kv.put(K.testClock, aheadMs);
      kv.put(K.testClockJumps, [...jumps(), { fromSeq: journal.version() + 1, aheadMs }]);
    },
    clockJumps: jumps,
    arm: (now) => schedule.arm(storage, now, clock()),
    adapters,
    reader: (r) => adapters(r).reader,
    siblingReader: (network) => liveReaderFor(env, config, network),
    apply: (...args) => journal.apply(...args),
    note: (...args) => journal.note(...args),
    log: (...args) => journal.log(...args),
    changeHold: (...args) => journal.changeHold(...args),
    markProjection: (now) => journal.markProjection(now),
  };
}
