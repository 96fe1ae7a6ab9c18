import { DurableObject } from "cloudflare:workers";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { IncomingTransfer } from "../adapters/chain/types";
import { type Decimal, toDecimalString, tryParseDecimal } from "../domain/money";

/** Most blocks one `mine` call may add: keeps a single call's write bounded. */
export const MAX_MINE_COUNT = 1000;

export type PayoutKind = "payout" | "refund";
/** A step a test order's `fail` helper makes fail for good. */
export type FailStep = "exchange" | PayoutKind;

export interface SendInput {
  to: string;
  /** Positive decimal string (or JSON number) in coin units. */
  amount: string | number;
  tag?: string | null;
  /** Defaults to the network code, i.e. the native coin on networks named after it. */
  coin?: string;
  /** Token contract; null/absent for the native coin. */
  contract?: string | null;
  /** The sender, listed as the transfer's `from` (a deposit's source is screened: docs/lifecycle.md, "Holds"). */
  from?: string | null;
  /** On a UTXO chain instead: the addresses the transfer's inputs spend from, listed as its `sources`. */
  sources?: readonly string[] | null;
}

export interface IncomingQuery {
  address: string;
  tag: string | null;
  coin: string;
  contract: string | null;
}

export interface BestChainQuery {
  txid: string;
  index: number;
  blockHeight: number | null;
  blockHash: string | null;
}

export interface PayoutInput {
  idempotencyKey: string;
  orderId: string;
  kind: PayoutKind;
  to: string;
  tag: string | null;
  amount: string | number;
  coin: string;
  contract: string | null;
}

export interface OutgoingTransfer {
  txid: string;
  order_id: string | null;
  kind: PayoutKind | null;
  to: string;
  tag: string | null;
  amount: string;
  coin: string;
  contract: string | null;
  created_at: string;
  /** Null while the payout waits in the mempool. */
  block_height: number | null;
}

/**
 * Chaos for dev and tests: each rate is a probability in [0, 1]; draws come from a PRNG seeded by
 * `seed`, so a run with the same seed and the same calls fails the same way.
 */
export interface SimFaults {
  /** Chain reads (tip, incoming transfers, payout lookups) fail as if the provider were down. */
  readFailRate: number;
  /** A payout is refused before anything is recorded (a definite failure). */
  payoutFailRate: number;
  /** A payout is recorded, then the call fails anyway: the caller cannot know it went through. */
  payoutTimeoutRate: number;
  /** The simulated exchange venue fails (transiently) for orders from this network. */
  exchangeFailRate: number;
  /** The venue call itself throws (a crash or a dropped connection inside the adapter). */
  exchangeThrowRate: number;
  /**
   * Not a rate: listings leave out transfers mined more than this many blocks below the tip, as a
   * provider with a scan window does (the EVM reader's native scan). 0 lists everything.
   */
  listingWindowBlocks: number;
  seed: number;
}

export const NO_FAULTS: SimFaults = {
  readFailRate: 0,
  payoutFailRate: 0,
  payoutTimeoutRate: 0,
  exchangeFailRate: 0,
  exchangeThrowRate: 0,
  listingWindowBlocks: 0,
  seed: 1,
};

/** splitmix32: a small, well-mixed hash of (seed, n) → [0, 1). */
function draw(seed: number, n: number): number {
  let z = (seed + Math.imul(n, 0x9e3779b9)) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
}

export interface SimChainStatus {
  height: number;
  mempool: number;
  /** Chain reads served since the chain was made (tip, listings, best-chain checks): the soak's provider requests. */
  reads: number;
}

type TransferRow = {
  txid: string;
  idx: number;
  to_address: string;
  tag: string | null;
  amount: string;
  block_height: number | null;
  block_hash: string | null;
  from_address: string | null;
  /** JSON array of addresses, or null. */
  sources: string | null;
};

