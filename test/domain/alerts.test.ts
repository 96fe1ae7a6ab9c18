/**
 * Operator alerts (src/domain/alerts.ts): one per problem, not one per retry — opened once,
 * reminded on a backoff, cleared once.
 */
import { describe, expect, it } from "vitest";
import {
  type AlertState,
  clearAlert,
  REMINDER_BASE_MS,
  REMINDER_CAP_MS,
  raiseAlert,
  scheduledReminderAt,
} from "../../src/domain/alerts";

const T = 1_700_000_000_000;
const MIN = 60_000;

describe("raiseAlert / clearAlert", () => {
  it("a problem seen every minute for two days: opened once, reminders on a doubling backoff up to a day", () => {
    let state = null;
    const notices: [number, string][] = [];
    for (let t = T; t <= T + 48 * 60 * MIN; t += MIN) {
      const r = raiseAlert(state, "payout_outcome_unknown", "payout outcome unknown", { key: "k" }, t);
      state = r.state;
      if (r.notice) notices.push([(t - T) / MIN, r.notice]);
    }
    expect(notices.slice(0, 5)).toEqual([
      [0, "opened"],
      [REMINDER_BASE_MS / MIN, "reminder"],
      [(REMINDER_BASE_MS * 3) / MIN, "reminder"],
      [(REMINDER_BASE_MS * 7) / MIN, "reminder"],
      [(REMINDER_BASE_MS * 15) / MIN, "reminder"],
    ]);
    // 2,881 sightings, a dozen lines: the gaps never exceed the cap.
    expect(notices.length).toBeLessThan(12);
    const gaps = notices.slice(1).map(([m], i) => m - (notices[i]?.[0] ?? 0));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(REMINDER_CAP_MS / MIN);
    expect(state).toMatchObject({ openedAt: T, lastAt: T + 48 * 60 * MIN, clearedAt: null });
  });

  it("clears once; the next sighting opens a new alert", () => {
    const { state } = raiseAlert(null, "gateway_config", "401", {}, T);
    const cleared = clearAlert(state, T + MIN);
    expect(cleared).toMatchObject({ openedAt: T, clearedAt: T + MIN });
    expect(clearAlert(cleared, T + 2 * MIN)).toBeNull();
    expect(clearAlert(null, T)).toBeNull();
    expect(raiseAlert(cleared, "gateway_config", "401", {}, T + 3 * MIN)).toMatchObject({
      notice: "opened",
      state: { openedAt: T + 3 * MIN, reminders: 0, clearedAt: null },
    });
  });
});

describe("scheduledReminderAt (a service alert, stored without its reminder time)", () => {
  it("rebuilt from its opening and reminder count each minute, it reminds on the minutes an order's alert does", () => {
    const notices = (rebuild: boolean) => {
      let state: AlertState | null = null;
      const out: number[] = [];
      for (let t = T; t <= T + 48 * 60 * MIN; t += MIN) {
        const prev: AlertState | null =
          rebuild && state
            ? { ...state, nextReminderAt: scheduledReminderAt(state.openedAt, state.reminders) }
            : state;
        const r = raiseAlert(prev, "address_pool_low", "low", {}, t);
        state = r.state;
        if (r.notice) out.push((t - T) / MIN);
      }
      return out;
    };
    expect(notices(true)).toEqual(notices(false));
    expect(scheduledReminderAt(T, 0)).toBe(T + REMINDER_BASE_MS);
  });
});
