import { describe, expect, it } from "vitest";
import { can, inviteState, SESSION_IDLE_MS, sessionAlive, signinWindowStart } from "../../src/domain/cabinet";

describe("cabinet rules", () => {
  it("grants writes by role", () => {
    expect(can("admin", "team.write")).toBe(true);
    expect(can("developer", "keys.write")).toBe(true);
    expect(can("developer", "team.read")).toBe(false);
    expect(can("viewer", "keys.write")).toBe(false);
    expect(can("viewer", "keys.read")).toBe(true);
  });

  it("ends sessions after the idle or absolute timeout", () => {
    const now = 1_000_000_000_000;
    expect(sessionAlive({ createdAt: now, lastSeenAt: now, expiresAt: now + 10 }, now)).toBe(true);
    expect(
      sessionAlive({ createdAt: now, lastSeenAt: now - SESSION_IDLE_MS, expiresAt: now + 10 }, now),
    ).toBe(false);
    expect(sessionAlive({ createdAt: now, lastSeenAt: now, expiresAt: now }, now)).toBe(false);
  });

  it("classifies invites", () => {
    const future = new Date(Date.now() + 1000).toISOString();
    expect(inviteState({ used_at: null, revoked_at: null, expires_at: future }, Date.now())).toBe("valid");
    expect(inviteState({ used_at: "x", revoked_at: null, expires_at: future }, Date.now())).toBe("used");
    expect(inviteState({ used_at: null, revoked_at: "x", expires_at: future }, Date.now())).toBe("revoked");
    expect(inviteState({ used_at: null, revoked_at: null, expires_at: future }, Date.now() + 2000)).toBe(
      "expired",
    );
  });

  it("counts failures in fixed 15-minute windows", () => {
    expect(signinWindowStart(Date.UTC(2026, 0, 1, 10, 14, 59))).toBe("2026-01-01T10:00:00.000Z");
    expect(signinWindowStart(Date.UTC(2026, 0, 1, 10, 15, 0))).toBe("2026-01-01T10:15:00.000Z");
  });
});