type OutgoingRow = {
  txid: string;
  order_id: string | null;
  kind: PayoutKind | null;
  to_address: string;
  tag: string | null;
  amount: string;
  coin: string;
  contract: string | null;
  created_at: string;
  block_height: number | null;
};

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS blocks (
     height INTEGER PRIMARY KEY,
     hash TEXT NOT NULL,
     created_at TEXT NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS transfers (
     txid TEXT NOT NULL,
     idx INTEGER NOT NULL DEFAULT 0,
     network TEXT NOT NULL,
     coin TEXT NOT NULL,
     contract TEXT,
     to_address TEXT NOT NULL,
     tag TEXT,
     amount TEXT NOT NULL,
     block_height INTEGER,
     direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
     idempotency_key TEXT UNIQUE,
     order_id TEXT,
     kind TEXT CHECK (kind IN ('payout', 'refund')),
     created_at TEXT NOT NULL,
     PRIMARY KEY (txid, idx)
   )`,
  "CREATE INDEX IF NOT EXISTS transfers_to ON transfers (to_address)",
  "CREATE INDEX IF NOT EXISTS transfers_to_lower ON transfers (lower(to_address))",
  "CREATE INDEX IF NOT EXISTS transfers_block ON transfers (block_height)",
];

/** Columns added after a chain's transfers table was made: each added where it is missing. */
const ADDED_COLUMNS = [
  ["from_address", "TEXT"],
  ["sources", "TEXT"],
] as const;

function randomHex32(): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(32)));
}

function positiveAmount(input: unknown): Decimal {
  // A plain RangeError, not InvalidDecimalError: RPC only keeps the class of built-in errors.
  const x = tryParseDecimal(input);
  if (x === undefined) throw new RangeError("amount must be a positive decimal");
  if (x.isZero()) throw new RangeError("amount must be greater than zero");
  return x;
}

function requiredText(name: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new RangeError(`${name} must be a non-empty string`);
  return value.trim();
}

function optionalText(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === "" ? null : value;
}

/**
 * A simulated chain, one object per network (`env.SIM_CHAIN.getByName(network)`): blocks, a
 * mempool and transfers, driven by the operator (send, mine, reorg, drop) and read by the order
 * lifecycle through the same ChainReader interface a real chain has.
 *
 * Every method is synchronous on storage (no await between a read and the write that depends on
 * it), and the object runs one call at a time on one thread, so concurrent calls can never
 * interleave. That, not the UNIQUE index, is what makes `sendPayout` exactly-once; the index is the
 * backstop.
 *
 * Invalid input throws RangeError: it is one of the error types RPC carries across unchanged, so
 * the caller can tell "bad request" from a transport failure.
 */
export class SimChain extends DurableObject<Env> {
  readonly #sql: SqlStorage;
  /** The object's name is its network code; stored on each transfer for inspection. */
  readonly #network: string;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#network = ctx.id.name ?? "unknown";
    void ctx.blockConcurrencyWhile(async () => {
      for (const statement of SCHEMA) this.#sql.exec(statement);
      const have = new Set(
        this.#sql
          .exec<{ name: string }>("SELECT name FROM pragma_table_info('transfers')")
          .toArray()
          .map((c) => c.name),
      );
      for (const [name, type] of ADDED_COLUMNS)
        if (!have.has(name)) this.#sql.exec(`ALTER TABLE transfers ADD COLUMN ${name} ${type}`);
    });
  }

  #tip(): number {
    const row = this.#sql.exec<{ h: number | null }>("SELECT MAX(height) AS h FROM blocks").one();
    return row.h ?? 0;
  }

  /** Sets the fault rates (see SimFaults); all zero turns chaos off. */
  setFaults(faults: SimFaults): SimFaults {
    for (const [k, v] of Object.entries(faults)) {
      const rate = k !== "seed" && k !== "listingWindowBlocks";
      if (typeof v !== "number" || !Number.isFinite(v) || (rate && (v < 0 || v > 1)) || v < 0) {
        throw new RangeError(`${k} must be a ${rate ? "number between 0 and 1" : "non-negative number"}`);
      }
    }
    this.ctx.storage.kv.put("faults", faults);
    this.ctx.storage.kv.put("fault_draws", 0);
    return faults;
  }

  faults(): SimFaults {
    return this.ctx.storage.kv.get<SimFaults>("faults") ?? NO_FAULTS;
  }

  /** True with probability `rate`; every draw advances the seeded sequence. */
  #chance(rate: number): boolean {
    if (rate <= 0) return false;
    const n = (this.ctx.storage.kv.get<number>("fault_draws") ?? 0) + 1;
    this.ctx.storage.kv.put("fault_draws", n);
    return draw(this.faults().seed, n) < rate;
  }

  /** Mined transfers at or below this height are left out of listings (listingWindowBlocks). */
  #listingFloor(): number {
    const window = this.faults().listingWindowBlocks ?? 0;
    return window > 0 ? this.#tip() - window : -1;
  }

  /** Counts a chain read, as a provider would count it (the soak's provider requests). */
  #countRead(): void {
    this.ctx.storage.kv.put("reads", (this.ctx.storage.kv.get<number>("reads") ?? 0) + 1);
  }

  #maybeReadOutage(): void {
    if (this.#chance(this.faults().readFailRate)) throw new Error("simulated chain provider outage");
  }

  /**
   * The next attempt of this step fails for good (a test order's `fail` helper): the venue answers
   * a permanent failure, the payout gateway refuses the send with nothing sent.
   */
  failNext(step: FailStep): void {
    const steps = new Set(this.ctx.storage.kv.get<FailStep[]>("fail_next") ?? []);
    steps.add(step);
    this.ctx.storage.kv.put("fail_next", [...steps]);
  }

  /** Takes a `failNext` of this step: true once per call of failNext. */
  #takeFailure(step: FailStep): boolean {
    const steps = this.ctx.storage.kv.get<FailStep[]>("fail_next") ?? [];
    if (!steps.includes(step)) return false;
    this.ctx.storage.kv.put(
      "fail_next",
      steps.filter((s) => s !== step),
    );
    return true;
  }

  /** Whether the simulated exchange should fail this attempt (chaos for orders from this network). */
  exchangeFault(): "fail" | "throw" | "fail_for_good" | null {
    if (this.#takeFailure("exchange")) return "fail_for_good";
    const f = this.faults();
    if (this.#chance(f.exchangeThrowRate ?? 0)) return "throw";
    return this.#chance(f.exchangeFailRate) ? "fail" : null;
  }

  tipHeight(): number {
    this.#countRead();
    this.#maybeReadOutage();
    return this.#tip();
  }

  status(): SimChainStatus {
    const mempool = this.#sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM transfers WHERE block_height IS NULL")
      .one().n;
    return { height: this.#tip(), mempool, reads: this.ctx.storage.kv.get<number>("reads") ?? 0 };
  }

  /** A new unconfirmed incoming transfer, as if someone broadcast it. */
  send(input: SendInput): { txid: string } {
    const to = requiredText("to", input.to);
    const amount = toDecimalString(positiveAmount(input.amount));
    const txid = randomHex32();
    this.#sql.exec(
      `INSERT INTO transfers (txid, idx, network, coin, contract, to_address, tag, amount, block_height, direction, created_at, from_address, sources)
       VALUES (?, 0, ?, ?, ?, ?, ?, ?, NULL, 'in', ?, ?, ?)`,
      txid,
      this.#network,
      optionalText(input.coin) ?? this.#network,
      optionalText(input.contract),
      to,
      optionalText(input.tag),
      amount,
      new Date().toISOString(),
      optionalText(input.from),
      input.sources ? JSON.stringify(input.sources.map((a) => requiredText("sources[]", a))) : null,
    );
    return { txid };
  }

  /** Adds `count` blocks; the first one takes the whole mempool. */
  mine(count = 1): { height: number } {
    if (!Number.isInteger(count) || count < 1 || count > MAX_MINE_COUNT) {
      throw new RangeError(`count must be a whole number from 1 to ${MAX_MINE_COUNT}`);
    }
    return this.ctx.storage.transactionSync(() => {
      const now = new Date().toISOString();
      let height = this.#tip();
      for (let i = 0; i < count; i++) {
        height++;
        this.#sql.exec(
          "INSERT INTO blocks (height, hash, created_at) VALUES (?, ?, ?)",
          height,
          randomHex32(),
          now,
        );
        if (i === 0)
          this.#sql.exec("UPDATE transfers SET block_height = ? WHERE block_height IS NULL", height);
      }
      return { height };
    });
  }

  /**
   * Removes the last `depth` blocks. Incoming transfers in them vanish entirely (the deposit was
   * never there, as far as the best chain knows). Outgoing payouts go back to the mempool instead:
   * a payout gateway's idempotency record outlives a reorg, and deleting it would let a retried
   * payout be paid twice.
   */
  reorg(depth: number): { height: number } {
    const tip = this.#tip();
    if (!Number.isInteger(depth) || depth < 1) throw new RangeError("depth must be a whole number ≥ 1");
    if (depth > tip) throw new RangeError(`depth ${depth} exceeds the chain height ${tip}`);
    const height = tip - depth;
    this.ctx.storage.transactionSync(() => {
      this.#sql.exec("DELETE FROM transfers WHERE direction = 'in' AND block_height > ?", height);
      this.#sql.exec(
        "UPDATE transfers SET block_height = NULL WHERE direction = 'out' AND block_height > ?",
        height,
      );
      this.#sql.exec("DELETE FROM blocks WHERE height > ?", height);
    });
    return { height };
  }

  /**
   * Drops an unconfirmed incoming transfer, as if it was evicted or replaced. Confirmed transfers
   * (use reorg) and payouts (exactly-once records) are not dropped: false.
   */
  drop(txid: string): boolean {
    const cursor = this.#sql.exec(
      "DELETE FROM transfers WHERE txid = ? AND block_height IS NULL AND direction = 'in'",
      txid,
    );
    return cursor.rowsWritten > 0;
  }

  /** Incoming transfers of one asset to an address (+ tag), unconfirmed included, oldest first. */
  incomingTransfers(query: IncomingQuery): IncomingTransfer[] {
    this.#countRead();
    this.#maybeReadOutage();
    // EVM addresses are case-insensitive on chain (EIP-55 is only a checksum), base58 ones are not.
    // Two forms of the condition rather than one OR, so that each can use its index.
    const toMatches = /^0x/i.test(query.address) ? "lower(t.to_address) = lower(?1)" : "t.to_address = ?1";
    const rows = this.#sql
      .exec<TransferRow>(
        `SELECT t.txid, t.idx, t.to_address, t.tag, t.amount, t.block_height, b.hash AS block_hash, t.from_address, t.sources
           FROM transfers t LEFT JOIN blocks b ON b.height = t.block_height
          WHERE t.direction = 'in' AND ${toMatches}
            AND t.tag IS ?2 AND t.coin = ?3 AND t.contract IS ?4
            AND (t.block_height IS NULL OR t.block_height > ?5)
          ORDER BY t.rowid`,
        query.address,
        optionalText(query.tag),
        query.coin,
        optionalText(query.contract),
        this.#listingFloor(),
      )
      .toArray();
    return rows.map((r) => ({
      txid: r.txid,
      index: r.idx,
      to: r.to_address,
      tag: r.tag,
      amount: r.amount,
      blockHeight: r.block_height,
      blockHash: r.block_hash,
      ...(r.from_address !== null && { from: r.from_address }),
      ...(r.sources !== null && { sources: JSON.parse(r.sources) as string[] }),
    }));
  }

  /**
   * True iff the transfer still exists at the same place: its block height still carries the same
   * hash (unconfirmed: it is still in the mempool).
   */
  isInBestChain(query: BestChainQuery): boolean {
    this.#countRead();
    const row = this.#sql
      .exec<{ block_height: number | null; hash: string | null }>(
        `SELECT t.block_height, b.hash FROM transfers t LEFT JOIN blocks b ON b.height = t.block_height
          WHERE t.txid = ? AND t.idx = ?`,
        query.txid,
        query.index,
      )
      .toArray()[0];
    if (!row) return false;
    if (query.blockHeight === null) return row.block_height === null;
    return row.block_height === query.blockHeight && row.hash !== null && row.hash === query.blockHash;
  }

  /**
   * Records an outgoing transfer once per idempotency key. A repeat (retry, alarm re-run,
   * concurrent call) returns the first txid with created:false and records nothing.
   */
  sendPayout(input: PayoutInput): { txid: string; created: boolean } {
    const key = requiredText("idempotencyKey", input.idempotencyKey);
    const existing = this.#payoutByKey(key);
    if (existing) return { txid: existing.txid, created: false };
    if ((input.kind === "payout" || input.kind === "refund") && this.#takeFailure(input.kind))
      throw new RangeError(`${input.kind} refused (test helper: fail)`);
    if (this.#chance(this.faults().payoutFailRate))
      throw new Error("simulated payout failure (nothing sent)");
    if (input.kind !== "payout" && input.kind !== "refund")
      throw new RangeError("kind must be payout or refund");
    const to = requiredText("to", input.to);
    const coin = requiredText("coin", input.coin);
    const amount = toDecimalString(positiveAmount(input.amount));
    const txid = randomHex32();
    this.#sql.exec(
      `INSERT INTO transfers (txid, idx, network, coin, contract, to_address, tag, amount, block_height, direction,
                              idempotency_key, order_id, kind, created_at)
       VALUES (?, 0, ?, ?, ?, ?, ?, ?, NULL, 'out', ?, ?, ?, ?)`,
      txid,
      this.#network,
      coin,
      optionalText(input.contract),
      to,
      optionalText(input.tag),
      amount,
      key,
      optionalText(input.orderId),
      input.kind,
      new Date().toISOString(),
    );
    if (this.#chance(this.faults().payoutTimeoutRate))
      throw new Error("simulated timeout (the payout was recorded)");
    return { txid, created: true };
  }

  /** The payout recorded under this key, if any (a gateway's "did my timed-out send happen?"). */
  findPayout(idempotencyKey: string): { txid: string } | null {
    this.#maybeReadOutage();
    return this.#payoutByKey(idempotencyKey);
  }

  #payoutByKey(idempotencyKey: string): { txid: string } | null {
    const row = this.#sql
      .exec<{ txid: string }>("SELECT txid FROM transfers WHERE idempotency_key = ?", idempotencyKey)
      .toArray()[0];
    return row ? { txid: row.txid } : null;
  }

  /** Payouts and refunds sent on this network, oldest first. */
  outgoing(): OutgoingTransfer[] {
    return this.#sql
      .exec<OutgoingRow>(
        `SELECT txid, order_id, kind, to_address, tag, amount, coin, contract, created_at, block_height
           FROM transfers WHERE direction = 'out' ORDER BY rowid`,
      )
      .toArray()
      .map((r) => ({
        txid: r.txid,
        order_id: r.order_id,
        kind: r.kind,
        to: r.to_address,
        tag: r.tag,
        amount: r.amount,
        coin: r.coin,
        contract: r.contract,
        created_at: r.created_at,
        block_height: r.block_height,
      }));
  }
}
