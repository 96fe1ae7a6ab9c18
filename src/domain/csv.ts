// CSV as the cabinet exports it (orders, earnings).

/** RFC 4180 quoting, and a leading quote on what a spreadsheet would run as a formula. */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export const csvLine = (fields: (string | number | null)[]) => `${fields.map(csvField).join(",")}\r\n`;
