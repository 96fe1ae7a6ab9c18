import { createRoute, z } from "@hono/zod-openapi";
import { type CurrencyRow, type PublicCurrency, publicCurrencies } from "../../domain/currency";
import { ICON_HASHES } from "../../generated/icons";
import { etagOf } from "../../lib/etag";
import { loadCatalog } from "../../storage/catalog";
import { publicRateLimit } from "../middleware/auth";
import { reads } from "../middleware/d1-session";
import { createRouter } from "../router";
import { cacheable, errorResponses, okResponse, out, withCors } from "../schemas";
import { type TaggedBody, taggedJson } from "../tagged-json";

// An upper bound for clients sizing buffers; the catalog is a few dozen rows.
const MAX_CATALOG_ROWS = 1000;

export const CurrencySchema = z
  .object({
    id: out.uuid().openapi({ description: "Internal currency row id." }),
    coin: out.ticker().openapi({ example: "USDT", description: "Ticker symbol." }),
    network: out.ticker().openapi({ example: "TRX", description: "Network code (see docs/networks.md)." }),
    name: out.text(100).openapi({ example: "Tether USD (TRC-20)" }),
    is_active: z.boolean(),
    is_deposit_enabled: z.boolean().openapi({ description: "Deposits accepted (usable as coin_from)." }),
    is_withdraw_enabled: z.boolean().openapi({ description: "Withdrawals accepted (usable as coin_to)." }),
    min_amount: z.number().openapi({ description: "Minimum amount per order, in the coin's units." }),
    max_amount: z.number().openapi({ description: "Maximum amount per order, in the coin's units." }),
    min_confirmations: out.count(10_000),
    decimals: out.count(30).openapi({ description: "Decimal precision for display and rounding." }),
    is_memo: z.boolean().openapi({ description: "The network needs a memo / destination tag." }),
    explorer_tx_url: out
      .text(512)
      .nullable()
      .openapi({ example: "https://tronscan.org/#/transaction/{txid}" }),
    explorer_address_url: out
      .text(512)
      .nullable()
      .openapi({ example: "https://tronscan.org/#/address/{address}" }),
    icon_url: out.text(512).nullable().openapi({
      example: "/api/v1/icons/usdt.svg?v=3f2a9c1b0d4e",
      description: "Relative path of the icon on this API.",
    }),
    contract_address: out.address().nullable().openapi({
      example: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      description:
        "Beyond the contract: the token's contract (or mint) address on its network (EVM: EIP-55 checksum case); null for the network's native coin. Pass it as token_from / token_to to name the asset without its ticker.",
    }),
    chain_id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable().openapi({
      format: "int64",
      example: 1,
      description:
        "Beyond the contract: the EIP-155 chain id of an EVM network (1 = ETH, 56 = BSC), accepted as chain_id_from / chain_id_to in place of the network; null on other networks.",
    }),
    caip2: out.text(41).nullable().openapi({
      example: "eip155:1",
      description:
        'Beyond the contract: the network\'s CAIP-2 chain id (docs/networks.md, "Chain-agnostic ids"); null on a network without one here.',
    }),
    caip19: out.text(180).nullable().openapi({
      example: "eip155:1/erc20:0xdAC17F958D2ee523a2206206994597C13D831ec7",
      description:
        "Beyond the contract: the asset's CAIP-19 id (native coins `…/slip44:<coin type>`, tokens by contract; EVM contracts in EIP-55 case), accepted as asset_from / asset_to in place of network and token; null where caip2 is.",
    }),
  })
  .openapi("Currency");

const route = createRoute({
  method: "get",
  path: "/currencies",
  operationId: "listCurrencies",
  tags: ["Public"],
  security: [],
  middleware: publicRateLimit,
  summary: "List active currencies and their networks",
  responses: withCors({
    200: cacheable(
      okResponse(
        "limited",
        "All active currencies, in a stable order.",
        z.array(CurrencySchema).max(MAX_CATALOG_ROWS),
      ),
    ),
    304: {
      description: "Not modified: the catalog still has the `ETag` sent in `If-None-Match`. No body.",
      headers: cacheable({ headers: okResponse("limited", "", z.null()).headers }).headers,
    },
    ...errorResponses(429),
  }),
});

// The catalog changes rarely; CDNs and clients may reuse it for a minute (docs/auth-and-limits.md,
// "Caching"). Cloudflare compresses JSON for clients that accept it, hence Vary.
const CACHING = {
  "Cache-Control": "public, max-age=60, stale-while-revalidate=300",
  Vary: "Accept-Encoding",
};

/**
 * The body and its ETag, made once per catalog load: the cache hands out the same rows until they
 * are reloaded (TTL or an operator edit), so 6.8 KB of JSON is not rebuilt or rehashed on every
 * request.
 */
const bodies = new WeakMap<readonly CurrencyRow[], Promise<TaggedBody>>();

function catalogBody(rows: readonly CurrencyRow[]): Promise<TaggedBody> {
  let made = bodies.get(rows);
  if (made === undefined) {
    const body = JSON.stringify(publicCurrencies(rows, ICON_HASHES));
    made = etagOf(body).then((etag) => ({ body, etag }));
    bodies.set(rows, made);
  }
  return made;
}

export const currenciesRouter = createRouter().openapi(route, async (c) => {
  const tagged = await catalogBody(await loadCatalog(reads(c)));
  return taggedJson<PublicCurrency[]>(c, tagged, CACHING);
});
