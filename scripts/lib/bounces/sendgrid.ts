// SendGrid's Event Webhook deliveries as SendGrid posts them, built from its Event Webhook
// reference (the example of each event) and signed as the Signed Event Webhook signs: ECDSA P-256
// with SHA-256 over the timestamp header followed by the body, the DER signature in base64. The
// body is laid out as SendGrid lays it out (its library's signed fixtures): the events of the
// array separated by ",\r\n", and "\r\n" after the closing bracket.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

/** One event of the array, as SendGrid posts it. */
export type SendgridEvent = Record<string, unknown>;

/** A key pair as SendGrid keeps one: the private half signs, the console shows the public half. */
export interface SendgridKeys {
  privateKey: KeyObject;
  /** The verification key as SendGrid's console shows it: base64 of a DER SubjectPublicKeyInfo. */
  publicKey: string;
  /** The same key as PEM. */
  publicKeyPem: string;
}

/** A new EC P-256 key pair, as the console makes one when signing is turned on. */
export function sendgridKeys(): SendgridKeys {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    privateKey,
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

interface EventOptions {
  email: string;
  id: string;
  at?: number;
}

/** The fields every delivery event shares, as the reference's examples have them. */
function common({ email, id, at = Date.parse('2026-03-01T12:00:00Z') }: EventOptions) {
  return {
    email,
    timestamp: Math.floor(at / 1000),
    'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>',
    sg_event_id: id,
    sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0',
  };
}

/**
 * A `bounce` event: `type` "bounce" (the receiving server would not accept mail to this recipient
 * permanently) or "blocked" (it would not accept the message temporarily).
 */
export function bounceEvent(
  options: EventOptions & {
    type?: 'bounce' | 'blocked';
    status?: string;
    reason?: string;
    classification?: string;
  },
): SendgridEvent {
  const {
    type = 'bounce',
    status = '5.0.0',
    reason = '500 unknown recipient',
    classification = 'Invalid Address',
  } = options;
  return {
    ...common(options),
    event: 'bounce',
    bounce_classification: classification,
    category: 'invitation',
    reason,
    status,
    type,
    tls: 1,
  };
}

/** A `dropped` event with one of the reasons SendGrid lists (or another). */
export function droppedEvent(options: EventOptions & { reason: string }): SendgridEvent {
  return {
    ...common(options),
    event: 'dropped',
    category: 'invitation',
    reason: options.reason,
    status: '5.0.0',
  };
}

/** A `spamreport` event: the recipient marked the message as spam. */
export function spamreportEvent(options: EventOptions): SendgridEvent {
  return { ...common(options), event: 'spamreport' };
}

/** An event the site does not read: processed, delivered, deferred, open, click… */
export function otherEvent(options: EventOptions & { event: string }): SendgridEvent {
  return { ...common(options), event: options.event, response: '250 OK' };
}

/** The body SendGrid posts for `events`. */
export function sendgridBody(events: readonly SendgridEvent[]): Buffer {
  return Buffer.from(`[${events.map((event) => JSON.stringify(event)).join(',\r\n')}]\r\n`, 'utf8');
}

/** The base64 DER signature of `body` at `timestamp` (seconds, as the header carries it). */
export function sendgridSignature(privateKey: KeyObject, timestamp: string, body: Buffer): string {
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), body]);
  return sign('sha256', signed, { key: privateKey, dsaEncoding: 'der' }).toString('base64');
}

/**
 * The request SendGrid sends for `events`, signed with `privateKey` at `at` (ms). Header names
 * are as Node hands them to the site (lower case); SendGrid writes
 * X-Twilio-Email-Event-Webhook-Signature and X-Twilio-Email-Event-Webhook-Timestamp.
 */
export function signed(
  events: readonly SendgridEvent[],
  privateKey: KeyObject,
  { at }: { at: number },
): { headers: Record<string, string>; body: Buffer } {
  const body = sendgridBody(events);
  const timestamp = String(Math.floor(at / 1000));
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'SendGrid Event API',
      'x-twilio-email-event-webhook-signature': sendgridSignature(privateKey, timestamp, body),
      'x-twilio-email-event-webhook-timestamp': timestamp,
    },
    body,
  };
}
