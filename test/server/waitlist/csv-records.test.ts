// The import's CSV reader: RFC 4180 as exports write it (quotes, commas and line breaks inside
// fields, CRLF or LF, a byte-order mark), read in chunks of any size, with each record's first
// line; a broken record is reported at its line and costs the rows after it nothing.
import { csvRecords, RECORD_MAX_BYTES, type CsvRecord } from '../../../server/waitlist/csv-records';
import { toCsv } from '../../../server/waitlist/csv';

/** The records of `file`, fed to the reader `chunk` bytes at a time. */
async function read(file: string | Buffer, chunk = 7): Promise<CsvRecord[]> {
  const bytes = Buffer.isBuffer(file) ? file : Buffer.from(file);
  async function* source() {
    for (let at = 0; at < bytes.length; at += chunk) yield bytes.subarray(at, at + chunk);
  }
  const records: CsvRecord[] = [];
  for await (const record of csvRecords(source())) records.push(record);
  return records;
}

describe('reading CSV records', () => {
  it('reads what the export writes, whatever the chunk size: quotes, commas, CRLF inside fields, non-ASCII', async () => {
    const rows = [
      ['zoë@exämple.org', 'say "hi", then\r\nleave'],
      ['ann@example.org', ''],
      ['почта@пример.рф', 'plain'],
    ];
    const file = toCsv(['email', 'description'], rows);
    for (const chunk of [1, 2, 3, 7, 64, 100_000])
      expect(await read(file, chunk)).toEqual([
        { line: 1, fields: ['email', 'description'] },
        { line: 2, fields: rows[0] },
        { line: 4, fields: rows[1] },
        { line: 5, fields: rows[2] },
      ]);
  });

  it('takes unquoted fields, LF line ends, a byte-order mark, blank lines and no final line end', async () => {
    expect(await read('\ufeffemail,n\nann@example.org,1\n\r\n\nbob@example.org,"2\n3"')).toEqual([
      { line: 1, fields: ['email', 'n'] },
      { line: 2, fields: ['ann@example.org', '1'] },
      { line: 5, fields: ['bob@example.org', '2\n3'] },
    ]);
  });

  it('reports a quote left open at its line, and reads the rows it ran into', async () => {
    const file =
      'email,d\n"ann@example.org","never closed\n"bob@example.org","x"\ncy@example.org,y\n';
    expect(await read(file)).toEqual([
      { line: 1, fields: ['email', 'd'] },
      { line: 2, problem: 'broken-quote' },
      { line: 3, fields: ['bob@example.org', 'x'] },
      { line: 4, fields: ['cy@example.org', 'y'] },
    ]);
  });

  it('reports a quote open until the end of the file, and reads every line after it again', async () => {
    expect(await read('email,d\nann@example.org,"open\nbob@example.org,x\n')).toEqual([
      { line: 1, fields: ['email', 'd'] },
      { line: 2, problem: 'broken-quote' },
      { line: 3, fields: ['bob@example.org', 'x'] },
    ]);
  });

  it('refuses a quote inside an unquoted field, text after a closing quote and a bare CR', async () => {
    const file = 'a,b\nx"y,1\n"x"y,1\nx\ry,1\nok,1\n';
    expect(await read(file)).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, problem: 'broken-quote' },
      { line: 3, problem: 'broken-quote' },
      { line: 4, problem: 'broken-quote' },
      { line: 5, fields: ['ok', '1'] },
    ]);
  });

  it('reports a line that is not UTF-8, and one longer than the limit, without holding it', async () => {
    const long = 'x'.repeat(RECORD_MAX_BYTES + 10);
    const file = Buffer.concat([
      Buffer.from('a,b\n'),
      Buffer.from([0xc3, 0x28, 0x2c, 0x31, 0x0a]),
      Buffer.from(`${long},1\nok,2\n"${long}",3\nok,4\n`),
    ]);
    expect(await read(file, 4096)).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, problem: 'not-utf8' },
      { line: 3, problem: 'too-long' },
      { line: 4, fields: ['ok', '2'] },
      { line: 5, problem: 'too-long' },
      { line: 6, fields: ['ok', '4'] },
    ]);
  });
});
