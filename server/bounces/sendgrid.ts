// SendGrid's Signed Event Webhook (decision 0038). SendGrid signs each delivery with ECDSA P-256
// over SHA-256 of the X-Twilio-Email-Event-Webhook-Timestamp header followed by the body's bytes,
// and sends the DER signature in base64 in X-Twilio-Email-Event-Webhook-Signature; the site
// checks it with the verification key SendGrid's console shows (BOUNCE_SENDGRID_PUBLIC_KEY), and
// refuses a timestamp more than 5 minutes from now. The body is an array of events: `bounce`
// (a permanent failure, or a temporary one when its type is `blocked`), `dropped` (permanent only
// when SendGrid dropped the mail for an invalid or bounced address) and `spamreport` are read;
// every other event (processed, delivered, deferred, open…) is left out.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { refuseStale } from './checks';
import {
  Refused,
  Unreadable,
  type BounceNotice,
  type ProviderEndpoint,
  type ProviderRequest,
} from './notices';

export interface SendgridOptions {
  /**
   * The verification key as SendGrid's console shows it (the base64 of a DER
   * SubjectPublicKeyInfo), or the same key as PEM.
   */
  publicKey: string;
}

const SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
const TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';

/** The drop reasons SendGrid lists, with what each does: only a bad address is permanent. */
const DROP_REASONS: ReadonlyMap<string, { words: string; kind: 'permanent' | 'ignored' }> = new Map(
  (
    [
      ['Bounced Address', 'permanent'],
      ['Invalid', 'permanent'],
      ['Invalid Address', 'permanent'],
      ['Unsubscribed Address', 'ignored'],
      ['Spam Reporting Address', 'ignored'],
      ['Spam Content', 'ignored'],
      ['Invalid SMTPAPI header', 'ignored'],
      ['Recipient List over Package Quota', 'ignored'],
    ] as const
  ).map(([words, kind]) => [words.toLowerCase(), { words, kind }]),
);

/** SendGrid's bounce_classification values: a fixed list, so safe to show. */
const CLASSIFICATIONS = new Set([
  'Content',
  'Frequency or Volume Too High',
  'Invalid Address',
  'Mailbox Unavailable',
  'Reputation',
  'Technical Failure',
  'Unclassified',
]);

/** An enhanced status code (RFC 3463), the only part of a bounce's SMTP answer kept. */
const STATUS_CODE = /^[245]\.\d{1,3}\.\d{1,3}$/;

/** One event of the array, as far as it is read. */
interface SendgridEvent {
  event?: unknown;
  email?: unknown;
  sg_event_id?: unknown;
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  bounce_classification?: unknown;
}

/**
 * The key of `publicKey`, which must be an EC P-256 public key; the settings check it with this
 * at start-up (BOUNCE_SENDGRID_PUBLIC_KEY).
 */
export function verificationKey(publicKey: string): KeyObject {
  const text = publicKey.trim();
  let key: KeyObject;
  try {
    key = text.startsWith('-----BEGIN')
      ? createPublicKey(text)
      : createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new Error("SendGrid's verification key is not a public key (base64 DER or PEM)");
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new Error("SendGrid's verification key is not an EC P-256 key");
  return key;
}

/** A header's value, or undefined when it is missing or empty. */
function header(request: ProviderRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Throws Refused unless the request carries SendGrid's signature of its timestamp and body. */
function checkSignature(request: ProviderRequest, key: KeyObject, now: number): void {
  const signature = header(request, SIGNATURE_HEADER);
  const timestamp = header(request, TIMESTAMP_HEADER);
  if (signature === undefined || timestamp === undefined)
    throw new Refused('signature', 'no SendGrid signature');
  if (!/^\d{1,12}$/.test(timestamp)) throw new Refused('signature', 'not a SendGrid timestamp');

  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), request.body]);
  let valid: boolean;
  try {
    valid = verify('sha256', signed, { key, dsaEncoding: 'der' }, Buffer.from(signature, 'base64'));
  } catch {
    valid = false;
  }
  if (!valid) throw new Refused('signature', "not SendGrid's signature");
  refuseStale(timestamp, now, 'SendGrid');
}

/** The detail of a bounce: its type, status code and classification where they are clean. */
function bounceDetail(event: SendgridEvent, type: 'bounce' | 'blocked'): string {
  const status =
    typeof event.status === 'string' && STATUS_CODE.test(event.status) ? ` ${event.status}` : '';
  const classification =
    typeof event.bounce_classification === 'string' &&
    CLASSIFICATIONS.has(event.bounce_classification)
      ? ` (${event.bounce_classification})`
      : '';
  return `${type}${status}${classification}`;
}

/** The notice of one read event, or undefined for an event the site does not read. */
function noticeOf(event: SendgridEvent): BounceNotice | undefined {
  const name = event.event;
  if (name !== 'bounce' && name !== 'dropped' && name !== 'spamreport') return undefined;
  const { email, sg_event_id: id } = event;
  if (typeof email !== 'string' || email === '')
    throw new Unreadable(`a ${name} event has no email`);
  if (typeof id !== 'string' || id === '')
    throw new Unreadable(`a ${name} event has no sg_event_id`);

  if (name === 'spamreport') return { id, email, kind: 'complaint', detail: 'spamreport' };
  if (name === 'bounce') {
    const type = event.type === 'blocked' ? 'blocked' : 'bounce';
    const kind = type === 'blocked' ? 'transient' : 'permanent';
    return { id, email, kind, detail: bounceDetail(event, type) };
  }
  const reason =
    typeof event.reason === 'string' ? DROP_REASONS.get(event.reason.toLowerCase()) : undefined;
  return reason
    ? { id, email, kind: reason.kind, detail: `dropped: ${reason.words}` }
    : { id, email, kind: 'ignored', detail: 'dropped: another reason' };
}

/** The events of a verified body. */
function readEvents(body: Buffer): BounceNotice[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Unreadable('the body is not JSON');
  }
  if (!Array.isArray(parsed)) throw new Unreadable('the body is not an array of events');
  return parsed.flatMap((event: unknown) => {
    if (typeof event !== 'object' || event === null)
      throw new Unreadable('an event is not an object');
    const notice = noticeOf(event);
    return notice ? [notice] : [];
  });
}

/** SendGrid's endpoint, taking only deliveries signed with the key of `publicKey`. */
export function sendgridEndpoint(options: SendgridOptions): ProviderEndpoint {
  const key = verificationKey(options.publicKey);
  return {
    provider: 'sendgrid',
    async read(request, now) {
      checkSignature(request, key, now);
      return { notices: readEvents(request.body) };
    },
  };
}
