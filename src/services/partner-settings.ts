// What a partner's cabinet admin may change about the account itself: the markup (within the cap
// the operator sets) and the contact e-mail. Every change is audited.
import { DomainError } from "../domain/errors";
import { getPartner, type PartnerRow, updatePartner } from "../storage/partners";
import { type Actor, audit } from "./cabinet-auth";
import type { StepUpGate } from "./step-up";

export interface SettingsChange {
  markupBps?: number;
  /** Lower-cased; null clears it. */
  contactEmail?: string | null;
}

/**
 * Applies the changes that differ from the stored ones. A new markup reaches quotes within the key
 * cache bound (KEY_CACHE_TTL_MS, 30 s; at once in the isolate that served the change). A new
 * contact e-mail needs the member's step-up: a failed order's tracking page tells its user to
 * write there about their money.
 */
export async function updateSettings(
  db: D1Database,
  actor: Actor,
  change: SettingsChange,
  stepUp: StepUpGate,
): Promise<PartnerRow> {
  const partner = await getPartner(db, actor.partnerId);
  if (!partner) throw new DomainError("partner_not_found", "Partner not found.");
  const markup = change.markupBps;
  if (markup !== undefined && (!Number.isInteger(markup) || markup < 0 || markup > partner.max_markup_bps))
    throw new DomainError(
      "markup_above_cap",
      `The markup must be a whole number of basis points from 0 to ${partner.max_markup_bps} (the cap your account manager set).`,
    );
  const email =
    change.contactEmail === undefined ? undefined : (change.contactEmail?.trim().toLowerCase() ?? null);
  const changes = {
    ...(markup !== undefined && markup !== partner.markup_bps ? { markup_bps: markup } : {}),
    ...(email !== undefined && email !== partner.contact_email ? { contact_email: email } : {}),
  };
  if (Object.keys(changes).length === 0) return partner;
  if (changes.contact_email !== undefined)
    await stepUp({ action: "settings.contact_email", target: changes.contact_email });
  const updated = await updatePartner(db, partner.id, changes, new Date().toISOString());
  if (!updated) throw new DomainError("partner_not_found", "Partner not found.");
  await auditSettings(db, actor, partner, updated);
  return updated;
}

const AUDITED: [keyof PartnerRow, string][] = [
  ["markup_bps", "settings.markup_changed"],
  ["max_markup_bps", "settings.markup_cap_changed"],
  ["contact_email", "settings.contact_email_changed"],
];

/** One audit entry per settings field that changed (partner admins here, the operator via /admin/v1). */
export async function auditSettings(
  db: D1Database,
  actor: Actor,
  before: PartnerRow,
  after: PartnerRow,
): Promise<void> {
  for (const [field, action] of AUDITED)
    if (before[field] !== after[field])
      await audit(db, actor, action, null, { from: before[field], to: after[field] });
}
