/**
 * fast-check generators for the API fuzz tests (issue 8 item 4).
 *
 * Every route's generator starts from a request that is known to be valid and applies mutations
 * from three buckets per aspect (body, auth, headers, query):
 *   - `valid`   — accepted by the API (e.g. a lower-case ticker, a correct X-Signature);
 *   - `unknown` — may or may not be accepted (e.g. `APPLICATION/JSON`); only used where the outcome
 *                 does not matter;
 *   - `invalid` — no valid request looks like this (a dropped required field, a negative amount,
 *                 an unknown key, …).
 * A request built with at least one `invalid` mutation is `mustFail`: the API has to reject it and
 * change nothing. `mode: "fail"` builds only such requests; `mode: "any"` mixes all buckets.
 */
import fc from "fast-check";

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

export interface FuzzRequest {
  /** Route family, for failure messages and statistics. */
  label: string;
  method: string;
  /** Path and query exactly as sent (already percent-encoded where a client would encode). */
  path: string;
  /** Sent with `Headers.append`, so repeated names are combined as `a, b` like on the wire. */
  headers: [string, string][];
  body?: string | Uint8Array;
  /** X-Signature computed from the final body at send time. */
  sign?: { secret: string; mode: "valid" | "upper" | "prefixed" | "truncated" };
  /** Built with at least one mutation no valid request has: must be rejected and change nothing. */
  mustFail: boolean;
  /** The faults applied (shown when a property fails). */
  faults: string[];
}

export type Mode = "fail" | "any";

/** Values the fuzz generators need from the running Worker (created in beforeAll). */
export interface FuzzContext {
  /** Active partner with a high rate limit: `<key_id>.<secret>`. */
  key: string;
  keyId: string;
  secret: string;
  /** A second partner's key, for conflicting headers and foreign orders. */
  otherKey: string;
  revokedKey: string;
  /** Key of a deactivated partner (403). */
  inactiveKey: string;
  /** Partner the admin fuzz may modify (never the one `key` belongs to). */
  victimId: string;
  victimKeyId: string;
  /** A fixed quote of the `key` partner for BTC→ETH 0.05 (no order template matches it). */
  quoteId: string;
  /** Orders of the `key` partner (UUIDs and short ids). */
  orderIds: string[];
  /** Orders of the `otherKey` partner: 404 for `key`. */
  foreignOrderIds: string[];
  /** Routes in the OpenAPI document (path templates with `{param}`), upper-case methods. */
  routes: { method: string; path: string }[];
}

export const ADMIN_TOKEN = "test-admin-token";

// ---------------------------------------------------------------------------------------------
// JSON text that JSON.stringify cannot produce
// ---------------------------------------------------------------------------------------------

/** Text spliced into a JSON body verbatim: `1e400`, `-0`, `0x10`, broken syntax. */
export class Raw {
  constructor(readonly text: string) {}
}

/** A JSON object written from entries, so keys may repeat (JSON.parse keeps the last). */
export class Obj {
  constructor(readonly entries: [string, unknown][]) {}
}

export function toJsonText(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (v instanceof Obj)
    return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x)}`).join(",")}}`;
  if (Array.isArray(v)) return `[${v.map(toJsonText).join(",")}]`;
  if (v !== null && typeof v === "object")
    return toJsonText(new Obj(Object.entries(v as Record<string, unknown>)));
  if (v === undefined) return "null";
  return JSON.stringify(v);
}

// ---------------------------------------------------------------------------------------------
// Weird values
// ---------------------------------------------------------------------------------------------

export const LONG = "x".repeat(10_000);

/** Numbers: huge, tiny, negative, -0, unsafe integers, subnormals. */
export const weirdNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    1,
    0.1,
    -0.1,
    1e-7,
    5e-324,
    1e21,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    2 ** 63,
    0.30000000000000004,
    123456789.12345679,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Number tokens only raw JSON can carry, and tokens that are not JSON at all. */
export const rawNumberText: fc.Arbitrary<Raw> = fc
  .constantFrom(
    "1e400",
    "-1e400",
    "1e-400",
    "-0",
    "-0.0",
    "0x10",
    "1E5",
    "01",
    "00.5",
    ".5",
    "5.",
    "+1",
    "NaN",
    "Infinity",
    "-Infinity",
    "1_000",
    "0b1",
    "0o7",
    "1.0000000000000000000000000000001",
    "9".repeat(400),
    "1e",
    "--1",
    "0.1e1",
    "undefined",
  )
  .map((t) => new Raw(t));

/** Strings: unicode, control characters, lone surrogates, injection-looking text, very long. */
export const weirdString: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\t",
      "\n",
      "\u0000",
      "\u0000BTC",
      "BTC\u0000",
      "\u001f",
      "\u007f",
      "\u0085",
      "\u00a0",
      "\u200b",
      "\ufeff",
      "\u202e",
      "BTC\n",
      " BTC ",
      "btc",
      "ＢＴＣ",
      "１",
      "٣",
      "ß",
      "İ",
      "ſ",
      "ﬀ",
      "🙂",
      "👩‍👩‍👧‍👦",
      "e\u0301",
      "\ud800",
      "\udfff",
      "𝟏",
      "1e400",
      "0x10",
      "-0",
      "NaN",
      "Infinity",
      "-1",
      "1,5",
      "1 000",
      "null",
      "undefined",
      "true",
      "[]",
      "{}",
      "__proto__",
      "constructor",
      "toString",
      "hasOwnProperty",
      "../../etc/passwd",
      "%00",
      "%2e%2e%2f",
      "<script>alert(1)</script>",
      "' OR 1=1 --",
      "'; DROP TABLE orders; --",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, sent as text
      "${jndi:ldap://x}",
      "{{7*7}}",
      "\\",
      '"',
      LONG,
      "€".repeat(5_000),
      "\u0000".repeat(1_000),
    ),
    weight: 3,
  },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ minLength: 100, maxLength: 400 }), weight: 1 },
);

/** Any JSON-ish value of the wrong kind: types, nesting, raw tokens. */
export const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: weirdNumber, weight: 3 },
  { arbitrary: rawNumberText, weight: 2 },
  { arbitrary: weirdString, weight: 4 },
  { arbitrary: fc.constantFrom(null, true, false, [], {}, [[]], [null], { "": null }), weight: 2 },
  {
    arbitrary: fc.integer({ min: 1, max: 3_000 }).map((d) => new Raw(`${"[".repeat(d)}${"]".repeat(d)}`)),
    weight: 1,
  },
  {
    arbitrary: fc
      .integer({ min: 1, max: 3_000 })
      .map((d) => new Raw(`${'{"a":'.repeat(d)}1${"}".repeat(d)}`)),
    weight: 1,
  },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
);

/** Garbage request bodies: never a valid body of any route. */
export const garbageBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "null",
    "true",
    "0",
    "-0",
    "1e400",
    '"x"',
    "[]",
    "[{}]",
    "[null]",
    "{",
    "}",
    "{{}}",
    '{"a":}',
    '{"a" 1}',
    "{'a':'b'}",
    '{"a":1,}',
    '{"a":1}{}',
    '{"a":1} x',
    "undefined",
    "NaN",
    "\u0000",
    "\ufeff",
    "[".repeat(10_000),
    '{"a":'.repeat(5_000),
    `"${LONG}"`,
  ),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.uint8Array({ minLength: 1, maxLength: 200 }),
  // Invalid UTF-8 around otherwise plausible JSON.
  fc.constant(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
  fc.constant(new Uint8Array([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1])),
);

/** A body over the 64 KiB limit (valid JSON; 413 whatever the route). */
export const oversizeBody: fc.Arbitrary<string> = fc
  .integer({ min: 64 * 1024, max: 80 * 1024 })
  .map((n) => JSON.stringify({ pad: "x".repeat(n) }));

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** encodeURIComponent that also takes lone surrogates (encoded as U+FFFD like a client would). */
export function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...new TextEncoder().encode(s)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
  }
}

export function query(pairs: [string, string][]): string {
  return pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&")}`;
}

const B64URL = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"];
const b64urlChars = (n: number) =>
  fc.string({ unit: fc.constantFrom(...B64URL), minLength: n, maxLength: n });

/** A well-formed key no partner has. */
export const unknownKey: fc.Arbitrary<string> = fc
  .tuple(b64urlChars(16), b64urlChars(43))
  .map(([id, secret]) => `pk_${id}.${secret}`);

/** Picks from a weighted list of `[weight, arbitrary]` (fc.oneof with shorter syntax). */
function pick<T>(...options: [number, fc.Arbitrary<T>][]): fc.Arbitrary<T> {
  return fc.oneof(...options.map(([weight, arbitrary]) => ({ weight, arbitrary })));
}

