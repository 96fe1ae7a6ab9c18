import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { simChain } from "../../../adapters/chain/simulated";
import { chainModeFor } from "../../../domain/chain-mode";
import { toDecimalString, tryParseDecimal } from "../../../domain/money";
import { MAX_MINE_COUNT } from "../../../objects/sim-chain";
import { type CurrencyRow, loadCatalog } from "../../../storage/catalog";
import type { AppEnv } from "../../app-env";
import { ApiError, badRequest } from "../../errors";
import { createRouter } from "../../router";
import { errorResponses } from "../../schemas";

const security = [{ AdminBearer: [] }];
const tags = ["Admin: SimChain"];
const json = <T extends z.ZodType>(schema: T, required = true) => ({
  content: { "application/json": { schema } },
  required,
});
const ok = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { "application/json": { schema } },
});

const networkParam = z.object({
  network: z
    .string()
    .min(1)
    .max(20)
    .openapi({
      param: { name: "network", in: "path" },
      example: "BTC",
      description: "Network code, any case.",
    }),
});
const txidParam = networkParam.extend({
  txid: z
    .string()
    .max(64)
    .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters")
    .openapi({ param: { name: "txid", in: "path" } }),
});

const positiveAmount = z
  .union([z.string().max(1024), z.number()])
  .refine(
    (v) => {
      const x = tryParseDecimal(v);
      return x !== undefined && !x.isZero();
    },
    { message: 'must be a positive decimal (a string like "0.5" or a number)' },
  )
  .openapi({ example: "0.5", description: "Amount in coin units; a decimal string is exact." });

const rate = z.number().min(0).max(1).default(0);
const FaultsSchema = z
  .strictObject({
    read_fail_rate: rate,
    payout_fail_rate: rate,
    payout_timeout_rate: rate,
    exchange_fail_rate: rate,
    exchange_throw_rate: rate,
    listing_window_blocks: z.int32().min(0).max(1_000_000).default(0).openapi({
      description:
        "Listings leave out transfers mined more than this many blocks below the tip, like a provider's scan window (the EVM reader's native scan). 0 lists everything.",
    }),
    seed: z.int32().default(1),
  })
  .openapi("SimFaults");

const SendBody = z.strictObject({
  to: z.string().trim().min(1).max(128).openapi({ description: "Receiving address." }),
  amount: positiveAmount,
  tag: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .nullable()
    .optional()
    .openapi({ description: "Memo / destination tag (memo networks)." }),
  coin: z
    .string()
    .trim()
    .min(1)
    .max(20)
    .optional()
    .openapi({ description: "Coin on this network; default: the network's native coin." }),
});
const MineBody = z.strictObject({
  count: z.int32().min(1).max(MAX_MINE_COUNT).optional().openapi({ description: "Default 1." }),
});
const ReorgBody = z.strictObject({
  depth: z.int32().min(1).max(1_000_000).openapi({ description: "Blocks to remove from the tip." }),
});

const SentSchema = z
  .object({
    txid: z.string().max(128),
    network: z.string().max(20),
    coin: z.string().max(20),
    contract: z.string().max(1024).nullable(),
    to: z.string().max(1024),
    tag: z.string().max(1024).nullable(),
    amount: z.string().max(64),
  })
  .openapi("SimTransfer");
const HeightSchema = z.object({ height: z.int32() });
const StatusSchema = z
  .object({
    network: z.string().max(20),
    height: z.int32(),
    mempool: z.int32(),
    reads: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({
      format: "int64",
      description:
        "Chain reads served so far (tips, listings, best-chain checks): what a provider would count.",
    }),
  })
  .openapi("SimChainStatus");
const OutgoingSchema = z
  .object({
    txid: z.string().max(128),
    order_id: z.string().max(128).nullable(),
    kind: z.enum(["payout", "refund"]).nullable(),
    to: z.string().max(1024),
    tag: z.string().max(1024).nullable(),
    amount: z.string().max(64),
    coin: z.string().max(20),
    contract: z.string().max(1024).nullable(),
    created_at: z.string().max(40),
    block_height: z.int32().nullable().openapi({ description: "Null while in the mempool." }),
  })
  .openapi("SimOutgoingTransfer");

