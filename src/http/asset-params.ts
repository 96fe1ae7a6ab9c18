import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { COUNTRY_RE } from "../domain/region-restrictions";
import type { AppEnv } from "./app-env";

/**
 * The parameters that name an asset by chain and contract (docs/integrate.md, "For wallet teams"),
 * shared by GET /partner/rates and POST /partner/orders.
 */
export const tokenParam = (side: "from" | "to") =>
  z
    .string()
    .trim()
    .min(1)
    .max(128)
    .openapi({
      example: side === "from" ? "0x55d398326f99059fF775485246999027B3197955" : undefined,
      description: `Beyond the contract: the ${side === "from" ? "source" : "destination"} token's contract address on network_${side} (EVM: any letter case); omitted or null = the network's native coin when coin_${side} is not given. With coin_${side} too, both must name the same asset (else 422 \`asset_mismatch\`).`,
    });

export const chainIdParam = (side: "from" | "to") =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 53 - 1)
    .openapi({
      format: "int64",
      example: side === "from" ? 56 : undefined,
      description: `Beyond the contract: the EIP-155 chain id of an EVM network, in place of network_${side} (1 = ETH, 56 = BSC). Unknown → 422 \`unsupported_asset\`.`,
    });

export const assetParam = (side: "from" | "to") =>
  z
    .string()
    .trim()
    .min(1)
    .max(200)
    .openapi({
      example: side === "from" ? "eip155:56/erc20:0x55d398326f99059fF775485246999027B3197955" : undefined,
      description: `Beyond the contract: the ${side === "from" ? "source" : "destination"} asset's CAIP-19 id (a currency's \`caip19\`), in place of network_${side} and token_${side}. Anything else given for this side must name the same asset (else 422 \`asset_mismatch\`); an id naming no offered asset → 422 \`unsupported_asset\`.`,
    });

export const EndUserCountryHeader = {
  "x-end-user-country": z
    .string()
    .max(2)
    .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 country code")
    .optional()
    .openapi({
      example: "DE",
      description:
        "Beyond the contract: your end user's country (ISO 3166-1 alpha-2), when you call from your server with a secret key. It wins over the country of the calling address for region restrictions (451 `region_restricted`); from an app key or without a key it counts only where the calling address has no known country.",
    }),
};

/**
 * The end user's country: the partner's `X-End-User-Country`, else where Cloudflare saw the request
 * from. Only a secret key's caller (the partner's server) speaks for its end user: an app key lives
 * in the user's app and a keyless call comes from anyone, so there the header cannot move a caller
 * out of the country Cloudflare saw (it counts only where Cloudflare saw none).
 */
export function endUserCountry(c: Pick<Context<AppEnv>, "req" | "get">): string | null {
  const given = c.req.header("x-end-user-country")?.toUpperCase();
  const told = given !== undefined && COUNTRY_RE.test(given) ? given : null;
  const fromServer = c.get("partner") !== undefined && c.get("keyKind") !== "app";
  return (fromServer ? told : null) ?? cfCountry(c) ?? told;
}

/** Where Cloudflare saw the request from (a browser's own request: no header of the page counts). */
export function cfCountry(c: Pick<Context, "req">): string | null {
  const seen = c.req.raw.cf?.country;
  return typeof seen === "string" && COUNTRY_RE.test(seen) ? seen : null;
}

interface NamedSides {
  asset_from?: string | undefined;
  asset_to?: string | undefined;
  coin_from?: string | undefined;
  network_from?: string | undefined;
  chain_id_from?: number | undefined;
  token_from?: string | null | undefined;
  coin_to?: string | undefined;
  network_to?: string | undefined;
  chain_id_to?: number | undefined;
  token_to?: string | null | undefined;
}

/**
 * Each side must be named: by its ticker, or by a token contract (null: the native coin) on its
 * network, or by an EVM chain id (no token: the native coin), or by a CAIP-19 id. An order also
 * names the network (or chain id, or CAIP-19 id), as it always had to. What was a schema error before these parameters still is, on
 * the field that was required.
 */
export const requireNamedSides =
  (target: "quote" | "order") =>
  (v: NamedSides, ctx: z.RefinementCtx): void => {
    for (const side of ["from", "to"] as const) {
      if (v[`asset_${side}`] !== undefined) continue;
      const chain = v[`chain_id_${side}`] !== undefined;
      if (target === "order" && !chain && v[`network_${side}`] === undefined)
        ctx.addIssue({
          code: "custom",
          path: [`network_${side}`],
          message: `required (or chain_id_${side} on EVM networks, or asset_${side})`,
        });
      else if (!chain && v[`coin_${side}`] === undefined && v[`token_${side}`] === undefined)
        ctx.addIssue({
          code: "custom",
          path: [`coin_${side}`],
          message: `required (or token_${side}, or chain_id_${side} on EVM networks, or asset_${side})`,
        });
    }
  };