/** An aspect of a request: the value used plus the fault it carries (null when not invalid). */
interface Aspect<T> {
  value: T;
  fault: string | null;
}
const ok = <T>(value: T): Aspect<T> => ({ value, fault: null });
const bad =
  (fault: string) =>
  <T>(value: T): Aspect<T> => ({ value, fault });

/** valid ∪ unknown when the aspect must not carry the fault, invalid when it must; any: all three. */
function aspect<T>(
  faulty: boolean | "any",
  valid: fc.Arbitrary<Aspect<T>>,
  unknown: fc.Arbitrary<Aspect<T>> | null,
  invalid: fc.Arbitrary<Aspect<T>>,
): fc.Arbitrary<Aspect<T>> {
  if (faulty === true) return invalid;
  const harmless = unknown ? pick<Aspect<T>>([4, valid], [1, unknown]) : valid;
  return faulty === false ? harmless : pick<Aspect<T>>([2, harmless], [1, invalid]);
}

/** Which aspects carry a fault: in "fail" mode at least one (the first is weighted). */
function faultyAspects<A extends string>(
  mode: Mode,
  weighted: A[],
): fc.Arbitrary<Record<A, boolean | "any">> {
  const names = [...new Set(weighted)];
  if (mode === "any")
    return fc.constant(Object.fromEntries(names.map((n) => [n, "any"])) as Record<A, "any">);
  return fc
    .tuple(
      fc.constantFrom(...weighted),
      // Mostly one fault, so each layer's own checks are reached; sometimes two.
      pick<A[]>([3, fc.constant([])], [1, fc.subarray(names, { minLength: 1, maxLength: 1 })]),
    )
    .map(
      ([primary, extra]) =>
        Object.fromEntries(names.map((n) => [n, n === primary || extra.includes(n)])) as Record<A, boolean>,
    );
}

function finish(
  label: string,
  method: string,
  path: string,
  parts: Aspect<unknown>[],
  headers: [string, string][],
  body?: string | Uint8Array,
  sign?: FuzzRequest["sign"],
): FuzzRequest {
  const faults = parts.flatMap((p) => (p.fault ? [p.fault] : []));
  const req: FuzzRequest = {
    label,
    method,
    path,
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(sign ? { sign } : {}),
    mustFail: faults.length > 0,
    faults,
  };
  // fast-check prints counterexamples with this: short enough to read, exact enough to replay.
  Object.defineProperty(req, fc.toStringMethod, { value: () => describeRequest(req), enumerable: false });
  return req;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

/** A compact, replayable description of a request (long values clipped, lengths shown). */
export function describeRequest(req: FuzzRequest): string {
  const body =
    req.body === undefined
      ? ""
      : typeof req.body === "string"
        ? ` body=${clip(JSON.stringify(req.body), 300)}`
        : ` body=bytes[${[...req.body.slice(0, 64)].join(",")}${req.body.length > 64 ? ",…" : ""}]`;
  const headers = req.headers.map(([k, v]) => `${k}: ${clip(JSON.stringify(v), 120)}`).join(" | ");
  const sign = req.sign ? ` x-signature=<${req.sign.mode} HMAC>` : "";
  return `${req.method} ${clip(req.path, 300)} [${headers}]${sign}${body} mustFail=${req.mustFail} faults=${JSON.stringify(req.faults)}`;
}

// ---------------------------------------------------------------------------------------------
// Shared header aspects
// ---------------------------------------------------------------------------------------------

type HeaderList = [string, string][];

/** Partner credentials. `required`: no key is a fault; otherwise anonymous is valid. */
function partnerAuth(
  ctx: FuzzContext,
  required: boolean,
  faulty: boolean | "any",
): fc.Arbitrary<Aspect<HeaderList>> {
  const { key, keyId, secret } = ctx;
  const valid = fc.constantFrom<Aspect<HeaderList>>(
    ok([["authorization", `Bearer ${key}`]]),
    ok([["x-api-key", key]]),
    ok([["authorization", `bearer ${key}`]]),
    ok([["authorization", `Bearer   ${key}`]]),
    ok([["x-api-key", ` ${key} `]]),
    ok([
      ["authorization", `Bearer ${key}`],
      ["x-api-key", key],
    ]),
    ...(required
      ? []
      : [
          ok<HeaderList>([]),
          // Another scheme where a key is optional: not ours, ignored, the quote is anonymous.
          ok<HeaderList>([["authorization", "Basic dGVzdDp0ZXN0"]]),
          ok<HeaderList>([["authorization", `Token ${key}`]]),
        ]),
  );
  const unknown = fc.constantFrom<Aspect<HeaderList>>(
    ok([["authorization", `BEARER ${key}`]]),
    ok([["authorization", `Bearer\t${key}`]]),
    ok([
      ["authorization", `Bearer ${key}`],
      ["x-api-key", ` ${key}`],
    ]),
    ok([["authorization", ""]]),
  );
  const b = bad("auth");
  const invalid = pick<Aspect<HeaderList>>(
    [
      6,
      fc.constantFrom<Aspect<HeaderList>>(
        ...(required ? [b<HeaderList>([])] : []),
        b([["authorization", "Bearer"]]),
        // An empty Authorization reaches the Worker like no header at all (anonymous where allowed).
        ...(required ? [b<HeaderList>([["authorization", ""]])] : []),
        // Where a key is optional, an Authorization of another scheme is not ours and is ignored
        // (docs/auth-and-limits.md); where one is required it is a malformed credential.
        ...(required
          ? [
              b<HeaderList>([["authorization", "Basic dGVzdDp0ZXN0"]]),
              b<HeaderList>([["authorization", key]]),
              b<HeaderList>([["authorization", `Token ${key}`]]),
            ]
          : []),
        b([["authorization", `Bearer ${key} extra`]]),
        b([["authorization", `Bearer ${keyId}${secret}`]]),
        b([["x-api-key", `${keyId}${secret}`]]),
        b([["x-api-key", "pk_live_plaintext"]]),
        b([["x-api-key", "pk_short.secret"]]),
        b([["x-api-key", `${keyId}.${secret.slice(1)}`]]),
        b([["x-api-key", `${key}x`]]),
        b([["x-api-key", `${keyId.toUpperCase()}.${secret}`]]),
        b([
          [
            "x-api-key",
            `${keyId}.${secret.toLowerCase() === secret ? secret.toUpperCase() : secret.toLowerCase()}`,
          ],
        ]),
        b([["x-api-key", `${keyId}.${"A".repeat(43)}`]]),
        b([["x-api-key", `${key}.${secret}`]]),
        b([["x-api-key", key.repeat(200)]]),
        b([["x-api-key", LONG]]),
        b([["x-api-key", ""]]),
        b([["x-api-key", ctx.revokedKey]]),
        b([["authorization", `Bearer ${ctx.revokedKey}`]]),
        b([["x-api-key", ctx.inactiveKey]]),
        b([
          ["authorization", `Bearer ${key}`],
          ["x-api-key", ctx.otherKey],
        ]),
        b([
          ["authorization", `Bearer ${ctx.otherKey}`],
          ["x-api-key", key],
        ]),
        b([
          ["authorization", `Bearer ${key}`],
          ["authorization", `Bearer ${key}`],
        ]),
        b([
          ["x-api-key", key],
          ["x-api-key", key],
        ]),
        b([
          ["authorization", `Bearer ${key}`],
          ["authorization", `Bearer ${ctx.otherKey}`],
        ]),
        b([["authorization", `Bearer ${ADMIN_TOKEN}`]]),
      ),
    ],
    [2, unknownKey.map((k) => b<HeaderList>([["x-api-key", k]]))],
    [1, unknownKey.map((k) => b<HeaderList>([["authorization", `Bearer ${k}`]]))],
    [1, b64urlChars(43).map((s) => b<HeaderList>([["x-api-key", `${keyId}.${s}`]]))],
    [1, fc.string({ maxLength: 100 }).map((s) => b<HeaderList>([["x-api-key", s]]))],
  );
  return aspect(faulty, valid, unknown, invalid);
}

/** Idempotency-Key: 1–255 printable ASCII without spaces. */
function idempotencyKey(faulty: boolean | "any"): fc.Arbitrary<Aspect<HeaderList>> {
  const printable = fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 255,
  });
  const valid = pick<Aspect<HeaderList>>(
    [3, fc.constant(ok<HeaderList>([]))],
    [2, printable.map((k) => ok<HeaderList>([["idempotency-key", k]]))],
    [
      1,
      fc.constantFrom(
        ok<HeaderList>([["idempotency-key", "x".repeat(255)]]),
        ok<HeaderList>([["idempotency-key", "!"]]),
      ),
    ],
  );
  const b = bad("idempotency-key");
  const invalid = pick<Aspect<HeaderList>>(
    [
      3,
      fc.constantFrom<Aspect<HeaderList>>(
        b([["idempotency-key", ""]]),
        b([["idempotency-key", "a b"]]),
        b([["idempotency-key", "a\tb"]]),
        b([["idempotency-key", "x".repeat(256)]]),
        b([["idempotency-key", "x".repeat(5_000)]]),
        b([["idempotency-key", "clé"]]),
        b([["idempotency-key", "\u00ffkey"]]),
        b([["idempotency-key", "key\u007f"]]),
        b([
          ["idempotency-key", "a"],
          ["idempotency-key", "b"],
        ]),
      ),
    ],
    [1, printable.map((k) => b<HeaderList>([["idempotency-key", `a ${k}`]]))],
    [1, printable.map((k) => b<HeaderList>([["idempotency-key", k.padEnd(256, "z")]]))],
  );
  return aspect(faulty, valid, null, invalid);
}

