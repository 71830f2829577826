// Reading RFC 4180 CSV as it streams in, record by record, each with the line it starts on: what
// `waitlist import` reads. Strict: a field is quoted whole or not at all, a quote inside a quoted
// field is doubled, and a line break (CRLF or LF) inside quotes belongs to the field, kept as
// written. LF and CRLF both end a record; a byte-order mark before the first field is dropped.
// A record that breaks these rules, is not UTF-8, or is longer than RECORD_MAX_BYTES is handed on
// as an error at its first line, and reading starts again at the line after it: one broken quote
// costs the rows it swallowed nothing. Nothing but the record being read is held.

/** The longest record taken: an address and a description are far shorter. */
export const RECORD_MAX_BYTES = 64 * 1024;

export type CsvProblem = 'broken-quote' | 'not-utf8' | 'too-long';

export type CsvRecord = { line: number; fields: string[] } | { line: number; problem: CsvProblem };

/** One physical line: its text (undefined when not UTF-8) and what ended it. */
interface Line {
  number: number;
  text: string | undefined;
  ending: '\r\n' | '\n' | '';
  bytes: number;
  /** Cut at RECORD_MAX_BYTES: the rest of it was skipped. */
  cut?: true;
}

const LF = 0x0a;
const CR = 0x0d;

/** The source's physical lines, split on LF (which no UTF-8 sequence contains), each decoded. */
async function* physicalLines(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<Line> {
  // ignoreBOM: the mark is kept, and dropped only before the first field (parseRecord).
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let parts: Buffer[] = [];
  let size = 0;
  /** Past RECORD_MAX_BYTES without a line break: the rest up to the next one is skipped. */
  let skipping = false;
  let number = 0;
  const line = (bytes: Buffer, ending: Line['ending'], cut: boolean): Line => {
    number++;
    const body = ending === '\n' && bytes.at(-1) === CR ? bytes.subarray(0, -1) : bytes;
    let text: string | undefined;
    try {
      text = cut ? '' : decoder.decode(body);
    } catch {
      text = undefined;
    }
    return {
      number,
      text,
      ending: body === bytes ? ending : '\r\n',
      bytes: bytes.length,
      ...(cut ? { cut: true } : {}),
    };
  };
  for await (const chunk of source) {
    // A view of the chunk, not a copy: the stream hands each chunk over for good.
    let data =
      typeof chunk === 'string'
        ? Buffer.from(chunk)
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let at = data.indexOf(LF); at !== -1; at = data.indexOf(LF)) {
      const rest = data.subarray(0, at);
      if (skipping) {
        skipping = false;
        data = data.subarray(at + 1);
        continue;
      }
      const whole = parts.length === 0 ? rest : Buffer.concat([...parts, rest]);
      yield line(whole, '\n', size + rest.length > RECORD_MAX_BYTES);
      parts = [];
      size = 0;
      data = data.subarray(at + 1);
    }
    if (skipping || data.length === 0) continue;
    if (size + data.length > RECORD_MAX_BYTES) {
      yield line(Buffer.alloc(0), '\n', true);
      parts = [];
      size = 0;
      skipping = true;
      continue;
    }
    parts.push(data);
    size += data.length;
  }
  if (!skipping && size > 0) yield line(Buffer.concat(parts), '', false);
}

/** Where parsing a record's lines got to: a record, more lines wanted, or a problem. */
type Parsed = { fields: string[] } | { more: true } | { problem: CsvProblem };

/** Parses the lines of one record from its first; the last may end it or leave a quote open. */
function parseRecord(lines: readonly Line[]): Parsed {
  const fields: string[] = [];
  // The field being read (taken in slices, not a character at a time: 100 000 rows then make
  // little garbage), whether it was quoted, and whether its quote is still open.
  let field = '';
  let quoted = false;
  let inQuotes = false;
  for (const [i, { text, ending }] of lines.entries()) {
    if (text === undefined) return { problem: 'not-utf8' };
    // The byte-order mark some spreadsheets write before the first field.
    let at = i === 0 && lines[0].number === 1 && text.startsWith('\ufeff') ? 1 : 0;
    while (at < text.length) {
      if (inQuotes) {
        const quote = text.indexOf('"', at);
        if (quote === -1) {
          field += text.slice(at);
          at = text.length;
        } else if (text[quote + 1] === '"') {
          field += text.slice(at, quote + 1);
          at = quote + 2;
        } else {
          field += text.slice(at, quote);
          inQuotes = false;
          at = quote + 1;
        }
      } else if (quoted) {
        // After a field's closing quote only a comma or the record's end may come.
        if (text[at] !== ',') return { problem: 'broken-quote' };
        fields.push(field);
        field = '';
        quoted = false;
        at++;
      } else if (text[at] === '"') {
        inQuotes = true;
        quoted = true;
        at++;
      } else {
        const comma = text.indexOf(',', at);
        const end = comma === -1 ? text.length : comma;
        field = text.slice(at, end);
        // A quote inside an unquoted field, or a bare CR (which ends no record here).
        if (field.includes('"') || field.includes('\r')) return { problem: 'broken-quote' };
        if (comma === -1) at = end;
        else {
          fields.push(field);
          field = '';
          at = comma + 1;
        }
      }
    }
    if (inQuotes) {
      if (ending === '') return { problem: 'broken-quote' };
      field += ending;
    } else if (i < lines.length - 1) return { problem: 'broken-quote' };
  }
  if (inQuotes) return { more: true };
  fields.push(field);
  return { fields };
}

/**
 * The source's records in order, header included (it is the first), each with its first line's
 * number; blank lines are passed over.
 */
export async function* csvRecords(
  source: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<CsvRecord> {
  const lines = physicalLines(source);
  /** Lines read again after a broken record: the one after its first, and on. */
  const again: Line[] = [];
  const read = async (): Promise<Line | undefined> => {
    const next = await lines.next();
    return next.done ? undefined : next.value;
  };
  let record: Line[] = [];
  let bytes = 0;
  for (;;) {
    const line = again.shift() ?? (await read());
    if (line === undefined && record.length === 0) return;
    let parsed: Parsed;
    if (line === undefined)
      parsed = { problem: 'broken-quote' }; // the file ended inside a quote
    else if (record.length === 0 && line.text === '' && !line.cut) continue;
    else {
      record.push(line);
      bytes += line.bytes;
      parsed = line.cut || bytes > RECORD_MAX_BYTES ? { problem: 'too-long' } : parseRecord(record);
      // The quote is still open: the next line belongs to this record.
      if ('more' in parsed) continue;
    }
    const first = record[0].number;
    if ('fields' in parsed) yield { line: first, fields: parsed.fields };
    else {
      yield { line: first, problem: parsed.problem };
      again.unshift(...record.slice(1));
    }
    record = [];
    bytes = 0;
  }
}
