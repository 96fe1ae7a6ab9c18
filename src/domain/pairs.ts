import { chainIdOf, networkOfChainId, parseAssetId, sameContract } from "./asset-identity";
import type { CurrencyRow } from "./currency";
import { type Refusal, refused } from "./errors";

export interface PairRequest {
  coinFrom: string;
  networkFrom?: string | undefined;
  coinTo: string;
  networkTo?: string | undefined;
}

/**
 * One side of a request as a wallet may name it: a ticker (and network when the coin is on several),
 * or a network (or EVM chain id) plus a token contract, where no contract (or null) is the network's
 * native coin. A ticker given with a contract must name the same row.
 */
export interface AssetRef {
  coin?: string | undefined;
  network?: string | undefined;
  chainId?: number | undefined;
  /** The token contract; null names the native coin explicitly, undefined means "not given". */
  token?: string | null | undefined;
  /** A CAIP-19 asset id, in place of network and token (docs/networks.md, "Chain-agnostic ids"). */
  asset?: string | undefined;
}

export interface ResolvedPair {
  from: CurrencyRow;
  to: CurrencyRow;
}

export type Side = "from" | "to";

const unavailableDetail = (reason: string) => `Pair unavailable: ${reason}.`;

/** A ticker that names nothing quotable: an unsupported asset, reported as pair_unavailable as it always was. */
const unknownTicker = (side: Side, reason: string): Refusal => ({
  code: "unsupported_asset",
  side,
  detail: unavailableDetail(reason),
  top: "pair_unavailable",
});

const unknownAsset = (side: Side, detail: string): Refusal => ({ code: "unsupported_asset", side, detail });

/** One side by ticker: the catalog row for a coin on a network (the network may be implied). */
function sideByTicker(
  catalog: readonly CurrencyRow[],
  coin: string,
  network: string | undefined,
  side: Side,
  purpose: PairPurpose,
): CurrencyRow | Refusal {
  const rows = catalog.filter((r) => r.coin === coin);
  if (rows.length === 0) return unknownTicker(side, `unknown coin ${coin}`);
  const active = rows.filter((r) => r.is_active === 1);
  if (network !== undefined) {
    const row = rows.find((r) => r.network === network);
    if (!row) {
      const on = active.map((r) => r.network).join(", ");
      return unknownTicker(
        side,
        `${coin} is not available on network ${network}${on ? `; it is on ${on}` : ""}`,
      );
    }
    if (row.is_active !== 1 && !(purpose === "existing_order" && side === "from"))
      return unknownTicker(side, `${coin} on ${network} is not active`);
    return row;
  }
  if (active.length === 0) return unknownTicker(side, `${coin} is not active`);
  // A gas coin that other networks also use (ETH on its L2s) is, unnamed, the one on its own
  // network, as it was before those networks were listed (docs/networks.md, "Coins on several networks").
  const home = active.find((r) => r.network === coin && r.contract_address === null);
  if (home) return home;
  if (active.length > 1) {
    const networks = active.map((r) => r.network).join(", ");
    return {
      code: "network_required",
      side,
      detail: `${coin} is available on several networks (${networks}); pass network_${side} to choose one.`,
    };
  }
  return active[0] as CurrencyRow;
}

/** One side by network (or chain id) and contract, checked against a ticker if one was given too. */
function sideByContract(
  catalog: readonly CurrencyRow[],
  ref: AssetRef,
  network: string | undefined,
  side: Side,
): CurrencyRow | Refusal {
  if (network === undefined)
    return {
      code: "network_required",
      side,
      detail: `Name the ${side} asset: coin_${side}, or network_${side} (or chain_id_${side}) with token_${side}.`,
    };
  const token = ref.token ?? null;
  const row = catalog.find(
    (r) =>
      r.network === network &&
      r.is_active === 1 &&
      (token === null
        ? r.contract_address === null
        : r.contract_address !== null && sameContract(network, token, r.contract_address)),
  );
  if (!row)
    return unknownAsset(
      side,
      token === null
        ? `No native coin of network ${network} is offered.`
        : `No asset with contract ${token} is offered on network ${network}.`,
    );
  const coin = ref.coin?.toUpperCase();
  if (coin !== undefined && coin !== row.coin)
    return {
      code: "asset_mismatch",
      side,
      detail: `coin_${side} ${coin} contradicts the asset named by its network and contract, which is ${row.coin} on ${row.network}.`,
    };
  return row;
}

/** The network a side names, by code or by EVM chain id (which must agree when both are given). */
function networkOf(
  catalog: readonly CurrencyRow[],
  ref: AssetRef,
  side: Side,
): { network: string | undefined } | Refusal {
  const named = ref.network?.toUpperCase();
  if (ref.chainId === undefined) return { network: named };
  const byChain = networkOfChainId(ref.chainId);
  if (byChain === undefined || !catalog.some((r) => r.network === byChain && r.is_active === 1))
    return unknownAsset(side, `No network with EVM chain id ${ref.chainId} is offered.`);
  if (named !== undefined && named !== byChain)
    return {
      code: "asset_mismatch",
      side,
      detail: `network_${side} ${named} contradicts chain_id_${side} ${ref.chainId} (${byChain}, chain id ${chainIdOf(byChain)}).`,
    };
  return { network: byChain };
}