/** X-Signature: absent or the correct hex HMAC of the body, in either case. */
function signature(
  ctx: FuzzContext,
  faulty: boolean | "any",
): fc.Arbitrary<Aspect<FuzzRequest["sign"] | HeaderList>> {
  type S = FuzzRequest["sign"] | HeaderList;
  const valid = fc.constantFrom<Aspect<S>>(
    ok<S>([]),
    ok<S>({ secret: ctx.secret, mode: "valid" }),
    ok<S>({ secret: ctx.secret, mode: "upper" }),
  );
  const b = bad("x-signature");
  const invalid = pick<Aspect<S>>(
    [
      2,
      fc.constantFrom<Aspect<S>>(
        b<S>({ secret: ctx.secret, mode: "prefixed" }),
        b<S>({ secret: ctx.secret, mode: "truncated" }),
        b<S>({ secret: "not-the-secret", mode: "valid" }),
        b<S>([["x-signature", ""]]),
        b<S>([["x-signature", "0".repeat(64)]]),
        b<S>([["x-signature", LONG]]),
      ),
    ],
    [1, fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => b<S>([["x-signature", h]]))],
    [1, fc.string({ maxLength: 80 }).map((s) => b<S>([["x-signature", s]]))],
  );
  return aspect(faulty, valid, null, invalid);
}

/** Content-Type of a JSON body. */
function contentType(faulty: boolean | "any"): fc.Arbitrary<Aspect<HeaderList>> {
  const valid = fc.constantFrom<Aspect<HeaderList>>(
    ok([["content-type", "application/json"]]),
    ok([["content-type", "application/json; charset=utf-8"]]),
  );
  const unknown = fc.constantFrom<Aspect<HeaderList>>(
    ok([["content-type", "APPLICATION/JSON"]]),
    ok([["content-type", "application/json;charset=UTF-8"]]),
    ok([["content-type", "application/json; charset=latin1"]]),
    ok([["content-type", "application/vnd.api+json"]]),
    ok([["content-type", "application/jsonx"]]),
    ok([
      ["content-type", "application/json"],
      ["content-type", "text/plain"],
    ]),
    ok([
      ["content-type", "application/json"],
      ["content-encoding", "gzip"],
    ]),
  );
  const b = bad("content-type");
  const invalid = fc.constantFrom<Aspect<HeaderList>>(
    b([]),
    b([["content-type", "text/plain"]]),
    b([["content-type", "application/x-www-form-urlencoded"]]),
    b([["content-type", "multipart/form-data; boundary=x"]]),
    b([["content-type", "application/xml"]]),
    b([["content-type", "json"]]),
    b([["content-type", ""]]),
  );
  return aspect(faulty, valid, unknown, invalid);
}

/** Headers that do not matter to any route: must never break the uniform responses. */
export const noiseHeaders: fc.Arbitrary<HeaderList> = fc.array(
  fc.oneof(
    fc.constantFrom<[string, string]>(
      ["x-request-id", "abc-123"],
      ["x-request-id", "x".repeat(128)],
      ["x-request-id", "x".repeat(129)],
      ["x-request-id", "has space"],
      ["x-request-id", "<script>"],
      ["x-request-id", ""],
      ["accept", "text/html"],
      ["accept", "*/*"],
      ["accept-encoding", "gzip, br"],
      ["origin", "https://evil.example"],
      ["x-forwarded-for", "1.2.3.4"],
      ["cookie", "a=b"],
      ["if-none-match", '"abc"'],
      ["range", "bytes=0-10"],
      ["transfer-encoding", "chunked"],
    ),
    fc.tuple(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), fc.string({ maxLength: 100 })),
  ),
  { maxLength: 3 },
);

// ---------------------------------------------------------------------------------------------
// Catalog facts the generators rely on
// ---------------------------------------------------------------------------------------------

/** Every coin and network ticker in the seed catalog: a "wrong ticker" must be none of these. */
export const KNOWN_TICKERS = new Set([
  "BTC",
  "ETH",
  "USDT",
  "USDC",
  "LTC",
  "DOGE",
  "BNB",
  "TRX",
  "SOL",
  "XRP",
  "XLM",
  "TON",
  "DASH",
  "BCH",
  "BSC",
]);

// Real published addresses (see test/domain/addresses.test.ts).
export const TRON_ADDR = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
export const BTC_ADDR = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4";
export const XRP_ADDR = "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh";
export const ETH_ADDR = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
export const SOL_ADDRS = ["11111111111111111111111111111111", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"];

const wrongTicker: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    0,
    1,
    true,
    null,
    [],
    ["BTC"],
    {},
    { coin: "BTC" },
    "",
    "   ",
    "\t\n",
    "\u00a0",
    "x".repeat(21),
    "BTC".repeat(7),
    "NOPE",
    "BTCX",
    "BTC\u0000",
    "ＢＴＣ",
    "ß",
    "B TC",
    "B\u200bTC",
    "BTC/BTC",
    "%42TC",
    "*",
    LONG,
  ),
  weirdString.filter((s) => !KNOWN_TICKERS.has(s.trim().toUpperCase())),
  weirdNumber,
);

// ---------------------------------------------------------------------------------------------
// POST /api/v1/partner/orders
// ---------------------------------------------------------------------------------------------

interface OrderTemplate {
  body: Record<string, unknown>;
  /** An address valid on some other network but not on network_to / network_from. */
  wrongRecipient: string;
  wrongRefund: string;
}

const ORDER_TEMPLATES: OrderTemplate[] = [
  {
    body: {
      coin_from: "BTC",
      network_from: "BTC",
      coin_to: "USDT",
      network_to: "TRX",
      amount_from: 0.01,
      rate_type: "float",
      recipient_address: TRON_ADDR,
    },
    wrongRecipient: BTC_ADDR,
    wrongRefund: TRON_ADDR,
  },
  {
    body: {
      coin_from: "XRP",
      network_from: "XRP",
      coin_to: "BTC",
      network_to: "BTC",
      amount_from: "100",
      rate_type: "fixed",
      recipient_address: BTC_ADDR,
      refund_address: XRP_ADDR,
      refund_address_tag: "7",
    },
    wrongRecipient: TRON_ADDR,
    wrongRefund: ETH_ADDR,
  },
  {
    body: {
      coin_from: "ETH",
      network_from: "ETH",
      coin_to: "XRP",
      network_to: "XRP",
      amount_from: 0.1,
      rate_type: "float",
      recipient_address: XRP_ADDR,
      recipient_address_tag: "12345",
    },
    wrongRecipient: ETH_ADDR,
    wrongRefund: XRP_ADDR,
  },
  {
    body: {
      coin_from: "BTC",
      network_from: "BTC",
      coin_to: "ETH",
      network_to: "ETH",
      amount_from: "0.02",
      rate_type: "fixed",
      recipient_address: ETH_ADDR.toLowerCase(),
      refund_address: BTC_ADDR,
    },
    wrongRecipient: XRP_ADDR,
    wrongRefund: ETH_ADDR,
  },
];

const ORDER_FIELDS = new Set([
  "coin_from",
  "network_from",
  "coin_to",
  "network_to",
  "amount_from",
  "rate_type",
  "recipient_address",
  "recipient_address_tag",
  "refund_address",
  "refund_address_tag",
  "quote_id",
]);
const REQUIRED_ORDER_FIELDS = [
  "coin_from",
  "network_from",
  "coin_to",
  "network_to",
  "amount_from",
  "rate_type",
  "recipient_address",
];
const TICKER_FIELDS = ["coin_from", "network_from", "coin_to", "network_to"];

type Entries = [string, unknown][];
/** `late`: applied after the other mutations (a repeated key must stay last to win). */
type EntryMutation = { fault: string | null; apply: (e: Entries) => Entries; late?: boolean };

const setField =
  (field: string, value: unknown) =>
  (e: Entries): Entries => [...e.filter(([k]) => k !== field), [field, value]];

