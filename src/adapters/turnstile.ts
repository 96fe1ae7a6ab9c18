// Cloudflare Turnstile's server-side check of a widget's challenge token (docs/widget.md).
import { type FetchFn, runtimeFetch } from "./http-client";

export const SITEVERIFY_URL = "https://challenges.cloudflare.com/turnstile/v0/siteverify";
/** The script the widget page loads when Turnstile is on: the one origin its CSP then adds. */
export const TURNSTILE_ORIGIN = "https://challenges.cloudflare.com";
export const TURNSTILE_SCRIPT = `${TURNSTILE_ORIGIN}/turnstile/v0/api.js`;
/** The widget form's `data-action`: siteverify echoes it, so a token solved for another form is refused. */
export const TURNSTILE_ACTION = "widget-order";

/** Where the token must have been solved: this host's page (the widget frame or /swap), this form. */
export interface TurnstileExpected {
  ip: string;
  hostname: string;
  action: string;
}

/**
 * Whether Turnstile accepts `token` for this client, solved on `hostname` for `action` (Cloudflare
 * recommends checking both fields of the siteverify answer: a site key may serve several hostnames,
 * and the action is integrity-protected). Fails closed: a timeout, an error status, an unreadable
 * answer or another hostname or action is a refusal (the user can retry; an order is never created
 * unchecked).
 */
export async function verifyTurnstile(
  secret: string,
  token: string,
  expected: TurnstileExpected,
  fetchFn: FetchFn = runtimeFetch,
): Promise<boolean> {
  const body = new FormData();
  body.set("secret", secret);
  body.set("response", token);
  if (expected.ip !== "unknown") body.set("remoteip", expected.ip);
  try {
    const res = await fetchFn(SITEVERIFY_URL, { method: "POST", body, signal: AbortSignal.timeout(5000) });
    if (!res.ok) return false;
    const answer = (await res.json()) as { success?: unknown; hostname?: unknown; action?: unknown };
    return (
      answer.success === true && answer.hostname === expected.hostname && answer.action === expected.action
    );
  } catch {
    return false;
  }
}
