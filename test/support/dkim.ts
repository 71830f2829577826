// Checking a DKIM signature as a receiver would: a real verifier (mailauth) whose DNS serves
// exactly the records `waitlist dns` printed, so the printed record is proven right too.
import { dkimVerify, type DKIMResult } from 'mailauth';

/**
 * The DNS a receiver would see: the TXT records of `waitlist dns`'s output, as character-strings.
 */
export function zoneOf(printed: string): Map<string, string[]> {
  const zone = new Map<string, string[]>();
  for (const line of printed.split('\n')) {
    const record = /^(\S+)\. TXT (".*")$/.exec(line);
    if (record)
      zone.set(
        record[1],
        [...record[2].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(([, chunk]) =>
          chunk.replace(/\\(.)/g, '$1'),
        ),
      );
  }
  return zone;
}

/** The signatures of a raw message, each verified against `zone` alone. */
export async function verifyDkim(
  message: Buffer | string,
  zone: Map<string, string[]>,
): Promise<DKIMResult[]> {
  const { results } = await dkimVerify(message, {
    resolver: async (name, type) => {
      const data = type === 'TXT' ? zone.get(name) : undefined;
      if (!data)
        throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
      return [data];
    },
  });
  return results;
}

/** A raw message's header block, folded lines as sent. */
export const headerBlock = (raw: Buffer) =>
  raw.subarray(0, raw.indexOf('\r\n\r\n')).toString('latin1');