export interface SimNetwork {
  network: string;
  /** The network's catalog rows (one per coin on it). */
  coins: CurrencyRow[];
}

/**
 * The network a SimChain route may drive: known to the catalog and in `simulated` chain mode.
 * Anything else is 404, so a production deployment on real chains exposes no simulator at all.
 */
export function resolveSimNetwork(chainMode: string, catalog: CurrencyRow[], raw: string): SimNetwork {
  const network = raw.trim().toUpperCase();
  const coins = catalog.filter((r) => r.network === network);
  if (coins.length === 0) throw new ApiError(404, "not_found", `Unknown network ${network}.`);
  const mode = chainModeFor(chainMode, network);
  if (mode !== "simulated") {
    throw new ApiError(
      404,
      "not_found",
      `Network ${network} is not simulated (chain mode ${mode ?? "invalid"}); SimChain routes only exist for simulated networks.`,
    );
  }
  return { network, coins };
}

/** The simulated network a request names (404 unless it exists and is in simulated chain mode). */
async function simNetworkOf(c: Context<AppEnv>, network: string): Promise<SimNetwork> {
  return resolveSimNetwork(c.get("config").CHAIN_MODE, await loadCatalog(c.env.DB), network);
}

/** The catalog row a transfer is of: the given coin, else the native one (no contract). */
function coinRow({ network, coins }: SimNetwork, coin: string | undefined): CurrencyRow {
  const listed = coins.map((r) => r.coin).join(", ");
  if (coin !== undefined) {
    const row = coins.find((r) => r.coin === coin.toUpperCase());
    if (!row) {
      throw badRequest(`Coin ${coin.toUpperCase()} is not on network ${network} (coins there: ${listed}).`, [
        { field: "coin", message: `not on network ${network}` },
      ]);
    }
    return row;
  }
  const native = coins.find((r) => r.contract_address === null);
  if (!native) {
    throw badRequest(`Network ${network} has no native coin in the catalog; give coin (one of ${listed}).`, [
      { field: "coin", message: "required on this network" },
    ]);
  }
  return native;
}

/** SimChain rejects impossible operations (reorg deeper than the chain) with RangeError. */
async function asBadRequest<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof RangeError) throw badRequest(`${e.message}.`);
    throw e;
  }
}

