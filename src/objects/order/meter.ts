/**
 * What one order costs, counted by the order's own object when ORDER_METER is on (the soak's cost
 * table, docs/performance.md "The cost of one order"; off in production, where it would itself
 * cost a write per run). The object's storage and env are wrapped so that everything the order's
 * code does through them is counted without that code knowing:
 *
 * - `alarms`: alarm runs;
 * - `storage_rows_written`: rows written to the object's storage (a kv put or delete is one row; a
 *   SQL statement counts its cursor's rowsWritten);
 * - `d1_rows_written`: rows written in D1, from each result's `meta.rows_written`;
 * - `chain_reads`: calls to a chain reader's object (ChainWatch or SimChain reads);
 * - `venue_calls`: calls to the simulated venue (SimChain `exchangeFault`, one per attempt).
 *
 * The counts go to a plain SQL table of the object (`_meter`, with a row `order:<id>` naming it),
 * written once at the end of each run, outside the counts; the soak reads it from the local state
 * files.
 */

export interface OrderMeter {
  storage: DurableObjectStorage;
  env: Env;
  alarm(): void;
  /** Adds this run's counts to the object's `_meter` table. */
  flush(): void;
}

const CHAIN_READS = new Set(["tipHeight", "incomingTransfers", "isInBestChain", "addressTransfers"]);

/** Counts `method` calls on an object's stubs, per method name. */
function countingNamespace<T extends object>(ns: T, onCall: (method: string) => void): T {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop !== "getByName" && prop !== "get")
        return typeof value === "function" ? value.bind(target) : value;
      return (...args: unknown[]) => {
        const stub = (value as (...a: unknown[]) => object).apply(target, args);
        return new Proxy(stub, {
          get(s, method) {
            const fn = Reflect.get(s, method);
            if (typeof method !== "string" || method === "then" || typeof fn !== "function") return fn;
            // Called on the stub itself: an RPC stub's function is a stub too (`apply` would be RPC).
            return (...a: unknown[]) => {
              onCall(method);
              return (s as Record<string, (...x: unknown[]) => unknown>)[method]!(...a);
            };
          },
        });
      };
    },
  });
}

/** `orderId`: the object's name, stored beside the counts so that a reader of the files can join them. */
export function createOrderMeter(storage: DurableObjectStorage, env: Env, orderId: string): OrderMeter {
  const counts = { alarms: 0, storage_rows_written: 0, d1_rows_written: 0, chain_reads: 0, venue_calls: 0 };
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  const real = new WeakMap<object, D1PreparedStatement>();

  const kv = new Proxy(storage.kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (prop === "put" || prop === "delete") counts.storage_rows_written++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const sql = new Proxy(storage.sql, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (prop === "exec") cursors.push(out as SqlStorageCursor<Record<string, SqlStorageValue>>);
        return out;
      };
    },
  });
  const meteredStorage = new Proxy(storage, {
    get(target, prop) {
      if (prop === "kv") return kv;
      if (prop === "sql") return sql;
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });

  const written = (result: unknown) => {
    const meta = (result as { meta?: { rows_written?: number } } | null)?.meta;
    counts.d1_rows_written += meta?.rows_written ?? 0;
    return result;
  };
  const statement = (s: D1PreparedStatement): D1PreparedStatement => {
    const p = new Proxy(s, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (typeof value !== "function") return value;
        if (prop === "bind")
          return (...args: unknown[]) =>
            statement((value as (...a: unknown[]) => D1PreparedStatement).apply(target, args));
        if (prop === "run" || prop === "all")
          return async (...args: unknown[]) =>
            written(await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
        return value.bind(target);
      },
    });
    real.set(p, s);
    return p;
  };
  const db = new Proxy(env.DB, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop === "prepare") return (query: string) => statement(target.prepare(query));
      if (prop === "batch")
        return async (stmts: D1PreparedStatement[]) => {
          const results = await target.batch(stmts.map((s) => real.get(s) ?? s));
          for (const r of results) written(r);
          return results;
        };
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const onChain = (method: string) => {
    if (CHAIN_READS.has(method)) counts.chain_reads++;
    if (method === "exchangeFault") counts.venue_calls++;
  };
  const meteredEnv = new Proxy(env, {
    get(target, prop) {
      if (prop === "DB") return db;
      if (prop === "SIM_CHAIN") return countingNamespace(target.SIM_CHAIN, onChain);
      if (prop === "CHAIN_WATCH") return countingNamespace(target.CHAIN_WATCH, onChain);
      return Reflect.get(target, prop);
    },
  });

  return {
    storage: meteredStorage,
    env: meteredEnv,
    alarm() {
      counts.alarms++;
    },
    flush() {
      for (const c of cursors.splice(0)) counts.storage_rows_written += c.rowsWritten;
      storage.sql.exec("CREATE TABLE IF NOT EXISTS _meter (k TEXT PRIMARY KEY, n INTEGER NOT NULL)");
      storage.sql.exec(
        "INSERT INTO _meter (k, n) VALUES (?, 0) ON CONFLICT (k) DO NOTHING",
        `order:${orderId}`,
      );
      for (const [k, n] of Object.entries(counts)) {
        if (n === 0) continue;
        storage.sql.exec(
          "INSERT INTO _meter (k, n) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET n = n + excluded.n",
          k,
          n,
        );
      }
      for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] = 0;
    },
  };
}
