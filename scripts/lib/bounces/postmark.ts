// Postmark's webhook records as Postmark posts them, built from its documentation: the bounce
// webhook's and the spam complaint webhook's example JSON (postmarkapp.com/developer/webhooks),
// with the bounce types of the Bounce API's table. Postmark signs nothing: it sends the user and
// password of the webhook's URL as Basic credentials, which `signed` adds as Postmark does.

/** One of Postmark's bounce types: its Type, TypeCode and Name, as the Bounce API lists them. */
export interface PostmarkBounceType {
  type: string;
  code: number;
  name: string;
}

/** Every bounce type of Postmark's table ("Bounce types", Bounce API reference). */
export const POSTMARK_BOUNCE_TYPES: readonly PostmarkBounceType[] = [
  { type: 'HardBounce', code: 1, name: 'Hard bounce' },
  { type: 'Transient', code: 2, name: 'Message delayed/Undeliverable' },
  { type: 'Unsubscribe', code: 16, name: 'Unsubscribe request' },
  { type: 'Subscribe', code: 32, name: 'Subscribe request' },
  { type: 'AutoResponder', code: 64, name: 'Auto responder' },
  { type: 'AddressChange', code: 128, name: 'Address change' },
  { type: 'DnsError', code: 256, name: 'DNS error' },
  { type: 'SpamNotification', code: 512, name: 'Spam notification' },
  { type: 'OpenRelayTest', code: 1024, name: 'Open relay test' },
  { type: 'Unknown', code: 2048, name: 'Unknown' },
  { type: 'SoftBounce', code: 4096, name: 'Soft bounce' },
  { type: 'VirusNotification', code: 8192, name: 'Virus notification' },
  { type: 'ChallengeVerification', code: 16384, name: 'Spam challenge verification' },
  { type: 'BadEmailAddress', code: 100000, name: 'Invalid email address' },
  { type: 'SpamComplaint', code: 100001, name: 'Spam complaint' },
  { type: 'ManuallyDeactivated', code: 100002, name: 'Manually deactivated' },
  { type: 'Unconfirmed', code: 100003, name: 'Registration not confirmed' },
  { type: 'Blocked', code: 100006, name: 'ISP block' },
  { type: 'SMTPApiError', code: 100007, name: 'SMTP API error' },
  { type: 'InboundError', code: 100008, name: 'Processing failed' },
  { type: 'DMARCPolicy', code: 100009, name: 'DMARC Policy' },
  { type: 'TemplateRenderingFailed', code: 100010, name: 'Template rendering failed' },
];

/** A record as Postmark posts it; ID is a number, or digits when it is past 2^53. */
export type PostmarkPayload = Record<string, unknown>;

function typeOf(type: string): PostmarkBounceType {
  const found = POSTMARK_BOUNCE_TYPES.find((entry) => entry.type === type);
  if (!found) throw new Error(`${type} is not one of Postmark's bounce types`);
  return found;
}

/**
 * A Bounce record, as the bounce webhook's example has it. `id` is Postmark's bounce ID; give a
 * bigint for one past 2^53 (it is written as the bare digits Postmark sends).
 */
export function bouncePayload({
  email,
  type = 'HardBounce',
  id = 692560173,
  at = Date.parse('2026-03-01T12:00:00Z'),
  details = 'Test bounce details',
}: {
  email: string;
  type?: string;
  id?: number | bigint;
  at?: number;
  details?: string;
}): PostmarkPayload {
  const { code, name } = typeOf(type);
  return {
    RecordType: 'Bounce',
    MessageStream: 'outbound',
    ID: id,
    Type: type,
    TypeCode: code,
    Name: name,
    Tag: 'Invitation',
    MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
    Metadata: {},
    ServerID: 23,
    Description:
      'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    Details: details,
    Email: email,
    From: 'waitlist@orgnote.example',
    BouncedAt: new Date(at).toISOString(),
    DumpAvailable: true,
    Inactive: type === 'HardBounce',
    CanActivate: true,
    Subject: 'Confirm your place on the waitlist',
    Content: '<Full dump of bounce>',
  };
}

/**
 * A SpamComplaint record, as the spam complaint webhook's example has it: its TypeCode there is
 * 512 (the table says 100001 for the SpamComplaint type), so the endpoint must not read the code.
 */
export function spamComplaintPayload({
  email,
  id = 42,
  at = Date.parse('2026-03-01T12:00:00Z'),
}: {
  email: string;
  id?: number | bigint;
  at?: number;
}): PostmarkPayload {
  return {
    RecordType: 'SpamComplaint',
    MessageStream: 'outbound',
    ID: id,
    Type: 'SpamComplaint',
    TypeCode: 512,
    Name: 'Spam complaint',
    Tag: 'Invitation',
    MessageID: '00000000-0000-0000-0000-000000000000',
    Metadata: {},
    ServerID: 1234,
    Description: '',
    Details: 'Test spam complaint details',
    Email: email,
    From: 'waitlist@orgnote.example',
    BouncedAt: new Date(at).toISOString(),
    DumpAvailable: true,
    Inactive: true,
    CanActivate: false,
    Subject: 'Confirm your place on the waitlist',
    Content: '<Abuse report dump>',
  };
}

/** A Delivery record (the delivery webhook's example): a record type the site does not read. */
export function deliveryPayload({ email }: { email: string }): PostmarkPayload {
  return {
    RecordType: 'Delivery',
    ServerID: 23,
    MessageStream: 'outbound',
    MessageID: '00000000-0000-0000-0000-000000000000',
    Recipient: email,
    Tag: 'Invitation',
    DeliveredAt: '2026-03-01T12:00:00Z',
    Details: 'Test delivery webhook details',
    Metadata: {},
  };
}

/** JSON.rawJSON (Node 21 and later), which TypeScript's ES2023 library does not declare yet. */
const { rawJSON } = JSON as JSON & { rawJSON(text: string): unknown };

/** The JSON of a record, with a bigint ID written as its digits, as Postmark writes it. */
export function postmarkJson(payload: PostmarkPayload): string {
  return JSON.stringify(payload, (_key, value: unknown) =>
    typeof value === 'bigint' ? rawJSON(value.toString()) : value,
  );
}

/**
 * The request Postmark sends for `payload` to a webhook URL holding `credentials`
 * (`user:password`): Basic credentials and the JSON. Postmark has no signature; the name matches
 * the other providers' support files.
 */
export function signed(
  payload: PostmarkPayload,
  credentials: string,
): { headers: Record<string, string>; body: Buffer } {
  return {
    headers: {
      authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`,
      'content-type': 'application/json',
      'user-agent': 'Postmark',
    },
    body: Buffer.from(postmarkJson(payload), 'utf8'),
  };
}