/** A mutation that keeps a valid order valid. */
function neutralOrderMutation(tpl: OrderTemplate): fc.Arbitrary<EntryMutation> {
  const n = (apply: (e: Entries) => Entries): EntryMutation => ({ fault: null, apply });
  const body = tpl.body;
  return fc.oneof(
    fc.constantFrom(...TICKER_FIELDS).chain((f) =>
      fc
        .constantFrom(
          (s: string) => s.toLowerCase(),
          (s: string) => ` ${s}\t`,
          (s: string) => `\u00a0${s}\ufeff`,
        )
        .map((t) => n((e) => e.map(([k, v]) => [k, k === f && typeof v === "string" ? t(v) : v]))),
    ),
    fc
      .constantFrom(
        (a: unknown) => String(a),
        (a: unknown) => Number(a),
        (a: unknown) => `${String(a)}${String(a).includes(".") ? "" : "."}000`,
      )
      .map((t) => n((e) => e.map(([k, v]) => [k, k === "amount_from" ? t(v) : v]))),
    fc
      .constantFrom("recipient_address_tag", "refund_address", "refund_address_tag", "quote_id")
      .filter((f) => !(f in body) && !(f === "refund_address" && "refund_address_tag" in body))
      .map((f) => n(setField(f, null))),
    fc.constant(n((e) => [...e].reverse())),
    // A repeated key: the last one (valid) wins.
    fc.constantFrom(...REQUIRED_ORDER_FIELDS).map(
      (f): EntryMutation => ({
        fault: null,
        late: true,
        apply: (e) => {
          const v = e.findLast(([k]) => k === f)?.[1];
          return [[f, -1], ...e.filter(([k]) => k !== f), [f, v]];
        },
      }),
    ),
  );
}

/** A mutation that makes any order invalid. */
function invalidOrderMutation(tpl: OrderTemplate, quoteId: string): fc.Arbitrary<EntryMutation> {
  const m = (fault: string, apply: (e: Entries) => Entries): EntryMutation => ({ fault, apply });
  const wrongAmount = fc.oneof(
    fc.constantFrom<unknown>(
      0,
      -0,
      -1,
      -0.01,
      1e9,
      1e-9,
      1e30,
      1e31,
      1e-31,
      Number.MAX_VALUE,
      -Number.MAX_VALUE,
      5e-324,
      "0",
      "0.0",
      "00",
      "-1",
      "-0",
      "-0.01",
      "1e5",
      "1E-2",
      "0x10",
      "1e400",
      " 1",
      "1 ",
      "+1",
      "1,5",
      "1_0",
      "",
      "NaN",
      "Infinity",
      "99999999999999999999999999999",
      "1".repeat(31),
      "0.000000001",
      "0.".padEnd(40, "1"),
      "1".repeat(81),
      "١",
      "１",
      true,
      false,
      null,
      [],
      [0.01],
      {},
      { value: 0.01 },
      new Raw("1e400"),
      new Raw("-0"),
      new Raw("-1e400"),
      new Raw("1e-400"),
      new Raw("0x10"),
      new Raw("NaN"),
      new Raw("Infinity"),
    ),
    fc.double({ max: 0, noNaN: true }),
    fc.integer({ min: -1_000_000, max: 0 }),
  );
  // Well-formed amounts every template refuses by its business rules: above the max, below the
  // min, or more decimals than the coin has.
  const ruleAmount = fc.oneof(
    fc.constantFrom<unknown>(
      1e9,
      "1000000000",
      "99999999999999999999999999999",
      1e-9,
      "0.000000001",
      0.0001,
      "0.0001",
      "0.0001000",
      "0.123456789123",
      1e-30,
    ),
    fc.double({ min: 1e7, max: 1e29, noNaN: true }),
    fc.integer({ min: 10_000_000 }),
  );
  const wrongRateType = fc.oneof(
    fc.constantFrom<unknown>(
      "",
      "FLOAT",
      "Fixed",
      " float",
      "fixed ",
      "fixed\u0000",
      "floating",
      "market",
      "float,fixed",
      0,
      1,
      true,
      null,
      ["float"],
      { float: true },
    ),
    weirdString.filter((s) => s !== "float" && s !== "fixed"),
  );
  const wrongAddress = (other: string) =>
    fc.oneof(
      fc.constantFrom<unknown>(
        0,
        1,
        true,
        [],
        {},
        [other],
        "",
        "x".repeat(129),
        "nope",
        other,
        `${other}\u0000`,
        LONG,
      ),
      fc.string({ minLength: 1, maxLength: 60 }),
    );
  const wrongTag = fc.constantFrom<unknown>(
    123,
    true,
    [],
    {},
    "",
    "x".repeat(129),
    "abc",
    "-1",
    "1.5",
    "0123",
    "99999999999",
    "4294967296",
    "12345\u0000",
  );
  const wrongQuoteId = fc.oneof(
    fc.constantFrom<unknown>("", "not-a-uuid", 123, true, [], {}, "00000000-0000-0000-0000-000000000000"),
    fc.uuid(),
    weirdString,
  );
  const extraKey = fc
    .oneof(
      fc.constantFrom(
        "__proto__",
        "constructor",
        "prototype",
        "",
        " ",
        "amount",
        "coin_from ",
        "COIN_FROM",
        "amount_from\u0000",
        "id",
        "status",
        "partner_id",
        "deposit_address",
        "webhook_url",
      ),
      fc.string({ maxLength: 30 }),
    )
    .filter((k) => !ORDER_FIELDS.has(k));
  return fc.oneof(
    fc.constantFrom(...REQUIRED_ORDER_FIELDS).map((f) => m(`drop ${f}`, (e) => e.filter(([k]) => k !== f))),
    fc
      .tuple(fc.constantFrom(...TICKER_FIELDS), wrongTicker)
      .map(([f, v]) => m(`${f}=${String(v).slice(0, 30)}`, setField(f, v))),
    wrongAmount.map((v) => m(`amount_from=${String(v).slice(0, 30)}`, setField("amount_from", v))),
    ruleAmount.map((v) => m(`amount_from=${String(v).slice(0, 30)}`, setField("amount_from", v))),
    wrongAddress(tpl.wrongRecipient).map((v) => m("recipient_address", setField("recipient_address", v))),
    fc.constant(m("foreign or expired quote_id", setField("quote_id", quoteId))),
    wrongRateType.map((v) => m(`rate_type=${String(v).slice(0, 30)}`, setField("rate_type", v))),
    wrongAddress(tpl.wrongRecipient).map((v) => m("recipient_address", setField("recipient_address", v))),
    wrongAddress(tpl.wrongRefund).map((v) => m("refund_address", setField("refund_address", v))),
    fc
      .tuple(fc.constantFrom("recipient_address_tag", "refund_address_tag"), wrongTag)
      .map(([f, v]) => m(`${f}=${String(v)}`, setField(f, v))),
    // Non-memo destinations take no tag at all.
    ...(tpl.body.recipient_address_tag === undefined
      ? [
          fc
            .string({ minLength: 1, maxLength: 20 })
            .map((v) => m("tag on non-memo", setField("recipient_address_tag", v))),
        ]
      : []),
    wrongQuoteId.map((v) => m("quote_id", setField("quote_id", v))),
    fc.tuple(extraKey, weirdValue).map(([k, v]) => m(`extra ${JSON.stringify(k)}`, (e) => [...e, [k, v]])),
    // The same key twice, the invalid value last.
    fc
      .constantFrom(...REQUIRED_ORDER_FIELDS)
      .map((f) =>
        m(`duplicate ${f}`, (e) => [
          ...e,
          [f, f === "amount_from" ? -1 : f === "rate_type" ? "sometimes" : ""],
        ]),
      ),
  );
}

