// dns: the DNS records an operator publishes so receivers trust the invitations. The DKIM record
// is derived from the signing key itself (RFC 6376, section 3.6.1), so it cannot drift from what
// signs; SPF (RFC 7208) and DMARC (RFC 7489) depend on who else sends mail for the domain, so
// they are starting points to adapt.
import { createPublicKey } from 'node:crypto';
import type { Config } from '../config';

export interface DnsRecord {
  /** Fully qualified, with its final dot. */
  name: string;
  type: 'TXT';
  value: string;
  /** False: publish as is; true: a starting point the operator adapts. */
  adapt: boolean;
  /** What it is for and what to change, one line. */
  note: string;
}

export type DnsResult = { kind: 'records'; records: DnsRecord[] } | { kind: 'no-dkim' };

/**
 * The public half of the signing key as DKIM's p= tag wants it: SubjectPublicKeyInfo, DER, base64.
 */
function publicKeyOf(dkim: NonNullable<Config['dkim']>): string {
  return createPublicKey(dkim.privateKey)
    .export({ type: 'spki', format: 'der' })
    .toString('base64');
}

export function dnsRecords({ config }: { config: Pick<Config, 'dkim' | 'smtpUrl'> }): DnsResult {
  const { dkim } = config;
  if (!dkim) return { kind: 'no-dkim' };
  const domain = `${dkim.domainName}.`;
  const relay = config.smtpUrl ? new URL(config.smtpUrl).hostname : undefined;
  return {
    kind: 'records',
    records: [
      {
        name: `${dkim.keySelector}._domainkey.${domain}`,
        type: 'TXT',
        value: `v=DKIM1; k=rsa; p=${publicKeyOf(dkim)}`,
        adapt: false,
        note: 'DKIM: the public key of DKIM_PRIVATE_KEY_FILE; publish as is.',
      },
      {
        name: domain,
        type: 'TXT',
        value: 'v=spf1 mx ~all',
        adapt: true,
        note: relay
          ? `SPF, to adapt: invitations leave through ${relay} (SMTP_URL); add the include: ` +
            `its provider documents (or a:${relay}) and every other sender of the domain.`
          : 'SPF, to adapt: add every server that sends mail for the domain ' +
            '(the SMTP relay of SMTP_URL: the include: its provider documents).',
      },
      {
        name: `_dmarc.${domain}`,
        type: 'TXT',
        value: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${dkim.domainName}`,
        adapt: true,
        note:
          'DMARC, to adapt: rua= is where reports go; p=none only watches, move to quarantine ' +
          'or reject once reports show your mail passes.',
      },
    ],
  };
}

/**
 * A TXT value as zone files and DNS carry it: quoted character-strings of at most 255 bytes each
 * (RFC 1035, section 3.3.14), which receivers join back into one (RFC 6376, section 3.6.2.2). A
 * 2048-bit key's record is longer than one.
 */
export function txtData(value: string): string {
  const chunks: string[] = [];
  for (let start = 0; start < value.length; start += 255)
    chunks.push(value.slice(start, start + 255));
  return chunks.map((chunk) => `"${chunk.replace(/["\\]/g, '\\$&')}"`).join(' ');
}
