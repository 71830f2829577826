// RFC 4180 CSV: CRLF line ends; a field with a comma, quote, CR or LF is quoted, quotes doubled.
function csvField(value: string | null | undefined): string {
  const text = value ?? '';
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record with its CRLF. */
export function csvLine(fields: (string | null)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

export function toCsv(header: string[], rows: (string | null)[][]): string {
  return [header, ...rows].map(csvLine).join('');
}