/** An order body: valid when `faulty` is false, invalid by construction when true. */
function orderBody(ctx: FuzzContext, faulty: boolean | "any"): fc.Arbitrary<Aspect<string | Uint8Array>> {
  const structured = (wantFault: boolean | "any") =>
    fc.constantFrom(...ORDER_TEMPLATES).chain((tpl) =>
      fc
        .tuple(
          fc.array(neutralOrderMutation(tpl), { maxLength: 3 }),
          wantFault === true
            ? pick(
                [3, fc.array(invalidOrderMutation(tpl, ctx.quoteId), { minLength: 1, maxLength: 1 })],
                [1, fc.array(invalidOrderMutation(tpl, ctx.quoteId), { minLength: 2, maxLength: 3 })],
              )
            : wantFault === false
              ? fc.constant([])
              : fc.array(invalidOrderMutation(tpl, ctx.quoteId), { maxLength: 2 }),
          fc.constantFrom("", " ", "\n  ", "\r\n"),
        )
        .map(([neutral, invalid, ws]) => {
          let entries: Entries = Object.entries(tpl.body);
          const ordered = [...neutral.filter((mu) => !mu.late), ...neutral.filter((mu) => mu.late)];
          for (const mu of [...ordered, ...invalid]) entries = mu.apply(entries);
          const faults = invalid.flatMap((mu) => (mu.fault ? [mu.fault] : []));
          return { value: `${ws}${toJsonText(new Obj(entries))}${ws}`, fault: faults.join("; ") || null };
        }),
    );
  const b = bad("body");
  const garbage = pick<Aspect<string | Uint8Array>>(
    [3, garbageBody.map((x) => b<string | Uint8Array>(x))],
    [1, oversizeBody.map((x) => bad("oversize body")<string | Uint8Array>(x))],
    [
      1,
      fc.constantFrom(...ORDER_TEMPLATES).chain((tpl) => {
        const text = JSON.stringify(tpl.body);
        return fc
          .integer({ min: 0, max: text.length - 1 })
          .map((n) => bad("truncated body")<string | Uint8Array>(text.slice(0, n)));
      }),
    ],
    [1, fc.jsonValue({ maxDepth: 3 }).map((v) => bad("random JSON")<string | Uint8Array>(JSON.stringify(v)))],
  );
  const unknown = fc
    .constantFrom(...ORDER_TEMPLATES)
    .map((tpl) => ok<string | Uint8Array>(`\ufeff${JSON.stringify(tpl.body)}`));
  if (faulty === true) return pick([4, structured(true)], [1, garbage]);
  if (faulty === false) return pick([6, structured(false)], [1, unknown]);
  return pick([4, structured("any")], [1, garbage], [1, unknown]);
}

export function orderCreate(ctx: FuzzContext, mode: Mode): fc.Arbitrary<FuzzRequest> {
  return faultyAspects(mode, [
    "body",
    "body",
    "body",
    "body",
    "body",
    "body",
    "auth",
    "auth",
    "idem",
    "sig",
    "ct",
  ]).chain((f) =>
    fc
      .record({
        body: orderBody(ctx, f.body),
        auth: partnerAuth(ctx, true, f.auth),
        idem: idempotencyKey(f.idem),
        sig: signature(ctx, f.sig),
        ct: contentType(f.ct),
        noise: noiseHeaders,
      })
      .map(({ body, auth, idem, sig, ct, noise }) => {
        const sign = Array.isArray(sig.value) ? undefined : sig.value;
        const sigHeaders = Array.isArray(sig.value) ? sig.value : [];
        return finish(
          "POST /api/v1/partner/orders",
          "POST",
          "/api/v1/partner/orders",
          [body, auth, idem, sig, ct],
          [...auth.value, ...idem.value, ...sigHeaders, ...ct.value, ...noise],
          body.value,
          sign,
        );
      }),
  );
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/partner/rates
// ---------------------------------------------------------------------------------------------

type Pairs = [string, string][];

const RATE_TEMPLATES: Pairs[] = [
  [
    ["coin_from", "BTC"],
    ["coin_to", "ETH"],
  ],
  [
    ["coin_from", "BTC"],
    ["coin_to", "USDT"],
    ["network_to", "TRX"],
    ["amount", "0.01"],
    ["rate_type", "fixed"],
  ],
  [
    ["coin_from", "ETH"],
    ["coin_to", "BTC"],
    ["amount_to", "0.01"],
  ],
  [
    ["coin_from", "XRP"],
    ["network_from", "XRP"],
    ["coin_to", "USDT"],
    ["network_to", "ETH"],
    ["rate_type", "fixed"],
    ["amount", "100"],
  ],
];

const setParam =
  (k: string, v: string) =>
  (p: Pairs): Pairs => [...p.filter(([x]) => x !== k), [k, v]];
type PairMutation = { fault: string | null; apply: (p: Pairs) => Pairs };

function ratesQuery(faulty: boolean | "any"): fc.Arbitrary<Aspect<string>> {
  const n = (apply: (p: Pairs) => Pairs): PairMutation => ({ fault: null, apply });
  const m = (fault: string, apply: (p: Pairs) => Pairs): PairMutation => ({ fault, apply });
  const neutral: fc.Arbitrary<PairMutation> = fc.oneof(
    fc.constant(
      n((p) => p.map(([k, v]) => [k, k.startsWith("coin") || k.startsWith("network") ? v.toLowerCase() : v])),
    ),
    fc.constant(n((p) => p.map(([k, v]) => [k, k.startsWith("coin") ? ` ${v} ` : v]))),
    fc.constant(n((p) => [...p].reverse())),
    fc
      .tuple(fc.constantFrom("foo", "v", "callback", "__proto__", "partner_id"), weirdString)
      .map(([k, v]) => n((p) => [...p, [k, v]])),
  );
  const wrongTickerText = fc.oneof(
    fc.constantFrom("", " ", "NOPE", "x".repeat(21), "BTC\u0000", "ＢＴＣ", "B TC", LONG),
    weirdString.filter((s) => !KNOWN_TICKERS.has(s.trim().toUpperCase())),
  );
  const wrongAmount = fc.oneof(
    fc.constantFrom(
      "",
      "0",
      "-1",
      "-0",
      "1e5",
      "0x10",
      "abc",
      "1,5",
      " 1",
      "NaN",
      "Infinity",
      "1".repeat(31),
      "0.",
      ".5",
      "+1",
      "99999999",
      "１",
      LONG,
    ),
    weirdString.filter((s) => !/^(?:0|[1-9]\d{0,29})(?:\.\d{1,30})?$/.test(s)),
  );
  const invalid: fc.Arbitrary<PairMutation> = fc.oneof(
    fc.constantFrom("coin_from", "coin_to").map((k) => m(`drop ${k}`, (p) => p.filter(([x]) => x !== k))),
    fc
      .tuple(fc.constantFrom("coin_from", "coin_to", "network_from", "network_to"), wrongTickerText)
      .map(([k, v]) => m(`${k}=${v.slice(0, 30)}`, setParam(k, v))),
    fc
      .tuple(fc.constantFrom("amount", "amount_to"), wrongAmount)
      .map(([k, v]) =>
        m(`${k}=${v.slice(0, 30)}`, (p) =>
          setParam(k, v)(p.filter(([x]) => x !== "amount" && x !== "amount_to")),
        ),
      ),
    fc.constant(m("amount and amount_to", (p) => setParam("amount_to", "1")(setParam("amount", "1")(p)))),
    fc
      .oneof(fc.constantFrom("", "FLOAT", "market", "fixed,float", "fixed ", "0"), weirdString)
      .filter((v) => v !== "float" && v !== "fixed")
      .map((v) => m(`rate_type=${v.slice(0, 30)}`, setParam("rate_type", v))),
    fc.constant(
      m("same coin both sides", (p) =>
        setParam(
          "network_to",
          "BTC",
        )(setParam("coin_to", "BTC")(setParam("network_from", "BTC")(setParam("coin_from", "BTC")(p)))),
      ),
    ),
    fc.constant(
      m("deposits disabled", (p) => setParam("network_from", "DASH")(setParam("coin_from", "DASH")(p))),
    ),
    fc.constant(
      m("ambiguous network", (p) => setParam("coin_to", "USDT")(p.filter(([x]) => x !== "network_to"))),
    ),
    fc.constant(
      m("coin not on network", (p) => setParam("network_from", "ETH")(setParam("coin_from", "BTC")(p))),
    ),
  );
  return fc.constantFrom(...RATE_TEMPLATES).chain((tpl) =>
    fc
      .tuple(
        fc.array(neutral, { maxLength: 2 }),
        faulty === true
          ? fc.array(invalid, { minLength: 1, maxLength: 2 })
          : faulty === false
            ? fc.constant([])
            : fc.array(invalid, { maxLength: 2 }),
        fc.boolean(),
      )
      .map(([ns, is, dup]) => {
        let p = tpl;
        for (const mu of [...ns, ...is]) p = mu.apply(p);
        // A repeated parameter: which copy wins is the server's business (unknown bucket).
        if (dup && faulty === "any") p = [...p, ["coin_from", "NOPE"]];
        const faults = is.flatMap((mu) => (mu.fault ? [mu.fault] : []));
        return { value: query(p), fault: faults.join("; ") || null };
      }),
  );
}

export function rates(ctx: FuzzContext, mode: Mode): fc.Arbitrary<FuzzRequest> {
  return faultyAspects(mode, ["query", "query", "query", "auth"]).chain((f) =>
    fc
      .record({ q: ratesQuery(f.query), auth: partnerAuth(ctx, false, f.auth), noise: noiseHeaders })
      .map(({ q, auth, noise }) =>
        finish(
          "GET /api/v1/partner/rates",
          "GET",
          `/api/v1/partner/rates${q.value}`,
          [q, auth],
          [...auth.value, ...noise],
        ),
      ),
  );
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/partner/orders/{id}, currencies, icons
// ---------------------------------------------------------------------------------------------

const weirdSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    ".",
    "..",
    "%2e%2e",
    "..%2f..%2fadmin%2fv1%2fpartners",
    "%2F",
    "%00",
    "%",
    "%zz",
    "%ff",
    "%c0%af",
    "?",
    "#",
    ";",
    "a;b=c",
    "x".repeat(64),
    "x".repeat(65),
    "x".repeat(10_000),
    "__proto__",
    "constructor",
  ),
  weirdString.map(enc),
);

