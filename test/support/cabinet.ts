// Driving the cabinet over HTTP as a browser would: Origin header, session cookie, CSRF token.
import { expect } from "vitest";
import { admin, call, json } from "../helpers";
import { SoftAuthenticator } from "./authenticator";

export const ORIGIN = "http://localhost:8787";

export interface CabinetRequest {
  method?: string;
  cookie?: string;
  origin?: string | null;
  json?: unknown;
  /** Pairs when a name repeats (checkboxes). */
  form?: Record<string, string> | [string, string][];
  csrf?: string;
  ip?: string;
  headers?: Record<string, string>;
}

export function cab(path: string, r: CabinetRequest = {}): Promise<Response> {
  const headers = new Headers(r.headers);
  const method = r.method ?? (r.json !== undefined || r.form ? "POST" : "GET");
  if (r.origin !== null && method !== "GET") headers.set("origin", r.origin ?? ORIGIN);
  if (r.cookie) headers.set("cookie", r.cookie);
  if (r.ip) headers.set("cf-connecting-ip", r.ip);
  let body: string | undefined;
  if (r.json !== undefined) {
    headers.set("content-type", "application/json");
    if (r.csrf) headers.set("x-csrf-token", r.csrf);
    body = JSON.stringify(r.json);
  } else if (r.form) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    const pairs = Array.isArray(r.form) ? r.form : Object.entries(r.form);
    body = new URLSearchParams(r.csrf !== undefined ? [["_csrf", r.csrf], ...pairs] : pairs).toString();
  }
  return call(`/cabinet${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
    redirect: "manual",
  });
}

/** The `name=value` of the session cookie a response set. */
export function sessionCookie(res: Response): string {
  const set = res.headers.get("set-cookie") ?? "";
  const m = /(__Host-cabinet_session=[^;]+)/.exec(set);
  expect(m, `no session cookie in ${set}`).not.toBeNull();
  return m![1]!;
}

export async function invite(partnerId: string, email: string, role = "admin"): Promise<string> {
  const res = await admin(`/partners/${partnerId}/invites`, { method: "POST", json: { email, role } });
  expect(res.status).toBe(201);
  const body = await json<{ url: string }>(res);
  return new URL(body.url).pathname.split("/").pop()!;
}

export interface Member {
  cookie: string;
  userId: string;
  authenticator: SoftAuthenticator;
}

/** Opens an invite link and registers a passkey, as the cabinet's invite page does. */
export async function acceptInvite(token: string, authenticator = new SoftAuthenticator()): Promise<Member> {
  const opts = await cab(`/invite/${token}/options`, { json: {} });
  expect(opts.status).toBe(200);
  const { challengeId, userId, options } = await json<{
    challengeId: string;
    userId: string;
    options: { challenge: string; rp: { id: string }; user: { id: string } };
  }>(opts);
  const res = await cab(`/invite/${token}`, {
    json: { challengeId, userId, response: authenticator.register(options) },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return { cookie: sessionCookie(res), userId, authenticator };
}

export async function signInWith(authenticator: SoftAuthenticator, ip?: string): Promise<Response> {
  const opts = await cab("/sign-in/options", { json: {}, ...(ip ? { ip } : {}) });
  const { challengeId, options } = await json<{ challengeId: string; options: { challenge: string } }>(opts);
  return cab("/sign-in", {
    json: { challengeId, response: authenticator.assert(options) },
    ...(ip ? { ip } : {}),
  });
}

/**
 * A step-up proof (the `step_up` form field) from the member's passkey, as the page's script makes
 * it: options for this session, then an assertion (with user verification unless told otherwise).
 */
export async function stepUp(
  m: { cookie: string; csrf: string; authenticator: SoftAuthenticator },
  assert: { userVerified?: boolean } = {},
): Promise<string> {
  const res = await cab("/step-up/options", { cookie: m.cookie, csrf: m.csrf, json: {} });
  expect(res.status).toBe(200);
  const { challengeId, options } = await json<{ challengeId: string; options: { challenge: string } }>(res);
  return JSON.stringify({
    challengeId,
    response: m.authenticator.assert(options, undefined, assert),
  });
}

/** The CSRF token of a session, read from a page the way the browser's script does. */
export async function csrfOf(cookie: string): Promise<string> {
  const res = await cab("/account", { cookie });
  expect(res.status).toBe(200);
  const m = /name="csrf-token" content="([^"]+)"/.exec(await res.text());
  return m![1]!;
}

/** A partner with a signed-in admin (and the admin's CSRF token). */
export async function partnerWithAdmin(email = "admin@wallet.example") {
  const res = await admin("/partners", { method: "POST", json: { name: "wallet" } });
  const partner = await json<{ id: string }>(res);
  const member = await acceptInvite(await invite(partner.id, email));
  return { partnerId: partner.id, ...member, csrf: await csrfOf(member.cookie) };
}

/** Whether a cookie still opens a signed-in page. */
export async function sessionAlive(cookie: string): Promise<boolean> {
  const res = await cab("/account", { cookie });
  return res.status === 200;
}
