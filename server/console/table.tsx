// The console's tables (signups, mail, outbox, audit): one shape for all of them. Each cell names
// its column in data-label, so on a phone (console/styles.ts) a row becomes a card of labelled
// lines instead of seven columns squeezed to a word each.
import type { ReactNode } from 'react';

interface ConsoleTableProps {
  caption: string;
  columns: string[];
  /** Each row's key and its cells, in the columns' order. */
  rows: { key: string | number; cells: ReactNode[] }[];
  /** What the table says when it has no row. */
  empty: string;
}

export function ConsoleTable({ caption, columns, rows, empty }: ConsoleTableProps) {
  return (
    <table className="console-table">
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length ? (
          rows.map(({ key, cells }) => (
            <tr key={key}>
              {cells.map((cell, i) => (
                <td key={columns[i]} data-label={columns[i]}>
                  {cell}
                </td>
              ))}
            </tr>
          ))
        ) : (
          <tr>
            <td colSpan={columns.length}>{empty}</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/** A stored ISO time as an operator reads it, to the minute in UTC; the exact one in datetime. */
export function Timestamp({ iso }: { iso: string | null | undefined }) {
  return iso ? <time dateTime={iso}>{iso.slice(0, 16).replace('T', ' ')}</time> : null;
}

/**
 * A state (or an event's type): one label on one line, which a squeezed column must not break.
 */
export function StateLabel({ children }: { children: string }) {
  return <span className="console-word">{children}</span>;
}