const DOT_SEGMENTS = new Set([".", "..", "%2e", ".%2e", "%2e.", "%2e%2e"]);

/** A path segment that stays one segment: not empty, no dot segment, no `?` or `#`. */
export const opaqueSegment: fc.Arbitrary<string> = weirdSegment.filter(
  (s) => s !== "" && !DOT_SEGMENTS.has(s.toLowerCase()) && !s.startsWith("?") && !s.startsWith("#"),
);

export function orderGet(ctx: FuzzContext, mode: Mode): fc.Arbitrary<FuzzRequest> {
  const valid = fc
    .constantFrom(...ctx.orderIds)
    .chain((id) => fc.constantFrom(id, id.toLowerCase(), id.toUpperCase()).map((x) => ok(enc(x))));
  const b = bad("order id");
  const invalid = fc.oneof(
    fc.constantFrom(...ctx.foreignOrderIds).map((x) => b(enc(x))),
    fc.uuid().map((x) => b(x)),
    fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{10}$/).map((x) => b(x)),
    opaqueSegment.map((x) => b(x)),
  );
  return faultyAspects(mode, ["id", "id", "auth"]).chain((f) =>
    fc
      .record({
        id: aspect(f.id, valid, null, invalid),
        auth: partnerAuth(ctx, true, f.auth),
        noise: noiseHeaders,
      })
      .map(({ id, auth, noise }) =>
        finish(
          "GET /api/v1/partner/orders/{id}",
          "GET",
          `/api/v1/partner/orders/${id.value}`,
          [id, auth],
          [...auth.value, ...noise],
        ),
      ),
  );
}

export function publicGets(): fc.Arbitrary<FuzzRequest> {
  const icon = fc.oneof(
    fc.constantFrom("btc.svg", "eth.svg", "usdt.svg", "BTC.svg", "btc.SVG", "btc", "btc.png", "btc.svg.svg"),
    weirdSegment,
  );
  const q = fc.array(fc.tuple(fc.oneof(fc.constantFrom("v", "coin", "network"), weirdString), weirdString), {
    maxLength: 3,
  });
  return fc.oneof(
    fc
      .tuple(q, noiseHeaders)
      .map(([qs, noise]) =>
        finish("GET /api/v1/currencies", "GET", `/api/v1/currencies${query(qs)}`, [], noise),
      ),
    fc
      .tuple(icon, q, noiseHeaders)
      .map(([file, qs, noise]) =>
        finish("GET /api/v1/icons/{file}", "GET", `/api/v1/icons/${file}${query(qs)}`, [], noise),
      ),
    fc.constantFrom("/api/v1/openapi.json", "/docs").map((p) => finish(`GET ${p}`, "GET", p, [], [])),
  );
}

// ---------------------------------------------------------------------------------------------
// Admin API
// ---------------------------------------------------------------------------------------------

function adminToken(faulty: boolean | "any"): fc.Arbitrary<Aspect<HeaderList>> {
  const valid = fc.constantFrom<Aspect<HeaderList>>(
    ok([["authorization", `Bearer ${ADMIN_TOKEN}`]]),
    ok([["authorization", `bearer ${ADMIN_TOKEN}`]]),
    ok([["authorization", `Bearer  ${ADMIN_TOKEN}`]]),
  );
  const b = bad("admin token");
  const invalid = pick<Aspect<HeaderList>>(
    [
      4,
      fc.constantFrom<Aspect<HeaderList>>(
        b([]),
        b([["authorization", ""]]),
        b([["authorization", "Bearer"]]),
        b([["authorization", ADMIN_TOKEN]]),
        b([["authorization", `Basic ${btoa(`admin:${ADMIN_TOKEN}`)}`]]),
        b([["authorization", `Bearer ${ADMIN_TOKEN}x`]]),
        b([["authorization", `Bearer ${ADMIN_TOKEN.slice(0, -1)}`]]),
        b([["authorization", `Bearer ${ADMIN_TOKEN.toUpperCase()}`]]),
        b([["authorization", `Bearer ${ADMIN_TOKEN} ${ADMIN_TOKEN}`]]),
        b([["authorization", `Bearer ${ADMIN_TOKEN}\u0000`]]),
        b([["authorization", `Bearer ${LONG}`]]),
        b([["x-api-key", ADMIN_TOKEN]]),
        b([["x-admin-token", ADMIN_TOKEN]]),
        b([
          ["authorization", `Bearer ${ADMIN_TOKEN}`],
          ["authorization", `Bearer ${ADMIN_TOKEN}`],
        ]),
        b([
          ["authorization", "Bearer wrong"],
          ["authorization", `Bearer ${ADMIN_TOKEN}`],
        ]),
      ),
    ],
    [
      1,
      fc
        .string({ maxLength: 60 })
        .filter((s) => !s.includes(ADMIN_TOKEN))
        .map((s) => b<HeaderList>([["authorization", `Bearer ${s}`]])),
    ],
  );
  return aspect(faulty, valid, null, invalid);
}

interface AdminCall {
  method: string;
  path: string;
  body?: string | Uint8Array;
  fault: string | null;
}

