// The cabinet's rules as plain data: who may do what, how long invites and sessions live, and
// when failed sign-ins lock a client or a user out for a while.

export const ROLES = ["admin", "developer", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** Things a cabinet user can do; pages and routes ask `can(role, permission)`. */
export type Permission =
  | "keys.read"
  | "keys.write"
  | "team.read"
  | "team.write"
  | "audit.read"
  | "webhooks.read"
  | "webhooks.write"
  | "settings.write"
  | "orders.read"
  | "orders.act";

const GRANTS: Record<Role, readonly Permission[]> = {
  admin: [
    "keys.read",
    "keys.write",
    "team.read",
    "team.write",
    "audit.read",
    "webhooks.read",
    "webhooks.write",
    "settings.write",
    "orders.read",
    "orders.act",
  ],
  developer: [
    "keys.read",
    "keys.write",
    "audit.read",
    "webhooks.read",
    "webhooks.write",
    "orders.read",
    "orders.act",
  ],
  viewer: ["keys.read", "audit.read", "webhooks.read", "orders.read"],
};

export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

const HOUR_MS = 3_600_000;
export const INVITE_TTL_MS = 72 * HOUR_MS;
export const SESSION_IDLE_MS = 12 * HOUR_MS;
export const SESSION_ABSOLUTE_MS = 7 * 24 * HOUR_MS;
/** last_seen_at is rewritten at most this often, so a busy session is not a write per request. */
export const SESSION_TOUCH_MS = 60_000;
export const CHALLENGE_TTL_MS = 5 * 60_000;

export interface SessionTimes {
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

export function sessionAlive(s: SessionTimes, now: number): boolean {
  return now < s.expiresAt && now - s.lastSeenAt < SESSION_IDLE_MS;
}

export type InviteState = "valid" | "used" | "expired" | "revoked";

export function inviteState(
  i: { used_at: string | null; revoked_at: string | null; expires_at: string },
  now: number,
): InviteState {
  if (i.used_at) return "used";
  if (i.revoked_at) return "revoked";
  return Date.parse(i.expires_at) <= now ? "expired" : "valid";
}

/** Roll overlaps a partner may choose: how long the old key keeps working. */
export const ROLL_OVERLAPS = { now: 0, "1h": HOUR_MS, "24h": 24 * HOUR_MS, "7d": 7 * 24 * HOUR_MS } as const;
export type RollOverlap = keyof typeof ROLL_OVERLAPS;
/** What a roll keeps the old key working for unless told otherwise. */
export const DEFAULT_ROLL_OVERLAP: RollOverlap = "24h";

// Failed sign-ins: a client address gets 20 and a user 10 per 15-minute window; past that, sign-in
// is refused until the window ends, whether or not the next attempt would succeed.
export const SIGNIN_WINDOW_MS = 15 * 60_000;
export const SIGNIN_MAX_FAILURES = { ip: 20, user: 10 } as const;

export function signinWindowStart(now: number): string {
  return new Date(now - (now % SIGNIN_WINDOW_MS)).toISOString();
}

export function normaliseEmail(e: string): string {
  return e.trim().toLowerCase();
}
