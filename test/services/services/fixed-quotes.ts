import { env } from "cloudflare:workers";
import { base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { parseDecimal } from "../../../src/domain/money";
import { issueFixedQuote, lockFixedQuote } from "../../../src/services/fixed-quotes";
import { loadCatalog } from "../../../src/storage/catalog";

const TERMS = {
  partnerId: "3b0e6f1c-2a4d-4c55-9d7e-8f1a2b3c4d5e",
  coinFrom: "BTC",
  networkFrom: "BTC",
  coinTo: "ETH",
  networkTo: "ETH",
  amountTo: "1.9785",
  rate: "19.785",
  expiresAt: Date.now() + 60_000,
};

describe("fixed quote tokens", () => {
  // Signed text of every length modulo 3, so the base64 of the terms would end in "", "=" and "==".
  it.each(["0.1", "0.12", "0.123"])(
    "terms of amount %s: unpadded base64url throughout, and the token locks",
    async (amountFrom) => {
      const id = await issueFixedQuote(env.DB, { ...TERMS, amountFrom });
      expect(id).toMatch(/^q1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
      const [, payload = "", tag = ""] = id.split(".");
      const wire = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(payload)));
      // The canonical unpadded text of those bytes, nothing more (no "=" and no trailing bits).
      expect(base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(wire)))).toBe(payload);
      expect(wire.slice(0, 8)).toEqual([
        "3b0e6f1c-2a4d-4c55-9d7e-8f1a2b3c4d5e",
        "BTC",
        "BTC",
        "ETH",
        "ETH",
        amountFrom,
        "1.9785",
        "19.785",
      ]);
      expect(base64urlnopad.decode(wire[9])).toHaveLength(6);
      expect(base64urlnopad.decode(tag)).toHaveLength(16);

      const catalog = await loadCatalog(env.DB);
      const row = (coin: string) => catalog.find((r) => r.coin === coin && r.network === coin);
      const pair = { from: row("BTC"), to: row("ETH") };
      if (!pair.from || !pair.to) throw new Error("BTC and ETH are in the seed catalog");
      const locked = await lockFixedQuote(
        env.DB,
        id,
        {
          partnerId: TERMS.partnerId,
          pair: { from: pair.from, to: pair.to },
          amountFrom: parseDecimal(amountFrom),
        },
        Date.now(),
      );
      expect(locked).toEqual({ ...TERMS, amountFrom });
    },
  );
});