/**
 * A side named by CAIP-19 as the network and token it names; whatever else the side names (network,
 * chain id, token) must agree with it, as a ticker must agree with a contract.
 */
function byAssetId(ref: AssetRef & { asset: string }, side: Side): AssetRef | Refusal {
  const parsed = parseAssetId(ref.asset);
  if ("problem" in parsed) return unknownAsset(side, parsed.problem);
  const mismatch = (what: string): Refusal => ({
    code: "asset_mismatch",
    side,
    detail: `${what} contradicts asset_${side} ${ref.asset} (network ${parsed.network}).`,
  });
  const named = ref.network?.toUpperCase();
  if (named !== undefined && named !== parsed.network) return mismatch(`network_${side} ${named}`);
  if (ref.chainId !== undefined && networkOfChainId(ref.chainId) !== parsed.network)
    return mismatch(`chain_id_${side} ${ref.chainId}`);
  if (
    ref.token !== undefined &&
    (ref.token === null || parsed.token === null
      ? ref.token !== parsed.token
      : !sameContract(parsed.network, ref.token, parsed.token))
  )
    return mismatch(`token_${side} ${ref.token}`);
  return { coin: ref.coin, network: parsed.network, token: parsed.token };
}

function resolveSide(
  catalog: readonly CurrencyRow[],
  given: AssetRef,
  side: Side,
  purpose: PairPurpose,
): CurrencyRow | Refusal {
  const ref = given.asset === undefined ? given : byAssetId({ ...given, asset: given.asset }, side);
  if ("code" in ref) return ref;
  const net = networkOf(catalog, ref, side);
  if ("code" in net) return net;
  if (ref.coin !== undefined && ref.token === undefined)
    return sideByTicker(catalog, ref.coin.toUpperCase(), net.network, side, purpose);
  return sideByContract(catalog, ref, net.network, side);
}

/**
 * What a pair is resolved for. The operator's switches on the SOURCE coin (active, deposits) stop
 * new orders only: an order already made goes on being priced and exchanged after they are turned
 * off, so a deposit the service invited is never stranded. Switches on the destination (active,
 * withdrawals) still apply to it: a coin the service cannot pay out fails the exchange and the
 * order is refunded (docs/operators.md, "Catalog").
 */
export type PairPurpose = "new_order" | "existing_order";

export type PairAssessment = { ok: true; pair: ResolvedPair } | { ok: false; reasons: Refusal[] };

/**
 * The pair a request names, checked against the catalog, with every reason it cannot be served
 * rather than the first: known assets, networks when a coin is on several, two sides, an active
 * destination with withdrawals enabled; for a new order also an active source with deposits
 * enabled. Tickers and network codes are matched case-insensitively.
 */
export function assessPair(
  catalog: readonly CurrencyRow[],
  from: AssetRef,
  to: AssetRef,
  purpose: PairPurpose = "new_order",
): PairAssessment {
  const a = resolveSide(catalog, from, "from", purpose);
  const b = resolveSide(catalog, to, "to", purpose);
  const reasons: Refusal[] = [];
  if ("code" in a) reasons.push(a);
  if ("code" in b) reasons.push(b);
  if (!("code" in a) && !("code" in b) && a.coin === b.coin && a.network === b.network)
    reasons.push({
      code: "pair_unavailable",
      detail: unavailableDetail(`${a.coin} on ${a.network} on both sides`),
    });
  if (!("code" in a) && a.is_deposit_enabled !== 1 && purpose === "new_order")
    reasons.push({
      code: "deposit_disabled",
      side: "from",
      detail: unavailableDetail(`deposits of ${a.coin} on ${a.network} are disabled`),
    });
  if (!("code" in b) && b.is_withdraw_enabled !== 1)
    reasons.push({
      code: "withdraw_disabled",
      side: "to",
      detail: unavailableDetail(`withdrawals of ${b.coin} on ${b.network} are disabled`),
    });
  if (reasons.length > 0 || "code" in a || "code" in b) return { ok: false, reasons };
  return { ok: true, pair: { from: a, to: b } };
}

/** assessPair by tickers, for callers that need the pair or one error (an existing order, the venue). */
export function resolvePair(
  catalog: readonly CurrencyRow[],
  req: PairRequest,
  purpose: PairPurpose = "new_order",
): ResolvedPair {
  const assessed = assessPair(
    catalog,
    { coin: req.coinFrom, network: req.networkFrom },
    { coin: req.coinTo, network: req.networkTo },
    purpose,
  );
  if (!assessed.ok) throw refused(assessed.reasons);
  return assessed.pair;
}
