// The console's tables (signups, mail, outbox, audit): one shape for all of them. Each cell names
// its column in data-label, so on a phone (console/styles.ts) a row becomes a card of labelled
// lines instead of seven columns squeezed to a word each.
import { escapeMarkup as e } from '../../shared/markup';

interface Table {
  caption: string;
  columns: string[];
  /** Each row's cells as markup, in the columns' order. */
  rows: string[][];
  /** What the table says when it has no row. */
  empty: string;
}

export function consoleTable({ caption, columns, rows, empty }: Table): string {
  const body = rows.length
    ? rows.map((cells) => `<tr>${cells.map((cell, i) => `<td data-label="${e(columns[i])}">${cell}</td>`).join('')}</tr>`).join('')
    : `<tr><td colspan="${columns.length}">${empty}</td></tr>`;
  return (
    `<table class="console-table"><caption>${caption}</caption>` +
    `<thead><tr>${columns.map((column) => `<th scope="col">${e(column)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table>`
  );
}

/** A stored ISO time as an operator reads it, to the minute in UTC; the exact value stays in datetime. */
export function when(iso: string | null | undefined): string {
  return iso ? `<time datetime="${e(iso)}">${e(iso.slice(0, 16).replace('T', ' '))}</time>` : '';
}

/** A word that a squeezed column must not break (a state, an action). */
export function word(text: string): string {
  return `<span class="console-word">${e(text)}</span>`;
}
