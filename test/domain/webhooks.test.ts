import { describe, expect, it } from "vitest";
import { hmacSha256Hex } from "../../src/domain/credentials";
import { DomainError } from "../../src/domain/errors";
import { decodeCursor, encodeCursor, pageOf } from "../../src/domain/keyset-cursor";
import {
  bodyPrefix,
  pingEvent,
  recordedHeaders,
  signatureHeader,
  signingSecrets,
} from "../../src/domain/webhooks";

const T0 = Date.parse("2026-11-23T10:00:00Z");

describe("signing secrets during a rotation", () => {
  const e = {
    secret: "whsec_new",
    previous_secret: "whsec_old",
    previous_secret_until: "2026-11-23T11:00:00.000Z",
  };

  it("the previous secret signs until the overlap ends, after the current one", () => {
    expect(signingSecrets(e, T0)).toEqual(["whsec_new", "whsec_old"]);
    expect(signingSecrets(e, Date.parse(e.previous_secret_until) - 1)).toEqual(["whsec_new", "whsec_old"]);
    expect(signingSecrets(e, Date.parse(e.previous_secret_until))).toEqual(["whsec_new"]);
    expect(signingSecrets({ ...e, previous_secret_until: null }, T0)).toEqual(["whsec_new"]);
    expect(signingSecrets({ ...e, secret: null }, T0)).toEqual([]);
  });

  it("the header carries one v1 per secret, in order, each an HMAC of `<t>.<body>`", async () => {
    const body = pingEvent("evt_1", "2026-11-23T10:00:00.000Z");
    const header = await signatureHeader(["a", "b"], body, 1763892000);
    const data = new TextEncoder().encode(`1763892000.${body}`);
    expect(header).toBe(
      `t=1763892000,v1=${await hmacSha256Hex("a", data)},v1=${await hmacSha256Hex("b", data)}`,
    );
    expect(JSON.parse(body)).toEqual({
      id: "evt_1",
      type: "ping",
      created_at: "2026-11-23T10:00:00.000Z",
      data: {},
    });
  });
});

describe("keyset cursors", () => {
  const ok = (id: string) => id.startsWith("evt_");

  it("round-trip a position and page rows", () => {
    const p = { createdAt: "2026-11-23T10:00:00.000Z", id: "evt_a" };
    expect(decodeCursor(encodeCursor(p), ok)).toEqual(p);
    const rows = [1, 2, 3].map((n) => ({ createdAt: `t${n}`, id: `evt_${n}` }));
    expect(pageOf(rows, 2, (r) => r)).toEqual({
      page: rows.slice(0, 2),
      next_cursor: encodeCursor(rows[1]!),
    });
    expect(pageOf(rows, 3, (r) => r).next_cursor).toBeNull();
  });

  it("refuse anything they did not produce", () => {
    for (const bad of ["", "garbage", encodeCursor({ createdAt: "x", id: "ord_1" }), btoa("[1,2]")])
      expect(() => decodeCursor(bad, ok), bad).toThrow(DomainError);
  });
});

describe("what an attempt records", () => {
  it("the signature header is cut after its first 8 characters; the other headers are kept whole", () => {
    const sig = `t=1764150000,v1=${"a".repeat(64)}`;
    expect(
      recordedHeaders({
        "content-type": "application/json",
        "x-webhook-signature": sig,
        "x-webhook-id": "evt_1",
      }),
    ).toEqual({
      "content-type": "application/json",
      "x-webhook-signature": "t=176415…",
      "x-webhook-id": "evt_1",
    });
    expect(recordedHeaders({ "X-Webhook-Signature": sig })).toEqual({ "X-Webhook-Signature": "t=176415…" });
  });

  it("a body up to the limit is kept whole; a longer one is cut where a character starts", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(bodyPrefix(enc("ok"), 2048)).toEqual({ text: "ok", truncated: false });
    expect(bodyPrefix(enc("a".repeat(2048)), 2048)).toEqual({ text: "a".repeat(2048), truncated: false });
    expect(bodyPrefix(enc("a".repeat(2049)), 2048)).toEqual({ text: "a".repeat(2048), truncated: true });
    // "x" then two-byte "é"s: byte 2048 is the second half of an "é", which is dropped whole.
    expect(bodyPrefix(enc(`x${"é".repeat(1100)}`), 2048)).toEqual({
      text: `x${"é".repeat(1023)}`,
      truncated: true,
    });
    // A four-byte character across the cut.
    expect(bodyPrefix(enc(`${"a".repeat(2046)}😀`), 2048)).toEqual({
      text: "a".repeat(2046),
      truncated: true,
    });
  });
});
