/**
 * What a D1 read needs: a Sessions API session (`env.DB.withSession(…)`, which may answer from a
 * read replica) or the database itself (the primary). Reads that tolerate replica lag take this,
 * so a route hands them its request's session (docs/architecture.md, "Reads from replicas").
 */
export type D1Reads = Pick<D1DatabaseSession, "prepare" | "batch">;