/** Admin calls. `faulty` true: invalid params or body (must fail even with the right token). */
function adminCall(ctx: FuzzContext, faulty: boolean | "any"): fc.Arbitrary<AdminCall> {
  const j = (v: unknown) => toJsonText(v);
  const call = (method: string, path: string, fault: string | null, body?: unknown): AdminCall => ({
    method,
    path,
    fault,
    ...(body !== undefined
      ? { body: typeof body === "string" || body instanceof Uint8Array ? body : j(body) }
      : {}),
  });
  const anyBody = fc.oneof(weirdValue.map(j), garbageBody);
  const notUuid = opaqueSegment;

  // --- invalid calls (rejected whatever the token)
  const partnerName = fc.oneof(
    fc.constantFrom<unknown>("", "   ", "\t\n", "x".repeat(101), 0, true, null, [], {}, ["acme"], LONG),
    weirdNumber,
  );
  const markup = fc.oneof(
    fc.constantFrom<unknown>(
      -1,
      1001,
      1.5,
      "5",
      null,
      true,
      [],
      1e308,
      -0.5,
      new Raw("1e400"),
      new Raw("0x10"),
    ),
    fc.integer({ min: 1001 }),
    fc.integer({ max: -1 }),
  );
  const limit = fc.oneof(
    fc.constantFrom<unknown>(0, -1, 1_000_001, 1.5, "60", null, false, new Raw("-0.5"), new Raw("1e400")),
    fc.integer({ min: 1_000_001 }),
    fc.integer({ max: 0 }),
  );
  const extraKey = fc
    .oneof(
      fc.constantFrom("__proto__", "id", "created_at", "webhook_secret", ""),
      fc.string({ maxLength: 20 }),
    )
    .filter((k) => !ADMIN_FIELDS.has(k));
  const badPartnerBody = fc.oneof(
    partnerName.map((name) => ({ name })),
    markup.map((markup_bps) => ({ name: "fuzz", markup_bps })),
    limit.map((rate_limit_per_minute) => ({ name: "fuzz", rate_limit_per_minute })),
    fc.tuple(extraKey, weirdValue).map(
      ([k, v]) =>
        new Obj([
          ["name", "fuzz"],
          [k, v],
        ]),
    ),
    fc.constantFrom({}, { markup_bps: 5 }, [], null, "acme", [{ name: "acme" }]),
  );
  const badPatchBody = fc.oneof(
    fc.constant({}),
    partnerName.map((name) => ({ name })),
    markup.map((markup_bps) => ({ markup_bps })),
    limit.map((rate_limit_per_minute) => ({ rate_limit_per_minute })),
    fc.constantFrom<unknown>(0, 1, "true", "yes", null, []).map((is_active) => ({ is_active })),
    fc.tuple(extraKey, weirdValue).map(
      ([k, v]) =>
        new Obj([
          ["is_active", false],
          [k, v],
        ]),
    ),
    fc.constantFrom(null, [], "x", 1),
  );
  const badPrice = fc.oneof(
    fc.constantFrom<unknown>(
      "0",
      "-1",
      "",
      "abc",
      "NaN",
      "Infinity",
      "-0",
      "0x10",
      "1,5",
      " 1",
      "1".repeat(81),
      1,
      0,
      null,
      true,
      [],
      {},
    ),
    weirdString.filter((s) => !/^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(s)),
  );
  const badPricesBody = fc.oneof(
    badPrice.map(
      (v) =>
        new Obj([
          [
            "prices",
            new Obj([
              ["BTC", "60000"],
              ["ZZZ", v],
            ]),
          ],
        ]),
    ),
    fc
      .oneof(
        fc.constantFrom("btc", "", "B-C", "x".repeat(21), "BTC ", "ＢＴＣ"),
        weirdString.filter((s) => !/^[A-Z0-9]{1,20}$/.test(s)),
      )
      .map(
        (coin) =>
          new Obj([
            [
              "prices",
              new Obj([
                ["ETH", "3000"],
                [coin, "1"],
              ]),
            ],
          ]),
      ),
    fc.constantFrom<unknown>(
      {},
      { prices: null },
      { prices: [] },
      { prices: "BTC=1" },
      { prices: { BTC: "1" }, extra: 1 },
      null,
      [],
    ),
  );
  const badPoolBody = fc.oneof(
    fc.constantFrom<unknown>(
      {},
      { addresses: [] },
      { addresses: null },
      { addresses: "x" },
      { addresses: [1] },
      { addresses: [""] },
      null,
      [],
    ),
    fc
      .tuple(
        fc.subarray(SOL_ADDRS),
        fc.constantFrom("0OIl", "nope", BTC_ADDR, ETH_ADDR, "x".repeat(129), `${SOL_ADDRS[0]}0`),
        fc.nat(3),
      )
      .map(([good, wrong, at]) => {
        const list = [...good];
        list.splice(at % (list.length + 1), 0, wrong);
        return { addresses: list };
      }),
    fc.constant({ addresses: Array.from({ length: 1001 }, (_, i) => `addr${i}`) }),
    fc.tuple(extraKey, weirdValue).map(
      ([k, v]) =>
        new Obj([
          ["addresses", SOL_ADDRS],
          [k, v],
        ]),
    ),
  );
  const simNet = fc.constantFrom("BTC", "btc", "XRP", " eth ");
  const badNet = fc.oneof(
    fc.constantFrom("NOPE", "x".repeat(21), "BTC2", "%00", "ＢＴＣ"),
    notUuid.filter((s) => !KNOWN_TICKERS.has(decodeURIComponentSafe(s).trim().toUpperCase())),
  );
  const badTransfer = fc.oneof(
    fc
      .constantFrom<unknown>(
        0,
        "0",
        "-1",
        -1,
        "abc",
        "",
        null,
        true,
        [],
        "1e400",
        new Raw("1e400"),
        "0.0000000000000000001",
        "0x10",
      )
      .map((amount) => ({ to: BTC_ADDR, amount })),
    fc.constantFrom<unknown>("", "   ", "x".repeat(129), null, 1, []).map((to) => ({ to, amount: "0.1" })),
    fc
      .constantFrom<unknown>("NOPE", "", 1, "x".repeat(21))
      .map((coin) => ({ to: BTC_ADDR, amount: "0.1", coin })),
    fc.tuple(extraKey, weirdValue).map(
      ([k, v]) =>
        new Obj([
          ["to", BTC_ADDR],
          ["amount", "0.1"],
          [k, v],
        ]),
    ),
    fc.constantFrom<unknown>({}, null, [], "x"),
  );
  const badCount = fc.oneof(
    fc.constantFrom<unknown>(0, -1, 1001, 1.5, "1", null, true, new Raw("1e400")),
    fc.integer({ min: 1001 }),
    fc.integer({ max: 0 }),
  );
  const badDepth = fc.oneof(
    fc.constantFrom<unknown>(0, -1, 1_000_001, 1.5, "1", null, new Raw("-0")),
    fc.integer({ min: 1_000_001 }),
    fc.integer({ max: 0 }),
  );
  const badRate = fc.oneof(
    fc.constantFrom<unknown>(-0.1, 1.1, 2, "0.5", null, true, new Raw("1e400"), new Raw("NaN")),
    fc.double({ min: 1.0000001, noNaN: true }),
    fc.double({ max: -1e-9, noNaN: true }),
  );
  const badFaults = fc.oneof(
    fc
      .tuple(
        fc.constantFrom("read_fail_rate", "payout_fail_rate", "payout_timeout_rate", "exchange_fail_rate"),
        badRate,
      )
      .map(([k, v]) => new Obj([[k, v]])),
    fc.constantFrom<unknown>(1.5, "1", null, new Raw("1e400"), -0.5).map((seed) => ({ seed })),
    fc.tuple(extraKey, weirdValue).map(([k, v]) => new Obj([[k, v]])),
    fc.constantFrom<unknown>(null, [], "x"),
  );
  const uuid = fc.uuid();
  const invalid: fc.Arbitrary<AdminCall> = fc.oneof(
    badPartnerBody.map((b) => call("POST", "/admin/v1/partners", "partner body", b)),
    badPatchBody.map((b) => call("PATCH", `/admin/v1/partners/${ctx.victimId}`, "patch body", b)),
    fc.tuple(uuid, anyBody).map(([id, b]) => call("PATCH", `/admin/v1/partners/${id}`, "unknown partner", b)),
    fc.tuple(notUuid, anyBody).map(([id, b]) => call("PATCH", `/admin/v1/partners/${id}`, "partner id", b)),
    fc.oneof(uuid, notUuid).map((id) => call("POST", `/admin/v1/partners/${id}/keys`, "unknown partner")),
    fc.oneof(uuid, notUuid).map((id) => call("GET", `/admin/v1/partners/${id}`, "unknown partner")),
    fc.oneof(uuid, notUuid).map((id) => call("GET", `/admin/v1/partners/${id}/keys`, "unknown partner")),
    fc
      .tuple(
        fc.oneof(uuid, fc.constant(ctx.victimId)),
        fc.oneof(
          unknownKey.map((k) => k.split(".")[0] ?? k),
          opaqueSegment,
        ),
      )
      .map(([id, k]) => call("DELETE", `/admin/v1/partners/${id}/keys/${k}`, "unknown key")),
    uuid.map((id) =>
      call("DELETE", `/admin/v1/partners/${id}/keys/${ctx.victimKeyId}`, "key of another partner"),
    ),
    badPricesBody.map((b) => call("PUT", "/admin/v1/prices", "prices body", b)),
    badPoolBody.map((b) => call("POST", "/admin/v1/address-pool/SOL", "pool body", b)),
    fc
      .tuple(badNet, fc.constant({ addresses: SOL_ADDRS }))
      .map(([n, b]) => call("POST", `/admin/v1/address-pool/${n}`, "pool network", b)),
    fc
      .oneof(uuid, fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{10}$/), notUuid)
      .map((id) => call("GET", `/admin/v1/orders/${id}`, "unknown order")),
    fc
      .tuple(simNet, badTransfer)
      .map(([n, b]) => call("POST", `/admin/v1/sim/${enc(n)}/transfers`, "transfer body", b)),
    fc
      .tuple(simNet, badCount)
      .map(([n, count]) => call("POST", `/admin/v1/sim/${enc(n)}/blocks`, "mine count", { count })),
    fc
      .tuple(simNet, badDepth)
      .map(([n, depth]) => call("POST", `/admin/v1/sim/${enc(n)}/reorg`, "reorg depth", { depth })),
    fc
      .tuple(simNet, badFaults)
      .map(([n, b]) => call("PUT", `/admin/v1/sim/${enc(n)}/faults`, "faults body", b)),
    fc
      .tuple(simNet, fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), notUuid))
      .map(([n, t]) => call("DELETE", `/admin/v1/sim/${enc(n)}/transfers/${t}`, "unknown txid")),
    fc
      .tuple(
        badNet,
        fc.constantFrom("", "/transfers", "/blocks", "/reorg", "/outgoing", "/faults"),
        fc.constantFrom("GET", "POST", "PUT"),
      )
      .map(([n, sub, method]) =>
        call(
          method,
          `/admin/v1/sim/${n}${sub}`,
          "sim network",
          method === "GET" ? undefined : { count: 1, depth: 1 },
        ),
      ),
    fc
      .tuple(
        fc.constantFrom("PUT", "DELETE", "PATCH", "POST"),
        fc.constantFrom(
          "/admin/v1/partners",
          "/admin/v1/prices",
          "/admin/v1/address-pool",
          "/admin/v1/orders/x",
        ),
      )
      .map(([method, p]) => call(method, p, "wrong method", "{}")),
    fc
      .tuple(weirdSegment, fc.constantFrom("GET", "POST"))
      .map(([s, method]) => call(method, `/admin/v1/${s}/nope`, "unknown admin path")),
  );
  // --- valid calls (accepted with the right token)
  const valid: fc.Arbitrary<AdminCall> = fc.oneof(
    fc
      .constantFrom(
        "/admin/v1/partners",
        "/admin/v1/prices",
        "/admin/v1/address-pool",
        `/admin/v1/partners/${ctx.victimId}`,
        `/admin/v1/partners/${ctx.victimId}/keys`,
        "/admin/v1/sim/BTC",
        "/admin/v1/sim/xrp/outgoing",
      )
      .map((p) => call("GET", p, null)),
    fc.constantFrom(...ctx.orderIds).map((id) => call("GET", `/admin/v1/orders/${enc(id)}`, null)),
    fc
      .record({
        name: fc.string({ minLength: 1, maxLength: 100 }).filter((s) => s.trim().length > 0),
        markup_bps: fc.integer({ min: 0, max: 1000 }),
      })
      .map((b) => call("POST", "/admin/v1/partners", null, b)),
    fc
      .record(
        {
          markup_bps: fc.integer({ min: 0, max: 1000 }),
          rate_limit_per_minute: fc.integer({ min: 1, max: 1_000_000 }),
          is_active: fc.boolean(),
        },
        { requiredKeys: [] },
      )
      .filter((b) => Object.keys(b).length > 0)
      .map((b) => call("PATCH", `/admin/v1/partners/${ctx.victimId}`, null, b)),
    fc.constant(call("POST", `/admin/v1/partners/${ctx.victimId}/keys`, null)),
    fc.constant(call("DELETE", `/admin/v1/partners/${ctx.victimId}/keys/${ctx.victimKeyId}`, null)),
    fc
      .dictionary(
        fc.constantFrom("BTC", "ETH", "XRP", "ZZZ", "USDT"),
        fc.oneof(
          fc.constantFrom("1", "0.000001", "1000000000", "1e3", "60000", "0.5", "1e-30", "1e30"),
          fc.double({ min: 1e-30, max: 1e30, noNaN: true }).map(String),
        ),
      )
      .map((prices) => call("PUT", "/admin/v1/prices", null, { prices })),
    fc.constant(call("POST", "/admin/v1/address-pool/sol", null, { addresses: SOL_ADDRS })),
    fc
      .tuple(simNet, fc.integer({ min: 1, max: 5 }))
      .map(([n, count]) => call("POST", `/admin/v1/sim/${enc(n)}/blocks`, null, { count })),
    fc
      .tuple(fc.constantFrom("BTC", "XRP"), fc.constantFrom("0.1", "1", 0.5, "0.00000001"))
      .map(([n, amount]) =>
        call("POST", `/admin/v1/sim/${n}/transfers`, null, { to: n === "BTC" ? BTC_ADDR : XRP_ADDR, amount }),
      ),
    fc.constantFrom("BTC", "XRP").map((n) => call("PUT", `/admin/v1/sim/${n}/faults`, null, {})),
  );
  if (faulty === true) return invalid;
  if (faulty === false) return valid;
  return fc.oneof(valid, invalid);
}

