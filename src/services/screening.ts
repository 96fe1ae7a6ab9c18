/**
 * Screening's use cases (docs/operators.md, "Screening"): the sanctions list's refresh and its age
 * alert (cron), the operator's entries (audited), and the refusal of listed order addresses.
 */

import type { FetchFn } from "../adapters/http-client";
import { downloadSanctionsFile } from "../adapters/screening/sanctions-mirror";
import type { Config } from "../config";
import { validateAddress } from "../domain/addresses";
import { sha256Hex } from "../domain/credentials";
import { DomainError } from "../domain/errors";
import {
  matchKey,
  parseSanctionsFile,
  SANCTIONS_ASSETS,
  type ScreenedField,
  type ScreeningCategory,
  screenedError,
} from "../domain/screening";
import { auditStatement } from "../storage/operator-audit";
import {
  deleteScreeningEntryStatement,
  getScreeningEntry,
  insertScreeningEntryStatement,
  invalidateScreeningEntries,
  loadSanctions,
  putSanctionsRow,
  readSanctionsRow,
  type SanctionsAsset,
  type ScreeningEntry,
  type ScreenTarget,
  screenAddresses,
} from "../storage/screening";
import type { Actor } from "./catalog-admin";
import { clearServiceAlert, raiseServiceAlert } from "./service-alerts";

/** Past this age the list no longer stands for today's SDN list: the operator is alerted. */
export const SANCTIONS_STALE_HOURS = 36;
const ALERT_SUBJECT = "screening";
const STALE_ALERT = "sanctions_list_stale";

/**
 * Downloads every asset file and keeps, per asset, the new addresses only when the file is good:
 * a failed, empty or malformed download keeps that asset's addresses from before (and its
 * fetched_at, so the list ages and alerts). The version changes only when the addresses do.
 */
export async function refreshSanctions(
  env: Env,
  config: Config,
  now: number,
  fetch?: FetchFn,
): Promise<{ version: string; errors: string[] }> {
  const before = await readSanctionsRow(env.DB);
  const at = new Date(now).toISOString();
  const assets: Record<string, SanctionsAsset> = { ...(before?.assets ?? {}) };
  const errors: string[] = [];
  await Promise.all(
    Object.keys(SANCTIONS_ASSETS).map(async (asset) => {
      let body: string;
      try {
        body = await downloadSanctionsFile(config.SANCTIONS_LIST_URL, asset, fetch);
      } catch (err) {
        errors.push(String(err instanceof Error ? err.message : err));
        return;
      }
      const parsed = parseSanctionsFile(asset, body);
      if (!parsed.ok) errors.push(`${asset}: ${parsed.reason}`);
      else assets[asset] = { fetched_at: at, keys: parsed.keys };
    }),
  );
  const held = Object.keys(assets).sort();
  const version = (
    await sha256Hex(held.map((a) => `${a}\n${assets[a]?.keys.join("\n")}`).join("\n\n"))
  ).slice(0, 16);
  errors.sort();
  await putSanctionsRow(env.DB, {
    version,
    assets,
    attempted_at: at,
    error: errors.length > 0 ? errors.join("; ") : null,
  });
  if (errors.length > 0)
    console.error(JSON.stringify({ level: "warn", msg: "sanctions list refresh kept older files", errors }));
  return { version, errors };
}

/** The list's state as GET /admin/v1/guard-rails and the service status show it. */
export interface SanctionsStatus {
  version: string | null;
  fetched_at: string | null;
  age_seconds: number | null;
  addresses: number;
  stale: boolean;
  last_attempt_at: string | null;
  last_error: string | null;
}

export async function sanctionsStatus(db: D1Database, now: number): Promise<SanctionsStatus> {
  const list = await loadSanctions(db);
  const age =
    list.fetchedAt === null ? null : Math.max(0, Math.floor((now - Date.parse(list.fetchedAt)) / 1000));
  return {
    version: list.version,
    fetched_at: list.fetchedAt,
    age_seconds: age,
    addresses: list.addresses,
    // Never loaded counts as stale once a download was tried (and failed).
    stale: age === null ? list.attemptedAt !== null : age > SANCTIONS_STALE_HOURS * 3600,
    last_attempt_at: list.attemptedAt,
    last_error: list.error,
  };
}

