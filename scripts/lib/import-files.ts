// Export files as listmonk and Mailchimp write them, for the import's tests and its benchmark:
// listmonk through Go's encoding/csv (a field quoted only when it must be, LF line ends, times as
// Go's time.Time.String()), Mailchimp's audience export (one file a status, fields with spaces
// quoted, CRLF, times as "2019-05-13 18:52:46" in UTC).

/** Go's csv.Writer: quotes a field with a comma, a quote, a line break, or a leading space. */
function goField(field: string): string {
  const quoted = field !== '' && (/[",\r\n]/.test(field) || /^\s/u.test(field));
  return quoted ? `"${field.replace(/"/g, '""')}"` : field;
}

/** Mailchimp's: a field with a space, a comma, a quote or a line break, quoted. */
function mailchimpField(field: string): string {
  return /[\s",]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
}

/** Go's time.Time.String() of an instant at an offset (minutes east) with a zone name. */
export function goTime(iso: string, offsetMinutes = 0, zone = 'UTC'): string {
  const local = new Date(Date.parse(iso) + offsetMinutes * 60_000).toISOString();
  const [day, time] = local.slice(0, -1).split('T');
  const [clock, ms] = time.split('.');
  const fraction = ms === '000' ? '' : `.${ms}${'456'}`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${day} ${clock}${fraction} ${offset} ${zone}`;
}

/** Mailchimp's times: UTC, to the second. */
export const mailchimpTime = (iso: string) => iso.slice(0, 19).replace('T', ' ');

export interface ListmonkSubscriber {
  email: string;
  name?: string;
  attributes?: Record<string, unknown>;
  status: 'enabled' | 'disabled' | 'blocklisted';
  createdAt: string;
}

/** listmonk's "Export" of subscribers. */
export function listmonkExport(subscribers: ListmonkSubscriber[]): string {
  const header = ['uuid', 'email', 'name', 'attributes', 'status', 'created_at', 'updated_at'];
  const rows = subscribers.map((s, i) => [
    `5e2d4d4b-0000-4000-8000-${String(i).padStart(12, '0')}`,
    s.email,
    s.name ?? '',
    JSON.stringify(s.attributes ?? {}),
    s.status,
    goTime(s.createdAt, 330, 'IST'),
    goTime(s.createdAt, 0),
  ]);
  return [header, ...rows].map((row) => `${row.map(goField).join(',')}\n`).join('');
}

export type MailchimpStatus = 'subscribed' | 'unsubscribed' | 'cleaned' | 'nonsubscribed';

export interface MailchimpMember {
  email: string;
  firstName?: string;
  notes?: string;
  optinTime?: string;
  confirmTime?: string;
  lastChanged: string;
}

/** The name of each file of Mailchimp's export zip. */
export const mailchimpFileName = (status: MailchimpStatus) =>
  `${status}_members_export_4f2e8d9a1b.csv`;

/** One file of Mailchimp's audience export: its columns depend on the status. */
export function mailchimpExport(status: MailchimpStatus, members: MailchimpMember[]): string {
  const extra =
    status === 'unsubscribed'
      ? ['UNSUB_TIME', 'UNSUB_CAMPAIGN_TITLE', 'UNSUB_CAMPAIGN_ID', 'UNSUB_REASON']
      : status === 'cleaned'
        ? ['CLEAN_TIME', 'CLEAN_CAMPAIGN_TITLE', 'CLEAN_CAMPAIGN_ID']
        : [];
  const header = [
    'Email Address',
    'First Name',
    'Last Name',
    'MEMBER_RATING',
    'OPTIN_TIME',
    'OPTIN_IP',
    'CONFIRM_TIME',
    'CONFIRM_IP',
    'LATITUDE',
    'LONGITUDE',
    'GMTOFF',
    'DSTOFF',
    'TIMEZONE',
    'CC',
    'REGION',
    'LAST_CHANGED',
    'LEID',
    'EUID',
    'NOTES',
    ...extra,
    'TAGS',
  ];
  const rows = members.map((m, i) => [
    m.email,
    m.firstName ?? '',
    '',
    '2',
    m.optinTime ? mailchimpTime(m.optinTime) : '',
    '',
    m.confirmTime ? mailchimpTime(m.confirmTime) : '',
    '203.0.113.7',
    '52.5200000',
    '13.4050000',
    '1',
    '2',
    'Europe/Berlin',
    'DE',
    'BE',
    mailchimpTime(m.lastChanged),
    String(100 + i),
    `e${i}`,
    m.notes ?? '',
    ...extra.map((name) =>
      name.endsWith('_TIME') ? mailchimpTime(m.lastChanged) : 'Spring news, 2025',
    ),
    '"beta", "early"',
  ]);
  return [header, ...rows].map((row) => `${row.map(mailchimpField).join(',')}\r\n`).join('');
}
