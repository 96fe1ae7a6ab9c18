// A test order's own clock (docs/test-mode.md): the `expire` helper moves it ahead of real time,
// so the events logged after a jump are dated in the future. The jumps are kept, so each event's
// lead over real time is known and the cabinet can say which times are simulated.

/** From event `fromSeq` on, the order's clock ran `aheadMs` ahead of real time. */
export interface ClockJump {
  fromSeq: number;
  aheadMs: number;
}

/** How far ahead of real time the order's clock was when event `seq` was logged (0: real time). */
export function aheadAt(seq: number, jumps: readonly ClockJump[]): number {
  let ahead = 0;
  for (const j of jumps) if (j.fromSeq <= seq) ahead = j.aheadMs;
  return ahead;
}

/** A lead as the page says it: "+15 min", "+1 h 30 min", "+2 d 3 h"; under a minute, seconds. */
export function aheadLabel(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `+${s} s`;
  const m = Math.round(s / 60);
  const [d, h, min] = [Math.floor(m / 1440), Math.floor((m % 1440) / 60), m % 60];
  if (d > 0) return h > 0 ? `+${d} d ${h} h` : `+${d} d`;
  if (h > 0) return min > 0 ? `+${h} h ${min} min` : `+${h} h`;
  return `+${min} min`;
}
