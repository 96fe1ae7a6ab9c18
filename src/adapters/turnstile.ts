// Cloudflare Turnstile's server-side check of a widget's challenge token (docs/widget.md).
import { type FetchFn, runtimeFetch } from "./http-client";

export const SITEVERIFY_URL = "https://challenges.cloudflare.com/turnstile/v0/siteverify";
/** The script the widget page loads when Turnstile is on: the one origin its CSP then adds. */
export const TURNSTILE_ORIGIN = "https://challenges.cloudflare.com";
export const TURNSTILE_SCRIPT = `${TURNSTILE_ORIGIN}/turnstile/v0/api.js`;

/**
 * Whether Turnstile accepts `token` for this client. Fails closed: a timeout, an error status or
 * an unreadable answer is a refusal (the user can retry; an order is never created unchecked).
 */
export async function verifyTurnstile(
  secret: string,
  token: string,
  ip: string,
  fetchFn: FetchFn = runtimeFetch,
): Promise<boolean> {
  const body = new FormData();
  body.set("secret", secret);
  body.set("response", token);
  if (ip !== "unknown") body.set("remoteip", ip);
  try {
    const res = await fetchFn(SITEVERIFY_URL, { method: "POST", body, signal: AbortSignal.timeout(5000) });
    if (!res.ok) return false;
    const answer = (await res.json()) as { success?: unknown };
    return answer.success === true;
  } catch {
    return false;
  }
}
