// The step-up gate of a payout address change: a fresh passkey assertion with user verification.
import type { Context } from "hono";
import { DomainError } from "../../domain/errors";
import type { SignedInEnv } from "./session";

/** Throws step_up_required unless the request carries a fresh, verified step-up assertion. */
export async function verifyStepUp(_c: Context<SignedInEnv>, _fields: Record<string, string>): Promise<void> {
  throw new DomainError("action_not_available", "Confirm with your passkey to change the payout address.");
}