export const adminSimRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/sim/{network}",
      operationId: "adminSimGetChain",
      tags,
      security,
      summary: "A simulated network's height and mempool size",
      request: { params: networkParam },
      responses: {
        200: ok("The chain's state.", StatusSchema),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const sim = await simNetworkOf(c, c.req.valid("param").network);
      const status = await simChain(c.env, sim.network).status();
      return c.json(
        { network: sim.network, height: status.height, mempool: status.mempool, reads: status.reads },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/sim/{network}/transfers",
      operationId: "adminSimSendTransfer",
      tags,
      security,
      summary: "Broadcast a simulated transfer to an address (lands in the mempool)",
      description:
        "The transfer is unconfirmed until a block is mined. Orders watching the address see it as a deposit.",
      request: { params: networkParam, body: json(SendBody) },
      responses: {
        201: ok("Broadcast; unconfirmed.", SentSchema),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const sim = await simNetworkOf(c, c.req.valid("param").network);
      const body = c.req.valid("json");
      const row = coinRow(sim, body.coin);
      // The refine above guarantees a positive decimal; normalise so the chain stores exact text.
      const parsed = tryParseDecimal(body.amount)!;
      // A real chain cannot move less than one base unit (a satoshi, a wei), so neither can this one.
      if (parsed.decimalPlaces() > row.decimals) {
        throw badRequest(`${row.coin} on ${sim.network} has ${row.decimals} decimals; the amount has more.`, [
          { field: "amount", message: `at most ${row.decimals} decimal places` },
        ]);
      }
      const amount = toDecimalString(parsed);
      const tag = body.tag ?? null;
      const { txid } = await asBadRequest(() =>
        simChain(c.env, sim.network).send({
          to: body.to,
          amount,
          tag,
          coin: row.coin,
          contract: row.contract_address,
        }),
      );
      return c.json(
        {
          txid,
          network: sim.network,
          coin: row.coin,
          contract: row.contract_address,
          to: body.to,
          tag,
          amount,
        },
        201,
      );
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/sim/{network}/transfers/{txid}",
      operationId: "adminSimDropTransfer",
      tags,
      security,
      summary: "Drop an unconfirmed transfer from the mempool (as if evicted or replaced)",
      request: { params: txidParam },
      responses: {
        204: { description: "Dropped." },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { network, txid } = c.req.valid("param");
      const sim = resolveSimNetwork(c.get("config").CHAIN_MODE, await loadCatalog(c.env.DB), network);
      if (!(await simChain(c.env, sim.network).drop(txid.toLowerCase()))) {
        throw new ApiError(
          404,
          "not_found",
          `No unconfirmed incoming transfer ${txid.toLowerCase()} in the ${sim.network} mempool (confirmed ones leave with a reorg).`,
        );
      }
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/sim/{network}/blocks",
      operationId: "adminSimMineBlocks",
      tags,
      security,
      summary: "Mine blocks; the first one includes the whole mempool",
      request: { params: networkParam, body: json(MineBody, false) },
      responses: {
        200: ok("The new tip height.", HeightSchema),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const sim = await simNetworkOf(c, c.req.valid("param").network);
      const count = c.req.valid("json").count ?? 1;
      const { height } = await asBadRequest(() => simChain(c.env, sim.network).mine(count));
      return c.json({ height }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/sim/{network}/reorg",
      operationId: "adminSimReorg",
      tags,
      security,
      summary: "Remove the last blocks and their incoming transfers",
      description:
        "Deposits in the removed blocks disappear. Payouts in them return to the mempool: a payout is recorded once per order, whatever happens to its block.",
      request: { params: networkParam, body: json(ReorgBody) },
      responses: {
        200: ok("The new tip height.", HeightSchema),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const sim = await simNetworkOf(c, c.req.valid("param").network);
      const { depth } = c.req.valid("json");
      const { height } = await asBadRequest(() => simChain(c.env, sim.network).reorg(depth));
      return c.json({ height }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/sim/{network}/outgoing",
      operationId: "adminSimListOutgoing",
      tags,
      security,
      summary: "Payouts and refunds sent on a simulated network, with their order ids",
      request: { params: networkParam },
      responses: {
        200: ok("Outgoing transfers, oldest first.", z.object({ data: z.array(OutgoingSchema).max(1000) })),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const sim = await simNetworkOf(c, c.req.valid("param").network);
      return c.json({ data: await simChain(c.env, sim.network).outgoing() }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/sim/{network}/faults",
      operationId: "adminSimSetFaults",
      tags,
      security,
      summary: "Inject faults (chaos) into a simulated network",
      description:
        "Probabilities in [0, 1] drawn from a PRNG seeded by `seed`: chain reads fail, payouts are refused, payouts are recorded but the call times out (unknown outcome), the simulated venue fails; and a listing window in blocks. All zero turns chaos off.",
      request: { params: networkParam, body: json(FaultsSchema) },
      responses: { 200: ok("The faults now in force.", FaultsSchema), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const sim = await simNetworkOf(c, c.req.valid("param").network);
      const b = c.req.valid("json");
      const faults = await asBadRequest(() =>
        simChain(c.env, sim.network).setFaults({
          readFailRate: b.read_fail_rate,
          payoutFailRate: b.payout_fail_rate,
          payoutTimeoutRate: b.payout_timeout_rate,
          exchangeFailRate: b.exchange_fail_rate,
          exchangeThrowRate: b.exchange_throw_rate,
          listingWindowBlocks: b.listing_window_blocks,
          seed: b.seed,
        }),
      );
      return c.json(
        {
          read_fail_rate: faults.readFailRate,
          payout_fail_rate: faults.payoutFailRate,
          payout_timeout_rate: faults.payoutTimeoutRate,
          exchange_fail_rate: faults.exchangeFailRate,
          exchange_throw_rate: faults.exchangeThrowRate,
          listing_window_blocks: faults.listingWindowBlocks,
          seed: faults.seed,
        },
        200,
      );
    },
  );
