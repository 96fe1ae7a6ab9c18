import { call, json } from "../helpers";

/** An operation of the served partner document, with the extensions the key tests read. */
export interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  "x-required-scope"?: string;
  "x-app-key"?: boolean;
}

/** The security schemes a partner key satisfies. */
export const KEY_SCHEMES = ["PartnerBearer", "PartnerApiKey"];

/** Every operation of the served partner document that accepts a key. */
export async function keyedOperations() {
  const doc = await json<{ paths: Record<string, Record<string, Operation>> }>(
    await call("/api/v1/openapi.json"),
  );
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => op.security?.some((req) => KEY_SCHEMES.some((s) => s in req)))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}
