/**
 * The order object's tables that a new order does not write (src/objects/order/migrations.ts,
 * "made on first write"): each is created by its first write, so a creation does not pay for the
 * DDL of the sends ledger, the webhook outbox and the alerts (docs/performance.md). Every statement
 * on such a table goes through its `LazyTable`: a read of a table not made yet answers no rows
 * (and makes nothing), a write makes the table first. An object created by an earlier version has
 * them all from the start, and uses them as they are.
 */
export class LazyTables {
  /** The tables that exist: one read of the schema per object, then kept as tables are made. */
  #present: Set<string> | null = null;

  constructor(private readonly sql: SqlStorage) {}

  table(name: string, ddl: string): LazyTable {
    return new LazyTable(this.sql, name, ddl, this);
  }

  has(name: string): boolean {
    this.#present ??= new Set(
      this.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray()
        .map((r) => r.name),
    );
    return this.#present.has(name);
  }

  made(name: string): void {
    this.has(name);
    this.#present?.add(name);
  }

  /** A table made inside a transaction that rolled back is gone again. */
  lost(name: string): void {
    this.#present?.delete(name);
  }
}

type Binding = SqlStorageValue;

export class LazyTable {
  readonly #missing: RegExp;
  readonly #ddl: string;

  constructor(
    private readonly sql: SqlStorage,
    readonly name: string,
    ddl: string,
    private readonly tables: LazyTables,
  ) {
    this.#missing = new RegExp(`no such table: (main\\.)?${name}\\b`);
    // IF NOT EXISTS: a table made behind this accessor's back (by a test) is kept as it is.
    this.#ddl = ddl.replace(/^CREATE TABLE /, "CREATE TABLE IF NOT EXISTS ");
  }

  /** A query's rows; none while the table has not been made (the query is not run). */
  rows<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: Binding[]): T[] {
    if (!this.tables.has(this.name)) return [];
    try {
      return this.sql.exec<T>(query, ...bindings).toArray();
    } catch (err) {
      if (!this.#isMissing(err)) throw err;
      return [];
    }
  }

  /** Runs a write, making the table first if this is its first. */
  write<T extends Record<string, SqlStorageValue>>(statement: string, ...bindings: Binding[]): T[] {
    if (!this.tables.has(this.name)) this.#make();
    try {
      return this.sql.exec<T>(statement, ...bindings).toArray();
    } catch (err) {
      if (!this.#isMissing(err)) throw err;
      this.#make();
      return this.sql.exec<T>(statement, ...bindings).toArray();
    }
  }

  #make(): void {
    this.sql.exec(this.#ddl);
    this.tables.made(this.name);
  }

  /** The table was made inside a transaction that rolled back since: it is known absent from now on. */
  #isMissing(err: unknown): boolean {
    if (!(err instanceof Error && this.#missing.test(err.message))) return false;
    this.tables.lost(this.name);
    return true;
  }
}
