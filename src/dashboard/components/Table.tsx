import type { ComponentChildren } from 'preact';

export interface Column<T> {
  /** The column's heading (also shown beside each value on narrow screens). */
  label: string;
  cell: (row: T) => ComponentChildren;
  /** Numbers align right. */
  numeric?: boolean;
}

/** A data table with a caption; below 640 px each row becomes a block with the headings beside the values. */
export function Table<T>({ caption, columns, rows, rowKey }: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string }) {
  return (
    <table class="table">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.label} scope="col" class={column.numeric ? 'numeric' : undefined}>
              {column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((column) => (
              <td key={column.label} data-label={column.label} class={column.numeric ? 'numeric' : undefined}>
                {column.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
