// Postmark's bounce and spam complaint webhooks (decision 0038). Postmark signs nothing: the
// operator puts a user and password in the webhook's URL (https://user:password@host/bounces/postmark)
// and Postmark sends them as Basic credentials, which must be those of BOUNCE_POSTMARK_AUTH_FILE.
// One request is one record; the Bounce and SpamComplaint record types are read, every other one
// (Delivery, Open, Click, SubscriptionChange) is answered with no notice. A bounce's kind comes
// from its Type, as the table in docs/operating.md sets out from Postmark's list of bounce types.
import { sameSecret } from './checks';
import {
  Refused,
  Unreadable,
  type BounceKind,
  type BounceNotice,
  type ProviderEndpoint,
  type ProviderRequest,
} from './notices';

export interface PostmarkOptions {
  /** `user:password`, as the webhook's URL carries them. */
  credentials: string;
}

/**
 * What each of Postmark's bounce types does to an address. A type missing here (one Postmark adds
 * later) is ignored.
 */
const BOUNCE_KINDS: Record<string, BounceKind | 'ignored'> = {
  HardBounce: 'permanent',
  BadEmailAddress: 'permanent',
  ManuallyDeactivated: 'permanent',
  Transient: 'transient',
  SoftBounce: 'transient',
  DnsError: 'transient',
  Unknown: 'transient',
  SpamNotification: 'transient',
  Blocked: 'transient',
  SpamComplaint: 'complaint',
  Unsubscribe: 'complaint',
  AutoResponder: 'ignored',
  AddressChange: 'ignored',
  Subscribe: 'ignored',
  ChallengeVerification: 'ignored',
  OpenRelayTest: 'ignored',
  VirusNotification: 'ignored',
  Unconfirmed: 'ignored',
  SMTPApiError: 'ignored',
  InboundError: 'ignored',
  DMARCPolicy: 'ignored',
  TemplateRenderingFailed: 'ignored',
};

/** The record types read; a spam complaint is a complaint whatever its Type says. */
const READ_RECORDS = new Set(['Bounce', 'SpamComplaint']);

/** A Type as Postmark names them: one word, which can hold no address. */
const TYPE_NAME = /^[A-Za-z]{1,40}$/;

/** Postmark's record, as far as it is read. */
interface PostmarkRecord {
  RecordType?: unknown;
  ID?: unknown;
  Type?: unknown;
  TypeCode?: unknown;
  Email?: unknown;
}

/** JSON.parse's reviver with the source text of each value (Node 22 and later). */
type SourceReviver = (key: string, value: unknown, context?: { source?: string }) => unknown;

/** The Basic credentials of a request as bytes, or undefined when it has none. */
function basicCredentials(request: ProviderRequest): Buffer | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  return match ? Buffer.from(match[1], 'base64') : undefined;
}

/**
 * Parses Postmark's JSON, keeping a numeric ID as the digits it was sent as: Postmark's IDs are
 * 64-bit, past what a JavaScript number holds exactly, so two bounces must not round to one.
 */
function parseRecord(body: Buffer): PostmarkRecord {
  const exactId: SourceReviver = (key, value, context) =>
    key === 'ID' && typeof value === 'number' && context?.source !== undefined
      ? context.source
      : value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'), exactId);
  } catch {
    throw new Unreadable('the body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Unreadable('the body is not one Postmark record');
  return parsed;
}

/** The notice of a Bounce or SpamComplaint record. */
function noticeOf(record: PostmarkRecord, recordType: string): BounceNotice {
  const { ID: id, Type: type, TypeCode: code, Email: email } = record;
  if (typeof id !== 'string' || !/^\d{1,20}$/.test(id))
    throw new Unreadable(`the ${recordType} record has no numeric ID`);
  if (typeof email !== 'string' || email === '')
    throw new Unreadable(`the ${recordType} record has no Email`);
  const name = typeof type === 'string' && TYPE_NAME.test(type) ? type : 'unnamed type';
  const known = Object.hasOwn(BOUNCE_KINDS, name) ? BOUNCE_KINDS[name] : 'ignored';
  const kind = recordType === 'SpamComplaint' ? 'complaint' : known;
  return {
    id: `${recordType}:${id}`,
    email,
    kind,
    detail: Number.isSafeInteger(code) ? `${name} (${String(code)})` : name,
  };
}

/** Postmark's endpoint, taking only requests with the Basic credentials `credentials`. */
export function postmarkEndpoint(options: PostmarkOptions): ProviderEndpoint {
  if (!options.credentials.includes(':'))
    throw new Error("Postmark's credentials are a user and a password: user:password");
  const expected = Buffer.from(options.credentials, 'utf8');

  return {
    provider: 'postmark',
    async read(request) {
      const given = basicCredentials(request);
      if (!given || !sameSecret(given, expected))
        throw new Refused('credentials', "not Postmark's credentials");

      const record = parseRecord(request.body);
      if (typeof record.RecordType !== 'string')
        throw new Unreadable('the record has no RecordType');
      return {
        notices: READ_RECORDS.has(record.RecordType) ? [noticeOf(record, record.RecordType)] : [],
      };
    },
  };
}
