// A partner's payout settings (docs/earnings.md, "Payout settings and the cooling period"): the
// asset, the minimum, and the address — whose change needs a step-up, is audited, and waits a
// cooling period during which any team admin can cancel it.
import type { Config } from "../config";
import { validateAddress, validateTag } from "../domain/addresses";
import { DomainError } from "../domain/errors";
import { DEFAULT_MINIMUM_USD } from "../domain/statements";
import { loadCatalog } from "../storage/catalog";
import {
  cancelAddressChange,
  getPayoutSettings,
  type PayoutSettingsRow,
  putPayoutTerms,
  requestAddressChange,
} from "../storage/statements";
import { type Actor, audit } from "./cabinet-auth";

const HOUR_MS = 3_600_000;
const MINIMUM = /^\d{1,9}(\.\d{1,2})?$/;

export interface Asset {
  coin: string;
  network: string;
  decimals: number;
  isMemo: boolean;
}

/** The assets partners may be paid in: PARTNER_PAYOUT_ASSETS that are in the catalog and active. */
export async function payoutAssets(db: D1Database, config: Config): Promise<Asset[]> {
  const catalog = await loadCatalog(db);
  return config.PARTNER_PAYOUT_ASSETS.flatMap((ref) => {
    const [coin, network] = ref.split("/");
    const c = catalog.find((x) => x.coin === coin && x.network === network && x.is_active === 1);
    return c ? [{ coin: c.coin, network: c.network, decimals: c.decimals, isMemo: c.is_memo === 1 }] : [];
  });
}

async function assetOf(db: D1Database, config: Config, ref: string): Promise<Asset> {
  const found = (await payoutAssets(db, config)).find((a) => `${a.coin}/${a.network}` === ref.toUpperCase());
  if (!found)
    throw new DomainError(
      "invalid_payout_asset",
      `${ref} is not a payout asset here; choose one of the list.`,
    );
  return found;
}

export function getSettings(db: D1Database, partnerId: string): Promise<PayoutSettingsRow | null> {
  return getPayoutSettings(db, partnerId);
}

/**
 * The minimum, and the asset when it stays on the current address's network (USDC and ETH on
 * ETH): an asset on another network needs another address, so it goes with an address change.
 */
export async function setPayoutTerms(
  db: D1Database,
  config: Config,
  actor: Actor,
  change: { asset: string; minimumUsd: string },
): Promise<PayoutSettingsRow | null> {
  if (!MINIMUM.test(change.minimumUsd))
    throw new DomainError("invalid_amount", "The minimum must be a USD amount with at most 2 decimals.");
  const asset = await assetOf(db, config, change.asset);
  const before = await getPayoutSettings(db, actor.partnerId);
  if (before?.address && before.network !== asset.network)
    throw new DomainError(
      "invalid_payout_asset",
      `${asset.coin} on ${asset.network} needs a ${asset.network} address: change the address with it.`,
    );
  const at = new Date().toISOString();
  await putPayoutTerms(
    db,
    actor.partnerId,
    { coin: asset.coin, network: asset.network, minimum_usd: change.minimumUsd },
    at,
  );
  await audit(db, actor, "payout.terms_changed", null, {
    from: before ? { asset: `${before.coin}/${before.network}`, minimum_usd: before.minimum_usd } : null,
    to: { asset: `${asset.coin}/${asset.network}`, minimum_usd: change.minimumUsd },
  });
  return getPayoutSettings(db, actor.partnerId);
}

/**
 * Starts an address change (with its asset): checked with the network's rules, audited, and in
 * effect only after PAYOUT_COOLING_HOURS. The caller has verified a fresh step-up assertion.
 */
export async function requestPayoutAddress(
  db: D1Database,
  config: Config,
  actor: Actor,
  change: { asset: string; address: string; tag: string | null },
  now: number,
): Promise<PayoutSettingsRow | null> {
  const asset = await assetOf(db, config, change.asset);
  const checked = validateAddress(asset.network, change.address.trim());
  if (!checked.ok)
    throw new DomainError("invalid_address", `Not a valid ${asset.network} address: ${checked.reason}.`);
  let tag = checked.tag;
  if (change.tag !== null && change.tag !== "") {
    const t = asset.isMemo ? validateTag(asset.network, change.tag) : null;
    if (!t?.ok) throw new DomainError("invalid_tag", `Not a valid ${asset.network} tag.`);
    tag = t.tag;
  }
  const at = new Date(now).toISOString();
  const effectiveAt = new Date(now + config.PAYOUT_COOLING_HOURS * HOUR_MS).toISOString();
  const before = await getPayoutSettings(db, actor.partnerId);
  if (!before)
    await putPayoutTerms(
      db,
      actor.partnerId,
      { coin: asset.coin, network: asset.network, minimum_usd: DEFAULT_MINIMUM_USD },
      at,
    );
  await requestAddressChange(
    db,
    actor.partnerId,
    {
      coin: asset.coin,
      network: asset.network,
      address: checked.address,
      tag,
      effectiveAt,
      requestedBy: actor.label,
    },
    at,
  );
  await audit(db, actor, "payout.address_change_requested", checked.address, {
    asset: `${asset.coin}/${asset.network}`,
    tag,
    from: before?.address ?? null,
    effective_at: effectiveAt,
    step_up: true,
  });
  return getPayoutSettings(db, actor.partnerId);
}

/** Cancels the change still cooling (any team admin may). */
export async function cancelPayoutAddress(db: D1Database, actor: Actor, now: number): Promise<void> {
  const before = await getPayoutSettings(db, actor.partnerId);
  if (!(await cancelAddressChange(db, actor.partnerId, new Date(now).toISOString())))
    throw new DomainError("action_not_available", "There is no address change waiting to take effect.");
  await audit(db, actor, "payout.address_change_cancelled", before?.pending_address ?? null, {
    requested_by: before?.pending_requested_by ?? null,
  });
}
