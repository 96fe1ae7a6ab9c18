/**
 * Ledger's own document (integrations/ledger/ledger-swap-provider-openapi.yml) as a validator of
 * real /ledger/v2 answers: each answer is checked with Ajv against the schema the document gives
 * its operation and status. OpenAPI 3.0's `nullable`, and one `oneOf` no value can satisfy, are
 * turned into JSON Schema here; the document itself is read as vendored, never rewritten.
 */
import Ajv from "ajv";
import { expect } from "vitest";
import { parse } from "yaml";
import text from "../../integrations/ledger/ledger-swap-provider-openapi.yml?raw";

type Schema = { [key: string]: unknown };

interface Operation {
  responses: Record<string, { content?: { "application/json": { schema: Schema } } }>;
}

const DOC_ID = "ledger";
const doc = parse(text) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

/** OpenAPI 3.0 → JSON Schema: `nullable: true` admits null; refs point into the document. */
function jsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchema);
  if (!node || typeof node !== "object") return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$ref" && typeof v === "string") out.$ref = `${DOC_ID}${v}`;
    // CryptoCurrencyType is `oneOf` two plain string schemas (Coin, Token), which no value matches
    // exactly once; read as the union it means (the test checks the values coin / token itself).
    else if (k === "oneOf") out.anyOf = jsonSchema(v);
    else if (k !== "nullable") out[k] = jsonSchema(v);
  }
  const n = node as Schema;
  if (n.nullable === true && typeof n.type === "string") out.type = [n.type, "null"];
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: DOC_ID, components: jsonSchema(doc.components) });

/** The status and body of a /ledger/v2 answer, after checking it against the document. */
export async function ledgerAnswer<T = Record<string, unknown>>(
  res: Response,
  method: "get" | "post",
  path: string,
): Promise<{ status: number; body: T }> {
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await res.json()) as T;
  const operation = doc.paths[path]?.[method];
  if (!operation) throw new Error(`Ledger's document has no ${method.toUpperCase()} ${path}`);
  // A status the operation does not list (401, 400 on a read) answers Ledger's error payload.
  const schema = operation.responses[String(res.status)]?.content?.["application/json"].schema ?? {
    $ref: "#/components/schemas/ErrorPayload",
  };
  const validate = ajv.compile(jsonSchema(schema) as Schema);
  expect(
    validate(body),
    `${method.toUpperCase()} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
  ).toBe(true);
  return { status: res.status, body };
}

/** Ledger's error payload, which its document leaves all-optional: this service always fills it. */
export async function ledgerError(
  res: Response,
  method: "get" | "post",
  path: string,
  status: number,
  messageKey: string,
) {
  const answer = await ledgerAnswer<{
    messageKey: string;
    message: string;
    additionalFields: Record<string, string>;
  }>(res, method, path);
  expect({ status: answer.status, messageKey: answer.body.messageKey }).toEqual({ status, messageKey });
  expect(answer.body.message.length).toBeGreaterThan(0);
  expect(typeof answer.body.additionalFields.code).toBe("string");
  return answer.body;
}

/** Checks a value against one of the document's named schemas (what this service sends Ledger). */
export function expectLedgerSchema(name: string, value: unknown): void {
  const validate = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
  expect(validate(value), `${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`).toBe(true);
}

/** Every operation of the document, as `method path`. */
export const LEDGER_OPERATIONS = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.keys(ops).map((method) => `${method} ${path}`),
);
