// Times in the viewer's own zone: every <time data-local> the server wrote in UTC is rewritten to
// the browser's local time, with the zone's name, at the precision the server showed
// (data-local: "minutes", "seconds" or "ms"). Without the script the UTC text stays, labelled.
export function localTimes(): void {
  for (const el of document.querySelectorAll<HTMLTimeElement>("time[data-local]")) {
    const at = new Date(el.dateTime);
    if (Number.isNaN(at.getTime())) continue;
    const precision = el.dataset.local;
    el.textContent = new Intl.DateTimeFormat(undefined, {
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      ...(precision === "seconds" || precision === "ms" ? { second: "2-digit" } : {}),
      ...(precision === "ms" ? { fractionalSecondDigits: 3 } : {}),
      timeZoneName: "short",
    }).format(at);
    if (!el.title) el.title = `${el.dateTime.replace("T", " ").slice(0, 19)} UTC`;
  }
}