/**
 * The cron's step: downloads the list when the last attempt is SANCTIONS_REFRESH_HOURS old, then
 * raises the operator's alert while the list is stale and clears it once it is fresh.
 */
export async function watchSanctions(env: Env, config: Config, now: number, fetch?: FetchFn): Promise<void> {
  const row = await readSanctionsRow(env.DB);
  if (row === null || now - Date.parse(row.attempted_at) >= config.SANCTIONS_REFRESH_HOURS * 3_600_000)
    await refreshSanctions(env, config, now, fetch);
  const status = await sanctionsStatus(env.DB, now);
  if (status.stale)
    await raiseServiceAlert(
      env.DB,
      ALERT_SUBJECT,
      STALE_ALERT,
      `sanctions list older than ${SANCTIONS_STALE_HOURS} h: order addresses are screened against an old list`,
      { fetched_at: status.fetched_at, version: status.version, last_error: status.last_error },
      now,
    );
  else await clearServiceAlert(env.DB, ALERT_SUBJECT, STALE_ALERT, now);
}

/** An order's addresses to screen, by the field they came in. */
export interface OrderAddress extends ScreenTarget {
  field: ScreenedField["field"];
}

/** Refuses with 422 address_screened when any of the addresses is listed; unknown answers pass. */
export async function refuseListed(
  env: Env,
  livemode: boolean,
  addresses: readonly OrderAddress[],
  now: number,
): Promise<void> {
  const results = await screenAddresses(env, livemode ? "live" : "test", addresses, now);
  const listed = addresses.flatMap((a, i) => {
    const result = results[i];
    return result?.result === "listed" ? [{ field: a.field, result }] : [];
  });
  if (listed.length > 0) throw screenedError(listed);
}

export interface NewScreeningEntry {
  network: string;
  address: string;
  category: ScreeningCategory;
  note: string;
}

/** POST /admin/v1/screening/entries: listed from now on in both modes, audited in the same batch. */
export async function addScreeningEntry(
  env: Env,
  actor: Actor,
  input: NewScreeningEntry,
): Promise<ScreeningEntry> {
  const checked = validateAddress(input.network.toUpperCase(), input.address.trim());
  if (!checked.ok)
    throw new DomainError(
      "invalid_address",
      `address is not a valid ${input.network} address: ${checked.reason}.`,
    );
  const key = matchKey(input.network, checked.address) as string;
  const entry: ScreeningEntry = {
    id: `scr_${crypto.randomUUID().replaceAll("-", "")}`,
    network: input.network.toUpperCase(),
    address: checked.address,
    category: input.category,
    note: input.note,
    created_at: new Date().toISOString(),
    created_by: actor.operator,
  };
  await env.DB.batch([
    insertScreeningEntryStatement(env.DB, entry, key),
    auditStatement(env.DB, {
      at: entry.created_at,
      operator: actor.operator,
      action: "screening_entry.create",
      entityType: "screening_entry",
      entityId: entry.id,
      before: null,
      after: entry,
      requestId: actor.requestId,
    }),
  ]);
  invalidateScreeningEntries();
  return entry;
}

/** DELETE /admin/v1/screening/entries/{id}: false when there is no such entry. */
export async function removeScreeningEntry(env: Env, actor: Actor, id: string): Promise<boolean> {
  const before = await getScreeningEntry(env.DB, id);
  if (before === null) return false;
  await env.DB.batch([
    deleteScreeningEntryStatement(env.DB, id),
    auditStatement(env.DB, {
      at: new Date().toISOString(),
      operator: actor.operator,
      action: "screening_entry.delete",
      entityType: "screening_entry",
      entityId: id,
      before,
      after: null,
      requestId: actor.requestId,
    }),
  ]);
  invalidateScreeningEntries();
  return true;
}
