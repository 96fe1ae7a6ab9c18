/** A length of time as a person reads it: "45 s", "17 min", "2 h 5 min". */
export function durationWords(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * How far `atMs` is from `nowMs`, as a person says it: "just now", "12 s ago", "5 min ago",
 * "3 h ago", "2 days ago", or "in …" for the future. The cabinet shows it on hover beside the
 * exact time.
 */
export function relativeTime(atMs: number, nowMs: number): string {
  const diff = Math.round((nowMs - atMs) / 1000);
  const abs = Math.abs(diff);
  if (abs < 5) return "just now";
  const span =
    abs < 60
      ? `${abs} s`
      : abs < 3600
        ? `${Math.floor(abs / 60)} min`
        : abs < 86_400
          ? `${Math.floor(abs / 3600)} h`
          : `${Math.floor(abs / 86_400)} day${Math.floor(abs / 86_400) === 1 ? "" : "s"}`;
  return diff > 0 ? `${span} ago` : `in ${span}`;
}
