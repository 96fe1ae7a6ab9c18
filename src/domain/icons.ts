/** Icon file name → the first 12 hex digits of its content's SHA-256. */
export type IconSet = Readonly<Record<string, string>>;

export const GENERIC_ICON = "generic.svg";

/** The icon file for a coin: its own when the set has one, the generic icon otherwise. */
export function iconFile(coin: string, icons: IconSet): string {
  const own = `${coin.toLowerCase()}.svg`;
  return own in icons ? own : GENERIC_ICON;
}

/** Path of the icon on the API, versioned by content hash so it can be cached forever. */
export function iconUrl(coin: string, icons: IconSet): string | null {
  const file = iconFile(coin, icons);
  const hash = icons[file];
  return hash ? `/api/v1/icons/${file}?v=${hash}` : null;
}