/** Field names of admin bodies: an "extra" key must be none of them. */
const ADMIN_FIELDS = new Set([
  "name",
  "is_active",
  "markup_bps",
  "rate_limit_per_minute",
  "prices",
  "addresses",
  "to",
  "amount",
  "tag",
  "coin",
  "count",
  "depth",
  "read_fail_rate",
  "payout_fail_rate",
  "payout_timeout_rate",
  "exchange_fail_rate",
  "exchange_throw_rate",
  "seed",
]);

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Admin requests. `mode: "fail"` yields requests that must be rejected: a wrong or missing token
 * (any call, even a valid one), or the right token with an invalid call.
 */
export function adminRequest(ctx: FuzzContext, mode: Mode): fc.Arbitrary<FuzzRequest> {
  return faultyAspects(mode, ["token", "call"]).chain((f) =>
    fc
      .record({
        token: adminToken(f.token),
        // With a wrong token any call must fail, so the call itself may be valid.
        call: adminCall(ctx, f.token === true ? "any" : f.call),
        ct: contentType(false),
        noise: noiseHeaders,
      })
      .map(({ token, call, ct, noise }) => {
        const label = `${call.method} ${call.path.split("/").slice(0, 4).join("/")}`;
        const parts: Aspect<unknown>[] = [token, { value: null, fault: call.fault }];
        return finish(
          label,
          call.method,
          call.path,
          parts,
          [...token.value, ...(call.body !== undefined ? ct.value : []), ...noise],
          call.body,
        );
      }),
  );
}

// ---------------------------------------------------------------------------------------------
// Every documented route, unknown paths, wrong methods, raw garbage
// ---------------------------------------------------------------------------------------------

/** Any route of the OpenAPI document, with random path params, query, headers and body. */
export function documentedRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const param = fc.oneof(
    fc.constantFrom("BTC", "btc", "SOL", "XRP", ctx.victimId, ...ctx.orderIds, "btc.svg", ctx.victimKeyId),
    fc.uuid(),
    weirdSegment.filter((s) => s !== ""),
  );
  return fc
    .record({
      route: fc.constantFrom(...ctx.routes),
      params: fc.array(param, { minLength: 4, maxLength: 4 }),
      qs: fc.array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom("coin_from", "coin_to", "amount", "v", "limit", "cursor", "status"),
            weirdString,
          ),
          weirdString,
        ),
        { maxLength: 3 },
      ),
      auth: fc.oneof(adminToken("any"), partnerAuth(ctx, false, "any"), fc.constant(ok<HeaderList>([]))),
      body: fc.oneof(
        weirdValue.map((v) => toJsonText(v)),
        garbageBody,
        fc.constant(undefined),
      ),
      ct: contentType("any"),
      noise: noiseHeaders,
    })
    .map(({ route, params, qs, auth, body, ct, noise }) => {
      let i = 0;
      const path = route.path.replace(/\{[^}]+\}/g, () => params[i++ % params.length] ?? "x");
      const hasBody = body !== undefined && route.method !== "GET" && route.method !== "HEAD";
      return finish(
        `${route.method} ${route.path} (documented)`,
        route.method,
        `${path}${query(qs)}`,
        [],
        [...auth.value, ...(hasBody ? ct.value : []), ...noise],
        hasBody ? body : undefined,
      );
    });
}

/** Unknown paths, wrong methods and odd spellings of known paths. */
export function rawRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const method = fc.constantFrom(
    "GET",
    "POST",
    "PUT",
    "PATCH",
    "DELETE",
    "HEAD",
    "OPTIONS",
    "get",
    "patch",
    "FOO",
    "PROPFIND",
    "M-SEARCH",
  );
  const known = [...new Set(ctx.routes.map((r) => r.path.replace(/\{[^}]+\}/g, "x")))];
  const path = fc.oneof(
    fc.constantFrom(
      "/",
      "//",
      "/api",
      "/api/v1",
      "/api/v1/",
      "/api/v2/currencies",
      "/API/V1/CURRENCIES",
      "/api/v1/currencies/",
      "//api/v1/currencies",
      "/api/v1//currencies",
      "/api/v1/./currencies",
      "/api/v1/x/../currencies",
      "/api/v1/%63urrencies",
      "/api/v1/currencies%00",
      "/api/v1/currencies;x",
      "/api/v1/partner",
      "/api/v1/partner/orders/",
      "/api/v1/partner/orders/a/b",
      "/api/v1/icons",
      "/api/v1/icons/",
      "/admin",
      "/admin/v1",
      "/admin/v1/",
      "/admin/v2/partners",
      "/docs/",
      "/openapi.json",
      "/favicon.ico",
      "/.env",
      "/wp-login.php",
      `/${"a/".repeat(2_000)}`,
      `/${"x".repeat(8_000)}`,
    ),
    fc.constantFrom(...known),
    fc.tuple(fc.constantFrom("/api/v1/", "/admin/v1/", "/"), weirdSegment).map(([p, s]) => `${p}${s}`),
  );
  return fc
    .record({
      method,
      path,
      auth: fc.oneof(adminToken("any"), partnerAuth(ctx, false, "any")),
      body: fc.option(fc.oneof(garbageBody, oversizeBody)),
      ct: contentType("any"),
      noise: noiseHeaders,
    })
    .map(({ method, path, auth, body, ct, noise }) => {
      const upper = method.toUpperCase();
      const hasBody = body !== null && upper !== "GET" && upper !== "HEAD";
      return finish(
        `${method} (raw)`,
        method,
        path,
        [],
        [...auth.value, ...(hasBody ? ct.value : []), ...noise],
        hasBody ? body : undefined,
      );
    });
}

/** Every kind of request, valid and invalid, for the response-shape property. */
export function anyRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 5, arbitrary: orderCreate(ctx, "any") },
    { weight: 3, arbitrary: rates(ctx, "any") },
    { weight: 2, arbitrary: orderGet(ctx, "any") },
    { weight: 2, arbitrary: publicGets() },
    { weight: 4, arbitrary: adminRequest(ctx, "any") },
    { weight: 3, arbitrary: documentedRoute(ctx) },
    { weight: 2, arbitrary: rawRequest(ctx) },
  );
}
