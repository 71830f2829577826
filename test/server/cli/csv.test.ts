import { csvField, toCsv } from '../../../server/cli/csv';

describe('CSV (RFC 4180)', () => {
  it('leaves plain fields alone and quotes the rest', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rlf')).toBe('"cr\rlf"');
    expect(csvField('ünïcödé 📝')).toBe('ünïcödé 📝');
    expect(csvField(null)).toBe('');
  });

  it('ends every record with CRLF', () => {
    expect(toCsv(['a', 'b'], [['1', null]])).toBe('a,b\r\n1,\r\n');
  });
});
