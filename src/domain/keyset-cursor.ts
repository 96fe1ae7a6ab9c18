// Keyset paging, newest first: the cursor is the last row's position (created_at, id) as
// base64url JSON — opaque to clients, cheap to verify, and stable while new rows arrive.
import { base64urlnopad } from "@scure/base";
import { DomainError } from "./errors";

export interface KeysetPosition {
  createdAt: string;
  id: string;
}

export function encodeCursor(p: KeysetPosition): string {
  return base64urlnopad.encode(new TextEncoder().encode(JSON.stringify([p.createdAt, p.id])));
}

/** The position a cursor names; `validId` rejects ids this list never returns. */
export function decodeCursor(cursor: string, validId: (id: string) => boolean): KeysetPosition {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(cursor)));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === "string" &&
      typeof parsed[1] === "string" &&
      validId(parsed[1])
    ) {
      return { createdAt: parsed[0], id: parsed[1] };
    }
  } catch {
    // fall through
  }
  throw new DomainError("invalid_cursor", "cursor is not a next_cursor this API returned.");
}

/** One page out of `limit + 1` rows fetched: the rows to show and the cursor after them (or null). */
export function pageOf<T>(
  rows: readonly T[],
  limit: number,
  position: (row: T) => KeysetPosition,
): { page: T[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, next_cursor: rows.length > limit && last ? encodeCursor(position(last)) : null };
}
