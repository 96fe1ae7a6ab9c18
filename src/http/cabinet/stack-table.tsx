import type { Child } from "hono/jsx";

/** One column of a StackTable: its header and the cell each row shows under it. */
export interface Column<T> {
  /** The header, and the label a phone shows beside the value; "" for a column of buttons. */
  label: string;
  cell: (row: T) => Child;
  /** Right-aligned figures (header and cells). */
  num?: boolean;
  /** Monospaced cells (amounts, ids). */
  mono?: boolean;
}

/**
 * Every cabinet table: on a phone `.stack` turns each row into a card (cabinet.css), and each
 * cell's `data-label` is what the card shows beside the value, so header and labels must come from
 * one list. A column left out for a role is passed as `false`. With `empty`, no rows show that
 * text instead of an empty table.
 */
export function StackTable<T>(props: {
  rows: readonly T[];
  columns: readonly (Column<T> | false)[];
  testid?: string;
  /** Attributes of each row (`data-…` hooks for tests and scripts). */
  rowAttrs?: (row: T) => Record<string, string>;
  empty?: Child;
}) {
  if (props.rows.length === 0 && props.empty !== undefined) return <p class="muted">{props.empty}</p>;
  const columns = props.columns.filter((c): c is Column<T> => c !== false);
  return (
    <table class="stack" data-testid={props.testid}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th class={c.num ? "num" : undefined}>{c.label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr {...props.rowAttrs?.(row)}>
            {columns.map((c) => (
              <td class={cellClass(c)} data-label={c.label}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function cellClass(c: { num?: boolean; mono?: boolean }): string | undefined {
  const names = [c.num ? "num" : "", c.mono ? "mono" : ""].filter(Boolean);
  return names.length ? names.join(" ") : undefined;
}
